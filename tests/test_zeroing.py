"""Value zeroing (app/engine/models/zeroing.py) against the float64 reference written from the paper
(tools/reference/value_zeroing.py: the block written out again and run once per zeroed token), on MiniLM
sentences drawn at random and on e5; and the view computes it only when a view asks for it.

The tolerance, from the arithmetic: the engine's float32 maps differ from the exact ones by their own float32
error, measured here as |float32 - the same code in float64| (float64 is 2^29 times finer). Each layer output
row carries a relative error of about 1e-6 (a dozen chained products of up to 1536 terms, u = 6e-8: sqrt(1536) u
= 2.3e-6 each, partly cancelling); the distances are taken in float64 from those rows, and the zeroed copies
and the original share the same input and its error, so the normalised maps keep about that relative error:
1e-6 of numbers below 1. So |float32 - reference| <= |float32 - float64| + |float64 - reference|, the last a
float64 difference (the engine's erf approximation's, up to 1e-6 through 12 layers), and the goal, 1e-5, holds
with a margin of about five.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.models import bert, encoder, registry, zeroing
from app.view import models
from tools.reference import value_zeroing as reference

GOAL = 1e-5  # each measure within 1e-5 of its float64 reference
# The engine in float64 against the reference in float64: the same formula, but the engine's GELU takes erf from
# Abramowitz & Stegun 7.1.26 (within 1.5e-7 of it, app/engine/models/encoder.py) where the reference calls math.erf.
FLOAT64_AGREEMENT = 3e-6  # measured: 2.7e-7 through MiniLM's 6 layers, 1.1e-6 through e5's 12

WORDS = (
    "the", "a", "river", "bank", "money", "tom", "chased", "jerry", "cat", "sat", "on", "mat", "she", "said",
    "that", "he", "would", "go", "home", "after", "school", "because", "it", "was", "raining", ",", ".", "!", "?",
    "and", "but", "I", "you", "we", "they", "quickly", "slowly", "green", "ideas", "sleep", "furiously",
)  # fmt: skip


class Float64Rows:
    """A word-embedding table, its rows handed out as float64."""

    def __init__(self, table: bert.EmbeddingRows):
        self.table, self.shape = table, table.shape

    def rows(self, ids: np.ndarray) -> np.ndarray:
        return self.table.rows(ids).astype(np.float64)


def in_float64(p: bert.BertParams) -> bert.BertParams:
    """The same weights, upcast (exactly) to float64."""
    layers = [{f.name: getattr(lp, f.name).astype(np.float64) for f in dataclasses.fields(lp)} for lp in p.layers]
    return dataclasses.replace(
        p,
        word_emb=Float64Rows(p.word_emb),
        **{name: getattr(p, name).astype(np.float64) for name in ("pos_emb", "type_emb", "emb_ln_g", "emb_ln_b")},
        layers=tuple(bert.LayerParams(**layer) for layer in layers),
        mapped_from=None,
    )


def unrounded(p: bert.BertParams) -> bert.BertParams:
    return dataclasses.replace(p, config=dataclasses.replace(p.config, round_inputs=False))


def engine_maps(p: bert.BertParams, ids: list[int]) -> np.ndarray:
    """The engine's maps (L, n, n) for a run of ``ids`` through ``p`` (float64 weights: every array float64)."""
    dtype = p.layers[0].w_qkv.dtype
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(encoder, "DTYPE", dtype)  # the arrays encode keeps every intermediate in
        run = bert.encode(p, ids)
    return zeroing.value_zeroing(p, run.hidden, run.weights, run.v)


def assert_matches_reference(p: bert.BertParams, ids: list[int], found: dict | None = None) -> None:
    """``found``: the reference's answer for ``p`` and ``ids``, when it has been computed already."""
    found = reference.value_zeroing(p, ids) if found is None else found
    ours, exact = engine_maps(p, ids), engine_maps(in_float64(p), ids)
    assert np.abs(exact - found["maps"]).max() <= FLOAT64_AGREEMENT
    float32_error = np.abs(ours - exact).max()
    difference = np.abs(ours - found["maps"]).max()
    assert difference <= float32_error + FLOAT64_AGREEMENT, (difference, float32_error)
    assert difference <= GOAL, difference
    rollout = zeroing.zeroing_rollout(ours)
    assert np.abs(rollout - found["rollout"]).max() <= GOAL


@pytest.fixture(scope="module")
def minilm():
    return registry.default().get_model("minilm")


@pytest.fixture(scope="module")
def e5():
    return registry.default().get_model("e5")


@pytest.fixture(scope="module")
def e5_reference(e5):
    """The reference's answer for e5, with its 8-bit rounding or without, on a text: each computed once in the
    module (it runs every layer again for each token: about a second a sentence), for the tests below share one."""

    @functools.cache
    def compute(text: str, rounded: bool) -> dict:
        return reference.value_zeroing(e5.params if rounded else unrounded(e5.params), e5.tokenize(text).ids)

    return compute


@settings(max_examples=3)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=14))
def test_minilm_matches_the_reference_on_random_sentences(minilm, words):
    assert_matches_reference(minilm.params, minilm.tokenize(" ".join(words)).ids)


@pytest.mark.parametrize("text", ["汤姆追逐杰瑞", "walk by the river bank"])
def test_e5_arithmetic_matches_the_reference(e5, e5_reference, text):
    """e5's arithmetic without its 8-bit rounding of every product's input (both sides alike): see below."""
    assert_matches_reference(unrounded(e5.params), e5.tokenize(text).ids, e5_reference(text, rounded=False))


def test_e5_with_its_rounding_is_within_the_rounding_flips(e5, e5_reference):
    """With e5's 8-bit rounding, float32 and float64 round a few inputs to neighbouring codes (a flip moves an
    input by a whole 1/127 step of its block's largest number, where float32's error is 1e-7 of it): value zeroing
    compares outputs that differ little, so the flips show, and in earlier layers move the inputs of later ones.
    Measured here: the float32 maps are within about 1e-3 (median) of the float64 reference's. The bound: both
    lie within what rounding itself moves the map (rounded against unrounded reference, r), so within 2 r of
    each other, and the typical difference stays below the typical r."""
    text = "汤姆追逐杰瑞"  # one of the sentences above: its reference without rounding is theirs
    rounded, plain = e5_reference(text, rounded=True)["maps"], e5_reference(text, rounded=False)
    ids = e5.tokenize(text).ids
    r = np.abs(rounded - plain["maps"])
    difference = np.abs(engine_maps(e5.params, ids) - rounded)
    assert difference.max() <= 2 * r.max(), (difference.max(), r.max())
    assert np.median(difference) <= np.median(r), (np.median(difference), np.median(r))


def test_rows_sum_to_one_and_the_unzeroed_layer_is_the_run(minilm):
    run = minilm.run("I put money in the bank.")
    maps = zeroing.value_zeroing(minilm.params, run.hidden, run.weights, run.v)  # (L, n, n)
    n = len(run.ids)
    assert maps.shape == (6, n, n)
    assert np.allclose(maps.sum(axis=-1), 1.0, atol=1e-12)
    assert (maps >= 0).all()
    again = zeroing.after_attention(  # the rest of the block on the run's own heads' outputs: the run's next layer
        run.hidden[2], zeroing.heads_side_by_side(run.context[2][None]), minilm.params.layers[2], minilm.params.config
    )
    assert np.array_equal(again, run.hidden[3])


def test_a_token_nobody_looks_at_changes_nothing():
    """Zeroing a value with weight 0 everywhere leaves every output as it was: its column is 0."""
    cfg = bert.BertConfig(1, 2, 64, 128, 10, 16, 1, 1e-12)
    rng = np.random.default_rng(0)
    lp = bert.LayerParams(
        *(rng.normal(size=shape).astype(np.float32) * 0.1 for shape in [(64, 192), (192,), (64, 64), (64,)]),
        np.ones(64, np.float32), np.zeros(64, np.float32),
        *(rng.normal(size=shape).astype(np.float32) * 0.1 for shape in [(64, 128), (128,), (128, 64), (64,)]),
        np.ones(64, np.float32), np.zeros(64, np.float32),
    )  # fmt: skip
    params = bert.BertParams(cfg, bert.DenseRows(np.zeros((10, 64), np.float32)), *(None,) * 4, layers=(lp,))
    x = rng.normal(size=(4, 64)).astype(np.float32)
    weights = np.full((2, 4, 4), 1 / 3, np.float32)
    weights[:, :, 2] = 0.0  # nobody looks at token 2
    v = rng.normal(size=(2, 4, 32)).astype(np.float32)
    found = zeroing.layer_zeroing(x, weights, v, lp, params)
    assert (found[:, 2] == 0).all()
    assert (found[:, [0, 1, 3]] > 0).all()


def test_the_rollout_adds_no_residual():
    maps = np.array([[[0.5, 0.5], [0.0, 1.0]], [[1.0, 0.0], [0.5, 0.5]]])  # (2, 2, 2)
    expected = np.stack([maps[0], maps[1] @ maps[0]])
    assert np.allclose(zeroing.zeroing_rollout(maps), expected, atol=1e-15)


def test_the_view_caches_it_beside_the_run_and_no_other_view_computes_it(monkeypatch):
    from app.view.compute import compute_view
    from app.view.state import State

    calls = []
    real = models.value_zeroing

    def counting(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(models, "value_zeroing", counting)
    models.forget_runs()
    for fields in ({}, {"layer": 3, "head": 2}, {"units": "words"}):
        compute_view(State(source="walk by the river", model="minilm", **fields))
    assert calls == []  # model views that did not ask
    first = models.zeroing("minilm", "walk by the river")
    second = models.zeroing("minilm", "walk by the river")
    assert len(calls) == 1 and first is second
    assert first.shape == (6, 6, 6) and not first.flags.writeable
    models.forget_runs()


# --------------------------------------------------------------------------- the view and its JSON twin


def test_the_answer_carries_the_layer_in_focus_and_the_rollout_up_to_it(client):
    body = client.get("/api/attention?source=walk+by+the+river&model=minilm&attribution=zeroing&layer=4").json()
    maps = models.zeroing("minilm", "walk by the river")  # (6, 6, 6) over every piece, as the view shows them
    assert np.allclose(body["value_zeroing"]["layer_map"], maps[4], atol=1e-15)
    assert np.allclose(body["value_zeroing"]["rollout"], zeroing.zeroing_rollout(maps)[4], atol=1e-12)
    plain = client.get("/api/attention?source=walk+by+the+river&model=minilm&layer=4").json()
    assert plain["value_zeroing"] is None
    assert plain["head"] == body["head"]  # the head's own numbers are as they were


def test_hidden_specials_share_each_row_among_the_shown_tokens(client):
    body = client.get("/api/attention?source=walk+by+the+river&model=minilm&attribution=zeroing&hide_special=true")
    shown = np.array(body.json()["value_zeroing"]["layer_map"])  # (4, 4): [CLS] and [SEP] left out
    every = models.zeroing("minilm", "walk by the river")[0][1:-1, 1:-1]
    assert np.allclose(shown, every / every.sum(axis=1, keepdims=True), atol=1e-12)


@pytest.mark.parametrize("lang, words", [("en", "zeroing is not available in self-attention"), ("zh", "zeroing 在")])
def test_other_modes_are_refused_naming_the_field(client, lang, words):
    response = client.get(f"/api/attention?source=walk+by+the+river&attribution=zeroing&lang={lang}")
    assert response.status_code == 422
    assert response.json()["detail"][0]["field"] == "attribution"
    assert words in response.json()["message"]
    translator = client.get("/api/attention?source=Tom+chase+Jerry&model=rnnsearch&attribution=zeroing")
    assert translator.status_code == 422 and translator.json()["detail"][0]["field"] == "attribution"


@pytest.mark.parametrize("lang, words", [("en", "at most 64 word pieces"), ("zh", "最多算 64 个词片")])
def test_a_long_sentence_is_refused_zeroing_naming_the_limit(client, lang, words):
    """Its cost grows with the square of the pieces: a 128-piece e5 sentence would take ~16 s of CPU."""
    source = "+".join(["river"] * 70)
    response = client.get(f"/api/attention?source={source}&model=minilm&attribution=zeroing&lang={lang}")
    assert response.status_code == 422
    assert response.json()["detail"][0]["field"] == "attribution"
    assert words in response.json()["message"]
    assert client.get(f"/api/attention?source={source}&model=minilm").status_code == 200  # the weights are fine
    page = client.get(f"/?source={source}&model=minilm&attribution=zeroing")  # the page reads it leniently
    assert page.status_code == 200
