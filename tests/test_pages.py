"""The page never fails on a link: what cannot be shown is said, and the rest is shown."""

from tests.support.pages import page_data

LONG_FOR_THE_MODEL = " ".join(["antidisestablishment"] * 45)  # 45 words, under 1000 characters, > 128 word pieces


def test_a_sentence_too_long_for_the_model_falls_back_to_the_toy_engine(client):
    assert client.get("/api/attention", params={"source": LONG_FOR_THE_MODEL, "model": "minilm"}).status_code == 422
    page = client.get("/", params={"source": LONG_FOR_THE_MODEL, "model": "minilm", "head": "3"})
    assert page.status_code == 200
    assert "128 word pieces" in page.text
    view = page_data(page.text)["view"]
    assert view["mode"] == "self" and view["params"]["source"] == LONG_FOR_THE_MODEL  # nothing typed is lost
    assert len(view["tokens"]["queries"]) == 45
