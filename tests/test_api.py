"""The JSON API: every parameter, the response's fields and shapes, GET = POST, share links, every error."""

import base64
import math
import re
from urllib.parse import urlsplit

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.text.embed import sinusoidal_positions
from app.engine.text.lexicon import FEATURES, ROLES
from app.view.state import State
from tests.support.examples import examples
from tests.support.views import whole

SENTENCE = "walk by river bank"


def get(client, **params):
    response = client.get("/api/attention", params=params)
    assert response.status_code == 200, response.text
    return whole(client, response.json())


def post(client, body):
    response = client.post("/api/attention", json=body)
    assert response.status_code == 200, response.text
    return whole(client, response.json())


def arrays(head):
    return {name: np.array(head[name]) for name in ("q", "k", "v", "scores", "mask", "weights", "output")}


def softmax(scores, mask, temperature=1.0):
    visible = np.where(mask, scores, -np.inf)
    e = np.exp((visible - visible.max(axis=1, keepdims=True)) / temperature)
    return e / e.sum(axis=1, keepdims=True)


def every_head(client, params):
    """Each head of a view in full: the answer carries the head in focus, so ask for each in turn."""
    first = get(client, **params)
    return [get(client, **{**params, "head": h})["head"] for h in range(first["n_heads"])]


def check_head(head, n_q, n_k, d_k, d_v):
    a = arrays(head)
    assert a["q"].shape == (n_q, d_k) and a["k"].shape == (n_k, d_k) and a["v"].shape == (n_k, d_v)
    assert a["scores"].shape == a["mask"].shape == a["weights"].shape == (n_q, n_k)
    assert a["mask"].dtype == bool and a["mask"].any(axis=1).all()
    assert a["output"].shape == (n_q, d_v)
    # a float32 model's row (n keys, any summation order): gamma(n - 1) for the softmax's sum, u for each
    # division, u for the JSON, so (n + 1) u <= 1e-6 up to n = 15 (the model views here have 7)
    np.testing.assert_allclose(a["weights"].sum(axis=1), 1.0, atol=1e-6)
    assert np.all(a["weights"][~a["mask"]] == 0)
    np.testing.assert_allclose(a["output"], a["weights"] @ a["v"], rtol=1e-5, atol=1e-5)
    assert isinstance(head["parameters"], dict)


def check_view(body, n_q, n_k, d_model, n_heads, d_v=None):
    """Every documented field, with the documented shape."""
    named = body["params"].get("projection") == "named" and body["mode"] in ("self", "cross")
    d_k = body["d_k"] if named else d_model // n_heads  # a named head has as many dimensions as questions
    d_v = (d_model if named else d_k) if d_v is None else d_v
    assert set(body) >= {"params", "share_path", "query", "mode", "tokens", "unknown_tokens", "features",
                         "embeddings", "d_model", "d_k", "n_heads", "head", "arithmetic", "output", "parameters",
                         "overview"}  # fmt: skip
    assert set(body["params"]) == set(State.model_fields)
    assert body["share_path"].startswith("/")
    assert len(body["tokens"]["queries"]) == n_q and len(body["tokens"]["keys"]) == n_k
    assert all(isinstance(t, str) for t in body["tokens"]["queries"] + body["tokens"]["keys"])
    assert isinstance(body["unknown_tokens"], list)
    assert body["d_model"] == d_model and body["d_k"] == d_k and body["n_heads"] == n_heads
    check_head(body["head"], n_q, n_k, d_k, d_v)
    arithmetic = body["arithmetic"]
    step = body["params"]["step"]
    assert arithmetic["step"] == step
    np.testing.assert_allclose(arithmetic["weights"], body["head"]["weights"][step], atol=1e-12)
    np.testing.assert_allclose(arithmetic["output"], body["head"]["output"][step], rtol=1e-6, atol=1e-6)
    if n_heads > 1:
        assert (body["overview"]["layers"], body["overview"]["heads"]) in ((1, n_heads), (6, n_heads))
    if body["embeddings"] is not None:
        assert np.array(body["embeddings"]["queries"]).shape == (n_q, d_model)
        assert np.array(body["embeddings"]["keys"]).shape == (n_k, d_model)
    if body["output"] is not None:
        assert np.array(body["output"]).shape == (n_q, d_model if body["mode"] != "exercise" else d_v)


# ---------------------------------------------------------------------------
# Sentences: source, target and the default view
# ---------------------------------------------------------------------------


D_MODEL = 16 + 8 + 16  # meaning features, roles, the position code


def test_default_self_attention_view(client):
    body = get(client, source=SENTENCE, step=3)
    check_view(body, 4, 4, D_MODEL, 8)
    assert body["mode"] == "self"
    assert body["tokens"]["queries"] == body["tokens"]["keys"] == ["walk", "by", "river", "bank"]
    assert body["features"][:24] == list(FEATURES) + list(ROLES)
    assert body["unknown_tokens"] == []
    assert body["params"]["source"] == SENTENCE and body["params"]["target"] is None
    assert (
        body["params"]["score"] == "scaled_dot"
        and body["params"]["heads"] is None  # every named head
        and body["params"]["head"] is None  # each step shows the head its word asks
        and body["params"]["positional"] is True
        and body["params"]["temperature"] == 1.0
    )
    assert body["share_path"] == "/?step=3"  # the default sentence: nothing but the step to write
    assert get(client, source="walk by the river bank")["share_path"] == "/?source=walk+by+the+river+bank"
    head = body["head"]
    # at bank the head in focus is the named "sense" head: bank's largest weight is river, not bank itself
    assert body["params"]["projection"] == "named" and body["named_head"]["name"] == "sense"
    assert body["focus"]["auto"] and body["focus"]["head"] == 0 and body["focus"]["heads"][3] == 0
    assert body["names"]["vectors"] == ["water", "money", "nature"]
    bank = np.array(head["weights"][3])
    assert int(bank.argmax()) == 2 and bank[2] > 2 * bank[3], bank
    x = np.array(body["embeddings"]["queries"])
    np.testing.assert_allclose(head["q"], x @ np.array(head["parameters"]["W_Q"]), atol=1e-12)
    np.testing.assert_array_equal(head["parameters"]["W_V"], np.eye(D_MODEL))  # values keep the named features
    np.testing.assert_allclose(np.linalg.norm(x[:, :16], axis=1), 4.0)  # meanings of length √16
    np.testing.assert_array_equal(x[:, 16:24].sum(axis=1), 1.0)  # one role each (walk: a verb, bank: a noun)
    rows = np.array(body["focus"]["rows"])  # (8, 4, 4) every head's weights
    outputs = [get(client, source=SENTENCE, head=h)["head"]["output"] for h in range(8)]
    np.testing.assert_allclose(body["output"], np.mean(outputs, axis=0), atol=1e-12)  # W_O averages the heads
    assert body["parameters"] == {}  # so the answer leaves its numbers out
    np.testing.assert_allclose(rows[0], head["weights"], atol=0)


def test_identity_projection_q_k_v_are_the_word_vectors(client):
    body = get(client, source=SENTENCE, projection="identity")
    check_view(body, 4, 4, D_MODEL, 1)
    head = body["head"]
    np.testing.assert_array_equal(head["q"], body["embeddings"]["queries"])
    np.testing.assert_array_equal(head["parameters"]["W_Q"], np.eye(D_MODEL))
    np.testing.assert_array_equal(body["parameters"]["W_O"], np.eye(D_MODEL))
    np.testing.assert_allclose(body["output"], head["output"], atol=1e-6)
    assert int(np.argmax(head["weights"][3])) == 3, "with the identity projection a word looks most at itself"


def test_cross_attention_with_a_target(client):
    body = get(client, source="Tom chase Jerry", target="汤姆追逐杰瑞 !")
    check_view(body, 4, 3, D_MODEL, 4)
    assert body["mode"] == "cross"
    assert body["tokens"]["queries"] == ["汤姆", "追逐", "杰瑞", "!"]
    assert body["tokens"]["keys"] == ["Tom", "chase", "Jerry"]


def test_blank_target_means_self_attention(client):
    body = get(client, source=SENTENCE, target="   ")
    assert body["mode"] == "self" and body["params"]["target"] is None
    assert "target" not in body["share_path"]


def test_unknown_tokens_are_listed(client):
    body = get(client, source="the qwxjv sat", target="a Zorblax")
    assert body["unknown_tokens"] == ["qwxjv", "Zorblax"]


# ---------------------------------------------------------------------------
# Every parameter
# ---------------------------------------------------------------------------


def test_model_minilm_the_head_in_focus_and_the_overview(client):
    body = get(client, source="the bank of the river", model="minilm")
    assert body["mode"] == "model"
    model = body["model"]
    assert (model["name"], model["label"], model["n_layers"], model["n_heads"]) == ("minilm", "all-MiniLM-L6-v2", 6, 12)
    assert model["weights"] is None and model["units"] == "pieces" and "English" in model["languages"]
    tokens = body["tokens"]["queries"]
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]" and tokens == body["tokens"]["keys"]
    n = len(tokens)
    check_view(body, n, n, 384, 12)  # 12 heads of width 32
    assert (body["overview"]["layers"], body["overview"]["heads"]) == (6, 12)
    one = get(client, source="the bank of the river", model="minilm", head=3, layer=5)
    assert one["params"]["layer"] == 5 and one["params"]["head"] == 3
    layer0 = get(client, source="the bank of the river", model="minilm", head=3, layer=0)
    assert not np.allclose(layer0["head"]["weights"], one["head"]["weights"])
    # the overview's small map of layer 0 head 3 is that head's weights (x 255, rounded). Read as float32,
    # the JSON's shortest form gives back the engine's float32 numbers exactly: the app's own arithmetic.
    maps = body["overview"]["maps"]
    levels = np.frombuffer(base64.b64decode(maps[0][3]), dtype=np.uint8).reshape(n, n)
    weights = np.array(layer0["head"]["weights"], np.float32).astype(np.float64)
    np.testing.assert_array_equal(levels, np.round(weights * 255))


def test_model_hide_special_renormalises_and_recomputes(client):
    full = get(client, source="the bank of the river", model="minilm", layer=2, head=4)
    hidden = get(client, source="the bank of the river", model="minilm", layer=2, head=4, hide_special="true")
    assert hidden["tokens"]["queries"] == hidden["tokens"]["keys"] == full["tokens"]["keys"][1:-1]
    kept = np.array(full["head"]["weights"])[1:-1, 1:-1]
    np.testing.assert_allclose(hidden["head"]["weights"], kept / kept.sum(axis=1, keepdims=True), rtol=1e-5)
    w, v, out = (np.array(hidden["head"][key]) for key in ("weights", "v", "output"))
    assert np.all(np.abs(out - w @ v) <= float32_sum_bound(np.abs(w) @ np.abs(v), len(v)))
    board = hidden["arithmetic"]
    products = np.array(board["weighted_values"])  # (n, d_v) w_j v_j
    bound = float32_sum_bound(np.abs(products).sum(axis=0), len(v))
    assert np.all(np.abs(products.sum(axis=0) - board["output"]) <= bound)
    np.testing.assert_allclose(board["output"], hidden["head"]["output"][0], rtol=1e-5, atol=1e-6)


def float32_sum_bound(terms: np.ndarray, n: int) -> np.ndarray:
    """How far a float32 sum of n products (a model's stage 3) can be from the test's float64 one.

    The float32 sum is within gamma(n) = n u of the exact one times sum_j |w_j v_j| (``terms``; Higham,
    u = 2^-24); the JSON carries each float32 in its shortest form, within u of it (the output, the
    weights and the values: 3 u); the test's float64 sum adds far less than u. For n <= 12 that is
    below 1e-6 of sum_j |w_j v_j|: a weight 1e-5 off already moves the output by more.
    """
    return (n + 4) * 2.0**-24 * terms


def hand_scores(score, head):
    q, k, p = np.array(head["q"]), np.array(head["k"]), {n: np.array(m) for n, m in head["parameters"].items()}
    if score == "dot":
        return q @ k.T
    if score == "scaled_dot":
        return q @ k.T / math.sqrt(q.shape[1])
    if score == "cosine":
        qn, kn = np.linalg.norm(q, axis=1, keepdims=True), np.linalg.norm(k, axis=1, keepdims=True)
        return (q / np.where(qn > 0, qn, 1)) @ (k / np.where(kn > 0, kn, 1)).T
    if score == "general":
        return q @ p["W"] @ k.T
    hidden = np.tanh((q @ p["W1"].T)[:, None, :] + (k @ p["W2"].T)[None, :, :])
    return hidden @ p["v"]


@pytest.mark.parametrize(
    "score, extra",
    [("dot", set()), ("scaled_dot", set()), ("cosine", set()), ("general", {"W"}), ("additive", {"W1", "W2", "v"})],
)
def test_every_score(client, score, extra):
    params = {"source": "the river bank and the money bank", "score": score, "heads": 2}
    body = get(client, **params)
    check_view(body, 7, 7, D_MODEL, 2)
    for head in every_head(client, params):
        assert set(head["parameters"]) == {"W_Q", "W_K", "W_V"} | extra
        np.testing.assert_allclose(head["scores"], hand_scores(score, head), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(
            head["weights"], softmax(np.array(head["scores"]), np.array(head["mask"])), atol=1e-6
        )
    if score == "cosine":
        assert np.max(body["head"]["scores"]) <= 1 + 1e-6


@pytest.mark.parametrize("heads", [1, 2, 4, 5, 8])
def test_heads_take_their_slices_and_concatenate(client, heads):
    body = get(client, source=SENTENCE, heads=heads, projection="identity")
    check_view(body, 4, 4, D_MODEL, heads)
    d_k = D_MODEL // heads
    x = np.array(body["embeddings"]["queries"])
    heads = every_head(client, {"source": SENTENCE, "heads": heads, "projection": "identity"})
    for h, head in enumerate(heads):
        np.testing.assert_array_equal(head["q"], x[:, h * d_k : (h + 1) * d_k])
    concatenated = np.concatenate([head["output"] for head in heads], axis=1)
    np.testing.assert_allclose(body["output"], concatenated, atol=1e-6)


def test_random_projection_and_seed(client):
    body = get(client, source=SENTENCE, projection="random", heads=4, seed=5)
    check_view(body, 4, 4, D_MODEL, 4)
    x = np.array(body["embeddings"]["queries"])
    W_O = np.array(body["parameters"]["W_O"])
    assert not np.allclose(W_O, np.eye(D_MODEL))
    heads = every_head(client, {"source": SENTENCE, "projection": "random", "heads": 4, "seed": 5})
    for head in heads:
        np.testing.assert_allclose(head["q"], x @ np.array(head["parameters"]["W_Q"]), rtol=1e-5, atol=1e-5)
    concatenated = np.concatenate([head["output"] for head in heads], axis=1)
    np.testing.assert_allclose(body["output"], concatenated @ W_O, rtol=1e-5, atol=1e-5)
    same = get(client, source=SENTENCE, projection="random", heads=4, seed=5)
    other = get(client, source=SENTENCE, projection="random", heads=4, seed=6)
    assert same == body
    assert not np.allclose(other["parameters"]["W_O"], W_O)


def test_temperature(client):
    cold = get(client, source=SENTENCE, temperature=0.2)
    hot = get(client, source=SENTENCE, temperature=5)
    for body, t in ((cold, 0.2), (hot, 5.0)):
        head = body["head"]
        np.testing.assert_allclose(
            head["weights"], softmax(np.array(head["scores"]), np.array(head["mask"]), t), atol=1e-6
        )
    # the scores do not depend on the temperature, the weights do
    assert cold["head"]["scores"] == hot["head"]["scores"]
    assert np.max(cold["head"]["weights"]) > np.max(hot["head"]["weights"])
    assert cold["params"]["temperature"] == 0.2 and "temperature=0.2" in cold["share_path"]


def test_hard(client):
    body = get(client, source="Tom chase Jerry", target="汤姆 追逐 杰瑞", hard="true")
    weights = np.array(body["head"]["weights"])
    assert set(np.unique(weights)) == {0.0, 1.0}
    np.testing.assert_array_equal(weights, np.eye(3))  # each Chinese word picks its English word


def test_window_self_and_cross(client):
    body = get(client, source="a b c d e", window=1)
    expected = np.abs(np.arange(5)[:, None] - np.arange(5)[None, :]) <= 1
    np.testing.assert_array_equal(body["head"]["mask"], expected)
    cross = get(client, source="a b c d e", target="x y z", window=0)
    # 3 queries over 5 keys: aligned with keys 0, 2, 4
    np.testing.assert_array_equal(cross["head"]["mask"], np.eye(5, dtype=bool)[[0, 2, 4]])
    np.testing.assert_array_equal(cross["head"]["weights"], np.eye(5)[[0, 2, 4]])


def test_causal(client):
    body = get(client, source="the dog chased the cat", causal="true")
    np.testing.assert_array_equal(body["head"]["mask"], np.tril(np.ones((5, 5), bool)))
    assert np.all(np.triu(np.array(body["head"]["weights"]), 1) == 0)


def test_positional(client):
    plain = get(client, source=SENTENCE, positional="false")
    coded = get(client, source=SENTENCE)
    assert "positional=false" in plain["share_path"] and "positional" not in coded["share_path"]
    words, positions = np.split(np.array(coded["embeddings"]["queries"]), [24], axis=1)
    np.testing.assert_array_equal(words, plain["embeddings"]["queries"])  # the position code is appended
    np.testing.assert_allclose(positions, sinusoidal_positions(4, 16), atol=1e-12)
    assert coded["features"][24:] == ["sin0", "cos0", "sin1", "cos1", "sin2", "cos2", "sin3", "cos3",
                                      "sin4", "cos4", "sin5", "cos5", "sin6", "cos6", "sin7", "cos7"]  # fmt: skip


def test_hash_embedding_and_dim(client):
    body = get(client, source="walk by the qwxjv river", embedding="hash", dim=8, heads=2, projection="identity")
    check_view(body, 5, 5, 8 + 16, 2)
    assert body["features"] is None
    norms = np.linalg.norm(np.array(body["embeddings"]["keys"])[:, :8], axis=1)
    np.testing.assert_allclose(norms, np.sqrt(8), atol=1e-6)  # hashed unit vectors times √d
    wide = get(client, source=SENTENCE, embedding="hash", dim=64, heads=8, projection="identity", positional="false")
    check_view(wide, 4, 4, 64, 8)


def test_view_state_parameters(client):
    body = get(client, source=SENTENCE, heads=2, head=1, step=2, stage=3, lang="zh", present="true")
    p = body["params"]
    assert (p["head"], p["step"], p["stage"], p["lang"], p["present"]) == (1, 2, 3, "zh", True)
    for part in ("head=1", "step=2", "stage=3", "lang=zh", "present=true"):
        assert part in body["share_path"]
    # the view state does not change the numbers: the same head, the same stages
    assert body["head"] == get(client, source=SENTENCE, heads=2, head=1)["head"]
    assert body["overview"] == get(client, source=SENTENCE, heads=2)["overview"]


def test_step_is_clamped_to_the_last_query(client):
    assert get(client, source=SENTENCE, step=100)["params"]["step"] == 3
    assert get(client, source="a b c d e f", target="x y", step=50)["params"]["step"] == 1
    assert "step=3" in get(client, source=SENTENCE, step=511)["share_path"]


def test_defaults_are_left_out_of_the_share_path(client):
    body = get(
        client,
        source="x y",
        score="scaled_dot",
        positional="true",
        temperature="1.0",
        hard="false",
        embedding="lexicon",
    )
    assert body["share_path"] == "/?source=x+y"
    assert get(client)["share_path"] == "/"  # the default source


# ---------------------------------------------------------------------------
# Exercise mode
# ---------------------------------------------------------------------------

E = math.e
A, B = E / (2 * E + 1), 1 / (2 * E + 1)  # 0.4223187983, 0.1553624035


def test_exercise_get_text_matrices_by_hand(client):
    body = get(
        client, q="1,0;0,1", k="1,0;0,1;1,1", v="1,2;3,4;5,6", score="dot", query_labels="q1,q2", key_labels="a,b,c"
    )
    check_view(body, 2, 3, 2, 1)
    assert body["mode"] == "exercise"
    assert body["tokens"] == {"queries": ["q1", "q2"], "keys": ["a", "b", "c"]}
    assert body["features"] is None and body["embeddings"] is None and body["unknown_tokens"] == []
    head = body["head"]
    # scores: q1 -> [1, 0, 1], q2 -> [0, 1, 1]
    assert head["scores"] == [[1, 0, 1], [0, 1, 1]]
    # weights: e/(2e+1), 1/(2e+1)
    np.testing.assert_allclose(head["weights"], [[A, B, A], [B, A, A]], rtol=1e-6)
    # outputs: (6a + 3b, 8a + 4b) = (3, 4); (b + 8a, 2b + 10a) = (3.5339127895, 4.5339127895)
    np.testing.assert_allclose(head["output"], [[3, 4], [3.5339127895, 4.5339127895]], rtol=1e-6)
    np.testing.assert_allclose(body["output"], head["output"], atol=0)
    assert body["params"]["q"] == [[1.0, 0.0], [0.0, 1.0]] and body["params"]["query_labels"] == ["q1", "q2"]


def test_exercise_default_labels_and_spaces(client):
    body = get(client, q="1 0; 0 1", k="1 0\n0 1", v="5;7")
    assert body["tokens"] == {"queries": ["q1", "q2"], "keys": ["k1", "k2"]}
    assert body["params"]["k"] == [[1.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize("d_v", [1, 3])
def test_exercise_post_values_wider_or_narrower(client, d_v):
    v = [[float(j * d_v + c) for c in range(d_v)] for j in range(3)]
    body = post(client, {"q": [[1, 0], [0, 1]], "k": [[1, 0], [0, 1], [1, 1]], "v": v, "score": "dot"})
    check_view(body, 2, 3, 2, 1, d_v=d_v)
    expected = np.array([[A, B, A], [B, A, A]]) @ np.array(v)
    np.testing.assert_allclose(body["head"]["output"], expected, rtol=1e-6)
    assert np.array(body["output"]).shape == (2, d_v)


def test_exercise_scaled_dot_scores_are_scaled_and_before_temperature_and_mask(client):
    # q=[2,0]; keys [1,0], [0,1], [3,0]: q.k = [2, 0, 6]; / sqrt(2) = [1.4142136, 0, 4.2426407]
    # window=1 with one query: aligned with key 0, so key 2 is hidden; T=0.5:
    # weights over [1.4142136, 0] / 0.5: 1/(1+e^-2.8284271) = 0.9441928, 0.0558072, 0
    body = post(client, {"q": [[2, 0]], "k": [[1, 0], [0, 1], [3, 0]], "v": [[10], [0], [99]],
                         "score": "scaled_dot", "temperature": 0.5, "window": 1})  # fmt: skip
    head = body["head"]
    np.testing.assert_allclose(head["scores"], [[math.sqrt(2), 0, 3 * math.sqrt(2)]], rtol=1e-6)
    assert head["mask"] == [[True, True, False]]
    np.testing.assert_allclose(head["weights"], [[0.9441927808, 0.0558072192, 0]], rtol=1e-6)
    assert head["weights"][0][2] == 0
    np.testing.assert_allclose(head["output"], [[9.441927808]], rtol=1e-6)


def test_exercise_cosine_hard_causal(client):
    body = post(client, {"q": [[1, 0], [0, 2], [3, 3]], "k": [[2, 0], [0, 1], [0, 0]], "v": [[1], [2], [3]],
                         "score": "cosine", "hard": True, "causal": True})  # fmt: skip
    head = body["head"]
    # cosine: q1 -> [1, 0, 0]; q2 -> [0, 1, 0]; q3 -> [0.7071068, 0.7071068, 0] (zero key: 0)
    np.testing.assert_allclose(head["scores"], [[1, 0, 0], [0, 1, 0], [0.70710678, 0.70710678, 0]], atol=1e-6)
    np.testing.assert_array_equal(head["mask"], np.tril(np.ones((3, 3), bool)))
    # hard: q1 -> key 0; q2 -> key 1; q3: tie between keys 0 and 1 -> the first
    assert head["weights"] == [[1, 0, 0], [0, 1, 0], [1, 0, 0]]


# ---------------------------------------------------------------------------
# GET = POST, share links, precision
# ---------------------------------------------------------------------------

SETS = [
    {"source": SENTENCE},
    {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞", "hard": True, "step": 2},
    {"source": "the teacher gave the student a book", "heads": 4, "projection": "random", "score": "additive",
     "seed": 9, "temperature": 0.7, "window": 2, "positional": True},
    {"source": "我们在河边散步", "score": "general", "heads": 2, "causal": True, "stage": 2, "lang": "zh",
     "present": True},
    {"source": "a b c d", "embedding": "hash", "dim": 12, "heads": 4, "score": "cosine", "head": 3,
     "projection": "identity"},
    {"source": "the bank of the river", "model": "minilm", "layer": 2, "head": 7},
    {"q": [[1, 0], [0, 1]], "k": [[1, 0], [0, 1], [1, 1]], "v": [[1, 2, 3], [3, 4, 5], [5, 6, 7]], "score": "dot",
     "query_labels": ["q1", "q2"], "key_labels": ["a", "b", "c"]},
    {"q": [[0.1, -2.5e-3]], "k": [[1e-5, 3], [7, 1234567e-1]], "v": [[1], [2]], "temperature": 3.3, "hard": False},
]  # fmt: skip


def as_query(params):
    """GET form of a POST body: matrices as text, labels comma-separated, booleans as true/false."""
    query = {}
    for name, value in params.items():
        if name in ("q", "k", "v"):
            query[name] = ";".join(",".join(repr(float(x)) for x in row) for row in value)
        elif name.endswith("_labels"):
            query[name] = ",".join(value)
        elif isinstance(value, bool):
            query[name] = "true" if value else "false"
        else:
            query[name] = str(value)
    return query


@pytest.mark.parametrize("params", SETS, ids=range(len(SETS)))
def test_get_and_post_give_the_same_bytes(client, params):
    by_post = client.post("/api/attention", json=params)
    by_get = client.get("/api/attention", params=as_query(params))
    assert by_post.status_code == by_get.status_code == 200, (by_post.text, by_get.text)
    assert by_get.content == by_post.content


@pytest.mark.parametrize("params", SETS, ids=range(len(SETS)))
def test_share_path_round_trips(client, params):
    first = client.post("/api/attention", json=params)
    assert first.status_code == 200
    share_path = first.json()["share_path"]
    assert urlsplit(share_path).path == "/"
    again = client.get("/api/attention?" + urlsplit(share_path).query)
    assert again.status_code == 200, again.text
    assert again.content == first.content


@pytest.mark.parametrize(
    "query",
    [
        "",
        "source=walk+by+river+bank",
        "source=walk+by+river+bank&step=2&lang=zh&plane=embedding&attribution=norm",  # view state after the rest
        "source=the+cat&target=le+chat&heads=2&temperature=0.5&head=1&stage=3",
        "step=1&stage=2&q=1,0;0,1&k=1,0;0,1&v=1;2&key_labels=a,b",
        "lang=zh",  # view state alone
    ],
)
def test_the_share_path_and_the_query_written_at_once_are_those_written_apart(query):
    """A view's answer writes both links from one reading of the fields (compute.link_fields)."""
    from app.view.links import state_from_query

    state = state_from_query(query)
    assert state.share_path_and_query() == (state.share_path(), state.query_string(view=False))


@pytest.mark.parametrize("labels", [["a,b", "c"], [" padded ", "c"]])
def test_labels_either_round_trip_or_are_rejected(client, labels):
    """A label the link cannot carry faithfully must be refused; otherwise the link reproduces the view."""
    body = {"q": [[1]], "k": [[1], [2]], "v": [[1], [2]], "key_labels": labels}
    first = client.post("/api/attention", json=body)
    if first.status_code == 422:
        assert first.json()["message"].startswith("key_labels")
        return
    assert first.status_code == 200
    again = client.get("/api/attention?" + urlsplit(first.json()["share_path"]).query)
    assert again.status_code == 200, again.text
    assert again.content == first.content


def test_numbers_keep_six_significant_digits(client):
    # three equal scores: each weight 1/3; v = (1/7, 123456.789, 2.5e-7)
    v = [[1 / 7, 123456.789, 2.5e-7], [0, 0, 0], [0, 0, 0]]
    body = post(client, {"q": [[0]], "k": [[0], [0], [0]], "v": v})
    head = body["head"]
    np.testing.assert_allclose(head["weights"], [[1 / 3] * 3], rtol=1e-6, atol=0)
    np.testing.assert_allclose(head["v"][0], v[0], rtol=1e-6, atol=0)
    np.testing.assert_allclose(head["output"], [[1 / 21, 123456.789 / 3, 2.5e-7 / 3]], rtol=1e-6, atol=0)
    # sentence views too: the JSON matches a float64 recomputation of the weights
    sentence = get(client, source=SENTENCE, temperature=0.3)["head"]
    q, k = np.array(sentence["q"], dtype=np.float64), np.array(sentence["k"], dtype=np.float64)
    expected = softmax(q @ k.T / math.sqrt(q.shape[1]), np.ones((4, 4), bool), 0.3)
    np.testing.assert_allclose(sentence["weights"], expected, rtol=1e-6, atol=0)


def test_tiny_weights_keep_six_significant_digits(client):
    # q=[10,0], keys [10,0] and [0,0], dot: scores [100, 0]; weight of key 2 = e^-100 / (1 + e^-100) = 3.720076e-44
    body = post(client, {"q": [[10, 0]], "k": [[10, 0], [0, 0]], "v": [[1], [2]], "score": "dot"})
    weight = body["head"]["weights"][0][1]
    expected = math.exp(-100) / (1 + math.exp(-100))
    assert math.isclose(weight, expected, rel_tol=1e-6, abs_tol=0.0), f"got {weight!r}, expected {expected!r}"


# ---------------------------------------------------------------------------
# Errors: always 422, the message names the field and the limit
# ---------------------------------------------------------------------------

LONG_TOKENS = " ".join(["word"] * 129)
LONG_TEXT = "a" * 1001
ROWS_33 = ";".join(["1"] * 33)

GET_ERRORS = [
    ({"source": ""}, "source", "empty"),
    ({"source": "  \t "}, "source", "empty"),
    ({"source": LONG_TOKENS}, "source", "128"),
    ({"source": LONG_TEXT}, "source", "1000"),
    ({"source": "x", "target": LONG_TOKENS}, "target", "128"),
    ({"source": "x", "target": LONG_TEXT}, "target", "1000"),
    ({"source": "a\x01b"}, "source", "U+0001"),
    ({"source": "x", "target": "y\x7f"}, "target", "U+007F"),
    ({"source": "x", "score": "euclid"}, "score", "scaled_dot"),
    ({"source": "x", "model": "gpt"}, "model", "minilm"),
    ({"source": "x", "embedding": "word2vec"}, "embedding", "hash"),
    ({"source": "x", "projection": "learned"}, "projection", "random"),
    ({"source": "x", "heads": "9"}, "heads", "8"),
    ({"source": "x", "stage": "4"}, "stage", "3"),
    ({"source": "x", "lang": "fr"}, "lang", "zh"),
    ({"source": "x", "hard": "maybe"}, "hard", "true or false"),
    ({"source": "x", "embedding": "hash", "dim": "12", "heads": "8", "projection": "random"}, "heads", "28"),
    ({"source": "x", "embedding": "hash"}, "projection", "lexicon"),
    ({"source": "x", "target": "y", "heads": "5"}, "heads", "4"),
    ({"source": "x", "embedding": "hash", "dim": "1"}, "dim", "2"),
    ({"source": "x", "embedding": "hash", "dim": "65"}, "dim", "64"),
    ({"source": "x", "dim": "20"}, "dim", "embedding is hash"),
    ({"source": "x", "temperature": "0.01"}, "temperature", "0.05"),
    ({"source": "x", "temperature": "25"}, "temperature", "20"),
    ({"source": "x", "temperature": "nan"}, "temperature", "finite"),
    ({"source": "x", "temperature": "inf"}, "temperature", "finite"),
    ({"source": "x", "window": "-1"}, "window", "0"),
    ({"source": "x", "window": "129"}, "window", "128"),
    ({"source": "x", "seed": "-1"}, "seed", "0"),
    ({"source": "x", "seed": str(2**31)}, "seed", "2147483647"),
    ({"source": "x", "model": "minilm", "layer": "6"}, "layer", "0 to 5"),
    ({"source": "x", "layer": "1"}, "layer", "real models"),
    ({"source": "x", "step": "512"}, "step", "511"),
    ({"source": "x", "model": "minilm", "head": "12"}, "head", "12"),
    ({"source": "x", "heads": "2", "head": "2"}, "head", "(2)"),
    ({"source": "x", "bogus": "1"}, "bogus", "unknown parameter"),
    ({"source": "x", "target": "y", "causal": "true"}, "causal", "self-attention"),
    ({"source": "x", "model": "minilm", "target": "y"}, "target", "encoder–decoder"),
    ({"source": "x", "model": "minilm", "heads": "2"}, "heads", "self-attention or encoder–decoder"),
    ({"q": "1,0;0", "k": "1,0", "v": "1"}, "q", "columns"),
    ({"q": "nan", "k": "1", "v": "1"}, "q", "finite"),
    ({"q": "1", "k": "inf", "v": "1"}, "k", "finite"),
    ({"q": "1", "k": "1", "v": "1e400"}, "v", "finite"),
    ({"q": ROWS_33, "k": "1", "v": "1"}, "q", "32"),
    ({"q": ",".join(["1"] * 33), "k": ",".join(["1"] * 33), "v": "1"}, "q", "32"),
    ({"q": "2e6", "k": "1", "v": "1"}, "q", "1e+06"),
    ({"q": "1,a", "k": "1", "v": "1"}, "q", "number"),
    ({"q": "1,0", "k": "1,0,0", "v": "1"}, "k", "columns"),
    ({"q": "1", "k": "1;2", "v": "1"}, "v", "one value row per key"),
    ({"q": "1", "v": "1"}, "k", "q, k and v"),
    ({"q": "1", "k": "1"}, "v", "q, k and v"),
    ({"q": "1", "k": "1", "v": "1", "score": "additive"}, "score", "not available in the exercise"),
    ({"q": "1;2", "k": "1", "v": "1", "causal": "true"}, "causal", "as many"),
    ({"q": "1", "k": "1", "v": "1", "heads": "2"}, "heads", "self-attention"),
    ({"q": "1", "k": "1", "v": "1", "query_labels": "a,b"}, "query_labels", "one name per row"),
    ({"q": "1", "k": "1", "v": "1", "key_labels": "x" * 41}, "key_labels", "40"),
    ({"q": "1", "k": "1", "v": "1", "key_labels": "a\x02"}, "key_labels", "U+0002"),
]  # fmt: skip


def check_error(response, field, limit):
    assert response.status_code == 422, (response.status_code, response.text)
    body = response.json()
    message = body["message"]
    assert re.match(rf"{re.escape(field)}\b", message), message
    assert limit.lower() in message.lower(), message
    assert body["detail"][0]["field"] == field


@pytest.mark.parametrize("params, field, limit", GET_ERRORS, ids=[f"{i}-{e[1]}" for i, e in enumerate(GET_ERRORS)])
def test_get_errors(client, params, field, limit):
    check_error(client.get("/api/attention", params=params), field, limit)


POST_ERRORS = [
    ({"q": [[1]] * 33, "k": [[1]], "v": [[1]]}, "q", "32"),
    ({"q": [[1] * 33], "k": [[1] * 33], "v": [[1]]}, "q", "32"),
    ({"q": [[1, 2], [3]], "k": [[1, 2]], "v": [[1]]}, "q", "columns"),
    ({"q": [[1e7]], "k": [[1]], "v": [[1]]}, "q", "1e+06"),
    ({"q": [[1, 0]], "k": [[1]], "v": [[1]]}, "k", "columns"),
    ({"q": [[1]], "k": [[1], [2]], "v": [[1]]}, "v", "one value row per key"),
    ({"q": [[1]], "k": [[1]], "v": [["x"]]}, "v", "number"),
    ({"q": "1,0", "k": [[1]], "v": [[1]]}, "q", "list"),
    ({"q": [[1]], "k": [[1]], "v": [[1]], "key_labels": ["y" * 41]}, "key_labels", "40"),
    ({"q": [[1]], "k": [[1]], "v": [[1]], "temperature": None}, "temperature", "number"),
    ({"q": [[1]], "k": [[1]], "v": [[1]], "temperature": 20.5}, "temperature", "20"),
    ({"source": 123}, "source", "text"),
    ({"source": " "}, "source", "empty"),
    ({"source": "x", "bogus": 1}, "bogus", "unknown parameter"),
    ({"source": "x", "heads": 16}, "heads", "8"),
    ({"k": [[1]], "v": [[1]]}, "q", "q, k and v"),  # k and v without q must not silently become self-attention
]  # fmt: skip


@pytest.mark.parametrize("body, field, limit", POST_ERRORS, ids=[f"{i}-{e[1]}" for i, e in enumerate(POST_ERRORS)])
def test_post_errors(client, body, field, limit):
    check_error(client.post("/api/attention", json=body), field, limit)


@pytest.mark.parametrize(
    "raw, field",
    [
        (b'{"q": [[NaN]], "k": [[1]], "v": [[1]]}', "q"),
        (b'{"q": [[1]], "k": [[Infinity]], "v": [[1]]}', "k"),
        (b'{"q": [[1]], "k": [[1]], "v": [[1e400]]}', "v"),
        (b'{"q": [[1]], "k": [[1]], "v": [[1]], "temperature": NaN}', "temperature"),
    ],
)
def test_post_non_finite_numbers(client, raw, field):
    response = client.post("/api/attention", content=raw, headers={"content-type": "application/json"})
    check_error(response, field, "finite")


def test_malformed_json_is_a_422_about_the_body(client):
    response = client.post("/api/attention", content=b'{"q": [[1', headers={"content-type": "application/json"})
    assert response.status_code == 422
    message = response.json()["message"]
    assert message.startswith("body"), message  # not a character offset such as "9: JSON decode error"
    assert "JSON" in message


@settings(max_examples=examples(60), deadline=None)
@given(
    st.text(max_size=40),
    st.text(max_size=10),
    st.sampled_from(["source", "target", "heads", "window", "q", "temperature"]),
)
def test_never_a_500(client, source, value, name):
    response = client.get("/api/attention", params={"source": source, name: value})
    assert response.status_code in (200, 422), response.text
    if response.status_code == 422:
        assert response.json()["message"]


def test_server_stays_up_after_errors(client):
    for params, _, _ in GET_ERRORS[:10]:
        client.get("/api/attention", params=params)
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/api/attention", params={"source": SENTENCE}).status_code == 200


# ---------------------------------------------------------------------------
# OpenAPI and /docs
# ---------------------------------------------------------------------------


def test_openapi_describes_every_get_parameter(client):
    spec = client.get("/openapi.json").json()
    parameters = spec["paths"]["/api/attention"]["get"]["parameters"]
    assert {p["name"] for p in parameters} == set(State.model_fields)
    undocumented = [
        p["name"] for p in parameters if not (p.get("description") or p.get("schema", {}).get("description"))
    ]
    assert undocumented == []
    by_name = {p["name"]: p.get("description") or p["schema"]["description"] for p in parameters}
    assert "√d_k" in by_name["score"]
    assert "softmax" in by_name["temperature"].lower()
    assert "128" in by_name["source"] and "1000" in by_name["source"]
    assert "32" in by_name["q"]
    temperature = next(p for p in parameters if p["name"] == "temperature")["schema"]
    assert (temperature.get("minimum"), temperature.get("maximum")) == (0.05, 20)


def test_openapi_describes_the_post_body(client):
    spec = client.get("/openapi.json").json()
    body = spec["paths"]["/api/attention"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(body["properties"]) == set(State.model_fields)
    assert [name for name, p in body["properties"].items() if not p.get("description")] == []


def test_openapi_describes_every_response_field(client):
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    ref = spec["paths"]["/api/attention"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    response = schemas[ref.rsplit("/", 1)[1]]
    # every field the API sends is in the schema
    sent = client.get("/api/attention", params={"source": SENTENCE}).json()
    assert set(sent) <= set(response["properties"])
    assert set(sent["head"]) == set(schemas["Head"]["properties"])
    assert set(sent["arithmetic"]) <= set(schemas["Arithmetic"]["properties"])
    undocumented = [
        f"{name}.{field}"
        for name in ("Answer", "Head", "Tokens", "Embeddings", "ErrorResponse")
        for field, prop in schemas[name]["properties"].items()
        if not prop.get("description")
    ]
    assert undocumented == []
    assert "√d_k" in schemas["Head"]["properties"]["scores"]["description"]
    assert "422" in spec["paths"]["/api/attention"]["get"]["responses"]


def test_docs_work_offline(client):
    response = client.get("/docs")
    assert response.status_code == 200
    assert "text/html" in response.headers["content-type"]
    html = response.text
    assert "swagger" in html.lower()
    assert re.search(r"https?://", html) is None
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets
    for asset in assets:
        assert asset.startswith("/") and not asset.startswith("//"), asset
        assert client.get(asset).status_code == 200, asset
