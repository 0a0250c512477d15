"""The trained translators through the API: /api/attention?source=…&model=rnnsearch (transformer-mt, rnnencdec).

What is checked, each against something computed another way: the tokens are the model's own output
(app/engine/models/translator.py run directly); forced decoding's probabilities against the log-probability
of the whole target and against greedy decoding's own steps; stage 1 of RNNsearch recomputed by hand from
the weights file; the Transformer's head chosen by layer and head; the decoder self-attention masked and
growing one cached row per word; RNNencdec's one vector C and no weights; the seed text's sentences; every
limit answered with a 422 that names the field; the same bytes for the same link, in another process too.
"""

import hashlib
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from app.engine.models import translator as mt
from app.view import models

TOM = "Tom chase Jerry"


def get(client, **params):
    response = client.get("/api/attention", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def as_the_page_decodes(model, text: str) -> mt.Translation:
    """The view's default decoding: beam search of the default width among the dictionary's candidates."""
    return mt.translate(model, text, beam=mt.DEFAULT_BEAM, candidates=True)


def refused(client, **params):
    response = client.get("/api/attention", params=params)
    assert response.status_code == 422, response.text
    return response.json()["detail"][0]


@pytest.mark.parametrize("name", ["rnnsearch", "transformer-mt", "rnnencdec"])
def test_queries_are_the_models_own_translation(client, name):
    body = get(client, source="Tom chased the cat in the garden", model=name)
    direct = as_the_page_decodes(mt.load(name), "Tom chased the cat in the garden")
    assert body["mode"] == "translate"
    assert body["tokens"]["queries"] == direct.target
    assert (body["translation"]["decoding"], body["translation"]["beam"]) == ("beam", mt.DEFAULT_BEAM)
    assert body["translation"]["probabilities"] == pytest.approx([s.probability for s in direct.steps[:-1]], abs=1e-12)
    assert body["translation"]["end_probability"] == pytest.approx(direct.steps[-1].probability, abs=1e-12)
    weights = np.array(body["head"]["weights"])  # (n_q, n_k)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-12)
    if name == "rnnencdec":
        assert body["tokens"]["keys"] == ["C"]
    else:
        assert body["tokens"]["keys"] == ["tom", "chased", "the", "cat", "in", "the", "garden"]


@pytest.mark.parametrize("decode", [mt.translate, as_the_page_decodes], ids=["greedy", "as-the-page"])
def test_seed_sentences(decode):
    """The issue's goals for the seed text's sentences, on the committed weights: decoded greedily as trained, and
    as the page decodes by default."""
    search = models.translator("rnnsearch")
    tom = decode(search, TOM)
    assert tom.target == ["汤姆", "追逐", "杰瑞"]
    assert int(np.argmax(tom.steps[2].attention.weights)) == 2, "杰瑞's largest weight is on Jerry"
    for name in models.TRANSLATOR_NAMES:
        model = models.translator(name)
        money = decode(model, "I put money in the bank").target
        river = decode(model, "we sat on the river bank").target
        assert "银行" in money and "河岸" not in money, (name, money)
        assert "河岸" in river and "银行" not in river, (name, river)
        library = decode(model, "I read books in the library").target
        assert library[:3] == ["我", "在", "图书馆"], "the place moves before the verb"


def test_api_tom_chase_jerry_with_gold_alignment(client):
    body = get(client, source=TOM, model="rnnsearch", step=2)
    assert body["tokens"]["queries"] == ["汤姆", "追逐", "杰瑞"]
    assert body["translation"]["learned_alignment"] == [0, 1, 2]
    assert body["translation"]["gold"] == {"target": ["汤姆", "追逐", "杰瑞"], "alignment": [[0], [1], [2]]}
    assert body["arithmetic"]["score"] == "additive"
    assert body["arithmetic"]["weights"] == body["head"]["weights"][2]


def test_rnnsearch_stage1_by_hand_from_the_weights_file(client):
    """e_ij = vᵀ tanh(W s_{i-1} + U h_j): W, U, v read from the .npz here, q = s_{i-1} and k = h_j from the answer."""
    body = get(client, source="I read books in the library", model="rnnsearch", step=3)
    with np.load(mt.DIRECTORY / "rnnsearch.npz") as npz:
        W, U, v = (npz[name].astype(np.float64) for name in ("W.weight", "U.weight", "v.weight"))
    q, k = np.array(body["head"]["q"]), np.array(body["head"]["k"])  # (n_q, 128), (n_k, 256)
    by_hand = np.array([[v[0] @ np.tanh(W @ s + U @ h) for h in k] for s in q])
    np.testing.assert_allclose(np.array(body["head"]["scores"]), by_hand, atol=1e-9)
    e = np.exp(by_hand - by_hand.max(axis=1, keepdims=True))
    np.testing.assert_allclose(np.array(body["head"]["weights"]), e / e.sum(axis=1, keepdims=True), atol=1e-9)
    # stage 3: the context vector c_i = Σ_j a_ij h_j
    np.testing.assert_allclose(np.array(body["head"]["output"]), np.array(body["head"]["weights"]) @ k, atol=1e-9)
    np.testing.assert_allclose(body["arithmetic"]["hidden"], np.tanh(W @ q[3] + k @ U.T), atol=1e-9)


def test_forced_target_probabilities(client):
    target = "我 在 图书馆 看 书"
    body = get(client, source="I read books in the library", target=target, model="rnnsearch")
    facts = body["translation"]
    assert facts["decoding"] == "forced" and body["tokens"]["queries"] == target.split()
    p = facts["probabilities"]
    assert len(p) == 5 and all(0 < x <= 1 for x in p)
    total = sum(math.log(x) for x in p) + math.log(facts["end_probability"])
    assert total == pytest.approx(facts["log_probability"], abs=1e-9), "the words' probabilities make the whole"
    # forced decoding of the model's own greedy output gives back the greedy steps' probabilities
    greedy = get(client, source="I read books in the library", model="rnnsearch")
    again = get(
        client, source="I read books in the library", model="rnnsearch", target=" ".join(greedy["tokens"]["queries"])
    )
    assert again["translation"]["probabilities"] == pytest.approx(greedy["translation"]["probabilities"], abs=1e-12)
    assert all(x > 0.5 for x in greedy["translation"]["probabilities"]), "greedy picks each step's most probable word"


def test_unknown_words_are_listed_with_the_vocabulary(client):
    body = get(client, source="Tom saw a volcano", model="rnnsearch", target="汤姆 看见 了 一 座 火山")
    facts = body["translation"]
    assert facts["unknown_source"] == ["volcano"] and facts["unknown_target"] == ["火山"]
    assert set(body["unknown_tokens"]) == {"volcano", "火山"}
    assert facts["vocabulary"]["max_source_words"] == mt.MAX_SOURCE_WORDS
    assert 3000 < facts["vocabulary"]["source"] < 4000 and 1400 < facts["vocabulary"]["target"] < 1800


def test_beam_search(client):
    body = get(client, source=TOM, model="rnnsearch", beam=2)
    assert body["translation"]["decoding"] == "beam" and body["translation"]["beam"] == 2
    assert body["tokens"]["queries"] == ["汤姆", "追逐", "杰瑞"]
    assert "beam=2" in body["share_path"]
    greedy = get(client, source=TOM, model="rnnsearch", beam=1)
    assert greedy["translation"]["decoding"] == "greedy" and "beam=1" in greedy["share_path"]
    default = get(client, source=TOM, model="rnnsearch")
    assert default["translation"]["beam"] == mt.DEFAULT_BEAM and "beam" not in default["share_path"]


def test_transformer_layer_head_and_decoder_self_attention(client):
    source = "I read books in the library"
    body = get(client, source=source, model="transformer-mt", layer=1, head=3)
    direct = as_the_page_decodes(mt.load("transformer-mt"), source)
    n = len(direct.target)
    expected = np.stack([s.attention.weights[1, 3] for s in direct.steps[:n]])
    np.testing.assert_allclose(np.array(body["head"]["weights"]), expected, atol=1e-12)
    assert body["overview"]["layers"] == 2 and body["overview"]["heads"] == 4
    assert body["arithmetic"]["score"] == "scaled_dot" and body["arithmetic"]["scale"] == pytest.approx(math.sqrt(32))
    own = body["translation"]["self_attention"]
    assert own["keys"] == ["<s>", *direct.target[: n - 1]]
    weights, mask = np.array(own["weights"]), np.array(own["mask"])
    assert weights.shape == (n, n) and np.all(weights[~mask] == 0) and np.all(mask == np.tri(n, dtype=bool))
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-12)
    for i in range(n):  # step i reads cache rows 0..i: one row more per word
        np.testing.assert_allclose(weights[i, : i + 1], direct.steps[i].attention.self_weights[1, 3], atol=1e-12)
        q, k = np.array(own["q"][i]), np.array(own["k"][: i + 1])
        np.testing.assert_allclose(np.array(own["scores"][i][: i + 1]), k @ q / math.sqrt(32), atol=1e-9)


def test_rnnencdec_shows_its_one_vector_and_no_weights(client):
    body = get(client, source=TOM, model="rnnencdec")
    assert body["head"]["scores"] is None and body["arithmetic"] is None
    c = np.array(body["translation"]["context_vector"])
    assert c.shape == (256,)
    np.testing.assert_allclose(np.array(body["head"]["output"]), np.tile(c, (3, 1)))
    assert body["translation"]["learned_alignment"] is None
    arithmetic = client.get("/api/arithmetic", params={"source": TOM, "model": "rnnencdec"})
    assert arithmetic.status_code == 200 and arithmetic.json()["arithmetic"] is None


def test_limits_are_422_naming_the_field(client):
    long = " ".join(["tom"] * (mt.MAX_SOURCE_WORDS + 1))
    error = refused(client, source=long, model="rnnsearch")
    assert error["field"] == "source" and "30" in error["msg"] and "31" in error["msg"]
    error = refused(client, source=TOM, model="rnnsearch", target=" ".join(["杰瑞"] * (mt.MAX_TARGET_WORDS + 1)))
    assert error["field"] == "target" and str(mt.MAX_TARGET_WORDS) in error["msg"]
    assert refused(client, source=TOM, model="rnnsearch", layer=1)["field"] == "layer"
    assert refused(client, source=TOM, model="transformer-mt", head=4)["field"] == "head"
    assert refused(client, source=TOM, model="rnnsearch", beam=9)["field"] == "beam"
    assert refused(client, source="汤姆追逐杰瑞", model="rnnsearch")["field"] == "source"
    assert refused(client, source=TOM, beam=2)["field"] == "beam", "beam belongs to the translators"
    assert refused(client, source=TOM, model="rnnsearch", score="dot")["field"] == "score"
    chinese = client.get("/api/attention", params={"source": long, "model": "rnnsearch", "lang": "zh"})
    assert chinese.status_code == 422 and "最多翻译 30 个英文词" in chinese.json()["message"]
    # 29 typed words, two of them contractions read in full: 31 words read, and the message says why
    contracted = " ".join(["i'm", "it's"] + ["tom"] * (mt.MAX_SOURCE_WORDS - 3))
    error = refused(client, source=contracted, model="rnnsearch")
    assert error["field"] == "source" and "31" in error["msg"] and "i'm" in error["msg"]


LINK = "/api/attention?source=I+read+books+in+the+library&model=transformer-mt&layer=1&head=2&step=3"


@pytest.mark.slow  # a child process imports the app
def test_same_link_same_bytes_in_another_process(client):
    first = client.get(LINK).content
    assert client.get(LINK).content == first
    script = (
        "import hashlib, sys\n"
        "from fastapi.testclient import TestClient\n"
        "from app.main import create_app\n"
        f"sys.stdout.write(hashlib.sha256(TestClient(create_app()).get({LINK!r}).content).hexdigest())\n"
    )
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300)
    assert other.stdout.strip().splitlines()[-1][-64:] == hashlib.sha256(first).hexdigest()


def test_gold_alignments_are_the_corpus_own():
    """Each gold pair the view shows is one the corpus generator writes, word for word and link for link."""
    from tools.translator import dataset

    # the full corpus's validation split, so the training split is the full one's first 30,000 pairs (the river bank
    # is among them)
    splits = dataset.generate(sizes={"train": 30000, "val": dataset.SIZES["val"], "test": 400})
    written = {pair["en"]: (pair["zh"].split(), pair["align"]) for pairs in splits.values() for pair in pairs}
    found = [en for en in models.GOLD if en in written]
    assert {"tom chase jerry", "we sat on the river bank"} <= set(found)
    for en in found:
        assert models.GOLD[en] == written[en], en
    for en, (zh, align) in models.GOLD.items():  # the others: every link points into the sentence
        assert len(zh) == len(align) and all(0 <= j < len(en.split()) for links in align for j in links)


def test_schema_names_the_translate_mode(client):
    schema = client.get("/openapi.json").json()
    response = schema["components"]["schemas"]["Answer"]["properties"]
    assert "translate" in json.dumps(response["mode"]) and "translation" in response


def test_geometry_of_the_translators(client):
    """RNNsearch's plane holds the two terms its additive score adds, W s_{i-1} and U h_j, read from the weights
    file: the points reproduce from the basis, and there is no q·k to show. RNNencdec has no attention: no plane."""
    body = get(client, source=TOM, model="rnnsearch")
    geometry = body["geometry"]
    network = mt.read_weights("rnnsearch")  # the weights file itself, not the loaded model
    s = np.asarray(body["head"]["q"]) @ network["W.weight"].T  # (n_q, d_att)
    h = np.asarray(body["head"]["k"]) @ network["U.weight"].T  # (n_k, d_att)
    basis, center = np.asarray(geometry["basis"]), np.asarray(geometry["center"])  # (2, d_att), (d_att,)
    assert basis.shape == (2, s.shape[1])
    # float64 arithmetic on float32 inputs, sent as JSON floats: agreement to a few float32 ulps of the points' size
    bound = 1e-5 * max(1.0, float(np.abs(s).max()), float(np.abs(h).max()))
    np.testing.assert_allclose(geometry["queries"], (s - center) @ basis.T, atol=bound)
    np.testing.assert_allclose(geometry["keys"], (h - center) @ basis.T, atol=bound)
    assert geometry["method"] == "pca" and 0 < geometry["retained"] <= 1
    assert geometry["lines"]["dots"] is None
    assert geometry["lines"]["weights"] == body["head"]["weights"][body["params"]["step"]]
    assert get(client, source=TOM, model="rnnencdec")["geometry"] is None


@pytest.mark.parametrize("name", ["rnnsearch", "transformer-mt", "rnnencdec"])
def test_the_translation_is_checked_against_the_dictionary(client, name):
    """A Chinese word forced in that no English word asks for (吃, eat) is made up, the word it stands for (chase)
    left out; coverage is each English column of stage 2 summed, so over every column it is one per Chinese word."""
    body = get(client, source=TOM, model=name, target="汤姆 吃 杰瑞")
    check = body["translation"]["check"]
    assert check["translates"] == [[0], [], [2]]
    assert check["content"] == [True, True, True]
    assert (check["invented"], check["left_out"]) == ([1], [1])
    if name == "rnnencdec":
        assert check["coverage"] is None  # no attention: nothing was received
    else:
        weights = np.array(body["head"]["weights"])  # (n_q, n_k)
        assert check["coverage"] == pytest.approx(weights.sum(axis=0).tolist(), abs=1e-12)
        assert sum(check["coverage"]) == pytest.approx(3, abs=1e-9)
    right = get(client, source=TOM, model=name, target="汤姆 追逐 杰瑞")["translation"]["check"]
    assert (right["translates"], right["invented"], right["left_out"]) == ([[0], [1], [2]], [], [])
