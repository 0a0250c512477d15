"""Compare: two panes in one link, the focus word, and the numbers that compare it (checked with numpy here)."""

from urllib.parse import urlsplit

import numpy as np
import pytest

from app.view.compare import COMPARE_PRESETS

BANKS = "a.source=I+sat+by+the+river+bank&b.source=I+put+money+in+the+bank"


def get(client, query):
    response = client.get("/api/compare?" + query)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_two_banks_show_their_contrast_at_default_settings(client):
    body = get(client, BANKS)
    assert body["focus"] == "bank", "the first content word both sentences share"
    assert body["shared"] == ["I", "the", "bank"]
    word = body["word"]
    assert word["steps"] == {"a": 5, "b": 5}
    assert word["top"]["a"][0]["key"] == "river" and word["top"]["b"][0]["key"] == "money"
    for pane in ("a", "b"):
        view = body["panes"][pane]
        assert view["params"]["step"] == 5, "both panes step to the focus word"
        weights = np.array(view["head"]["weights"])
        ranked = sorted(range(len(weights[5])), key=lambda j: (-weights[5][j], j))[:3]  # ties: sentence order
        assert [(k["key"], k["weight"]) for k in word["top"][pane]] == [
            (view["tokens"]["keys"][j], weights[5][j]) for j in ranked
        ]


def test_one_colour_scale_and_the_output_comparison_recomputed(client):
    body = get(client, BANKS)
    a, b = (np.array(body["panes"][p]["head"]["weights"]) for p in ("a", "b"))
    assert body["weights_max"] == max(a.max(), b.max())
    out_a = np.array(body["panes"]["a"]["head"]["output"][5])
    out_b = np.array(body["panes"]["b"]["head"]["output"][5])
    cosine = out_a @ out_b / np.linalg.norm(out_a) / np.linalg.norm(out_b)
    assert body["word"]["output_cosine"] == pytest.approx(cosine, rel=1e-12)
    names = body["panes"]["a"]["names"]["output"]
    largest = np.argsort(-np.abs(out_a - out_b), kind="stable")[:5]
    assert [d["name"] for d in body["word"]["differing"]] == [names[i] for i in largest]
    assert body["word"]["differing"][0]["name"] in ("money", "water", "nature")


def test_real_model_drift_layer_by_layer(client):
    from app.view import models

    query = BANKS + "&a.model=minilm&b.model=minilm"
    body = get(client, query)
    drift = body["word"]["drift"]
    runs = [models.run("minilm", s) for s in ("I sat by the river bank", "I put money in the bank")]
    index = [run.tokens.index("bank") for run in runs]
    hidden = [np.asarray(run.hidden, dtype=np.float64)[:, i] for run, i in zip(runs, index, strict=True)]
    expected = [x @ y / np.linalg.norm(x) / np.linalg.norm(y) for x, y in zip(*hidden, strict=True)]
    assert len(drift) == 7  # the embeddings and 6 layers
    np.testing.assert_allclose(drift, expected, rtol=1e-9)
    assert drift[-1] < drift[1], "the two banks drift apart through the layers"


def test_the_link_round_trips_and_names_the_pane(client):
    query = BANKS + "&a.temperature=0.50&b.heads=2&focus=bank&pane=b&lang=zh"
    body = get(client, query)
    again = get(client, urlsplit(body["share_path"]).query)
    assert again == body
    assert body["share_path"].startswith("/compare?a.source=")
    assert "a.temperature=0.5&" in body["share_path"] and "pane=b" in body["share_path"]
    bad = client.get("/api/compare?" + BANKS + "&b.temperature=50")
    assert bad.status_code == 422 and bad.json()["message"].startswith("b.temperature:")
    unknown = client.get("/api/compare?" + BANKS + "&c.source=x")
    assert unknown.status_code == 422 and unknown.json()["message"].startswith("c.source")


def test_no_shared_word(client):
    body = get(client, "a.source=walk+by+river+bank&b.source=我们+散步")
    assert body["focus"] is None and body["shared"] == [] and "word" not in body


@pytest.mark.parametrize("preset", COMPARE_PRESETS, ids=[p["id"] for p in COMPARE_PRESETS])
def test_every_comparison_example_opens(client, preset):
    body = get(client, preset["query"])
    assert body["focus"]
    if preset["differ"]:
        assert body["word"]["top"]["a"][0]["key"] != body["word"]["top"]["b"][0]["key"]
    page = client.get(body["share_path"])
    assert page.status_code == 200 and "compare.js" in page.text


@pytest.mark.parametrize(
    ("query", "field", "english", "chinese"),
    [
        ("&focus=" + "w" * 41, "focus", "at most 40 characters", "最多 40 个字符"),
        ("&b.temperature=50", "b.temperature", "at most 20", "不能大于 20"),
        ("&a.layer=9&a.model=minilm", "a.layer", "has 6 layers", "6"),
        ("&pane=c", "pane", "must be one of", "必须是以下之一"),
        ("&a=1", "a", "unknown parameter", "未知参数"),
    ],
)
def test_a_bad_comparison_names_the_pane_field_and_limit_in_both_languages(client, query, field, english, chinese):
    for lang, text in (("en", english), ("zh", chinese)):
        answer = client.get("/api/compare?" + BANKS + query, headers={"Accept-Language": lang})
        assert answer.status_code == 422, answer.text
        message = answer.json()["message"]
        assert message.startswith(field + ":") and text in message, message
        assert answer.json()["detail"][0]["loc"][:2] == ["query", field]


def test_a_link_of_the_old_writer_reads_back_to_the_same_comparison(client):
    """Links written before a comparison was declared beside State (the focus word's comma percent-encoded)
    open the same comparison, whose canonical link the declaration writes."""
    old = "a.source=x,y;z:w&b.q=1,0;0,1&b.k=1,0;0,1&b.v=1;2&b.query_labels=x,y&focus=a%2Cb"
    body = get(client, old)
    assert body["share_path"] == "/compare?" + old.replace("%2C", ",")
    assert get(client, urlsplit(body["share_path"]).query) == body


def test_the_compare_page_says_what_only_a_pane_s_model_refuses(client):
    """A sentence longer than pane a's model reads: the page opens (the default comparison) and names the field."""
    long = " ".join(["antidisestablishment"] * 45)
    page = client.get("/compare", params={"a.source": long, "a.model": "minilm", "b.source": "bank"})
    assert page.status_code == 200
    assert "a.source: at most 128 word pieces" in page.text
