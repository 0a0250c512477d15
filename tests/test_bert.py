"""The shared numpy encoder: splitting its work over two cores changes no number."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from app.engine.models import bert, encoder, registry, row_process
from tests.support.encoder import errors_of_a_pass

LONG = "Attention lets every token look at every other token. 注意力 机制 让 每个 词 都 能 看到 其他 词。 " * 6


@pytest.mark.parametrize("name", ["minilm", "e5"])
def test_two_cores_give_exactly_the_numbers_of_one(name, monkeypatch):
    """Everything but the matrix products' own sums: the rows each core takes, the meeting once a layer, GELU's
    blocks, LayerNorm, the residuals, e5's rounding. A product split by rows is exact only with some CPUs' kernels
    (bounded in the test below), so here each row's products are computed alone (the dense layers, and the
    attention's scores and weighted sum for each query): the same sums however the rows are split, on any CPU."""
    model = registry.get_model(name)
    ids = model.tokenize(LONG).ids
    assert len(ids) == 128 and len(bert.row_halves(128, big_enough=True)) == 2  # the rows are split

    def row_by_row(x, w, b, round_inputs):
        """bert.dense with each row's product alone: a stack of n (1, d_in) @ (d_in, d_out) products, one BLAS call
        each. The 8-bit rounding goes block by block within a row, so rounding all the rows at once rounds each row
        as alone."""
        if round_inputs:
            x = bert.round_to_8_bits(x)  # (n, d_in)
        rows = np.matmul(x[:, None, :], w)[:, 0, :]  # (n, 1, d_in) @ (d_in, d_out) -> (n, d_out)
        rows += b
        return rows

    stages = bert.attention_stages

    def query_by_query(q, k, v, scores, weights, context):
        """bert.attention_stages for each query alone: q (H, m, dh) as m stacks of (H, 1, dh)."""
        for i in range(q.shape[1]):
            one = slice(i, i + 1)
            stages(q[:, one], k, v, scores[:, one], weights[:, one], context[:, one])

    monkeypatch.setattr(row_process, "use_process", False)  # the helper process has its own test (test_row_process)
    monkeypatch.setattr(encoder, "dense", row_by_row)
    monkeypatch.setattr(encoder, "attention_stages", query_by_query)
    monkeypatch.setattr(bert, "split_work", True)
    split = bert.encode(model.params, ids)
    monkeypatch.setattr(bert, "split_work", False)
    whole = bert.encode(model.params, ids)
    for key in ("q", "k", "v", "scores", "weights", "context", "hidden"):
        assert np.array_equal(getattr(split, key), getattr(whole, key)), key


@pytest.mark.parametrize("where", ["this thread", "the helper thread"])
def test_an_error_in_either_half_is_raised_and_never_hangs_the_other(where, monkeypatch):
    """Each half waits for the other once a layer: a half that fails must not leave the other waiting forever."""
    model = registry.get_model("minilm")
    ids = model.tokenize(LONG).ids
    feed_forward = bert.feed_forward
    on_helper = where == "the helper thread"

    def failing_on_one_side(x, lp, cfg):
        """The first layer's MLP fails on one side, after the first meeting: the other side then waits at the next."""
        if threading.current_thread().name.startswith("bert-rows") == on_helper:
            raise FloatingPointError(f"failed on {where}")
        return feed_forward(x, lp, cfg)

    monkeypatch.setattr(bert, "split_work", True)
    monkeypatch.setattr(row_process, "use_process", False)  # the helper thread (the process: test_row_process)
    monkeypatch.setattr(encoder, "feed_forward", failing_on_one_side)
    raised = errors_of_a_pass(model.params, ids, FloatingPointError)
    assert len(raised) == 1 and where in str(raised[0]), raised
    monkeypatch.setattr(encoder, "feed_forward", feed_forward)
    again = bert.encode(model.params, ids)  # the helper thread is free again, the next sentence works
    assert np.isfinite(again.hidden).all()


def test_gelu_in_place_and_a_forked_worker_gets_its_own_helper_thread(monkeypatch):
    x = np.random.default_rng(0).standard_normal((64, 1536)).astype(np.float32)
    expected = bert.gelu(x)
    bert.gelu(x, out=x)
    assert np.array_equal(x, expected)
    pool = bert._helper_thread()
    monkeypatch.setattr(bert, "_helper", (os.getpid() + 1, pool))  # as if made before a fork
    fresh = bert._helper_thread()
    assert fresh is not pool and bert._helper[0] == os.getpid()
    fresh.shutdown()  # monkeypatch puts the process's own helper back


@pytest.mark.parametrize("n", [24, 37, 100, 128, 250])
def test_a_product_split_by_rows_is_the_whole_product_to_float32_rounding(n):
    """Split where the encoder splits (a multiple of 12 rows), each row's sums are those of the whole product with
    the kernels this was checked on (bert.ROWS_TOGETHER); on any CPU they differ by no more than two orders of
    summing can: each of K + 1 float32 sums (K products, then the bias) within gamma_(K+1) * sum |terms| of the
    exact value, gamma_m = m u / (1 - m u), u = 2^-24 (Higham, Accuracy and Stability, 3.1)."""
    rng = np.random.default_rng(n)
    d, f = 384, 1536
    x = rng.standard_normal((n, d)).astype(np.float32)  # (n, d)
    w = rng.standard_normal((d, f)).astype(np.float32)  # (d, f)
    b = rng.standard_normal(f).astype(np.float32)  # (f,)
    halves = bert.row_halves(n, big_enough=True)
    assert len(halves) == 2  # the split happens
    split = np.concatenate([bert.dense(x[start:stop], w, b, round_inputs=False) for start, stop in halves])
    assert np.array_equal(split, np.concatenate([bert.dense(x[a:z], w, b, False) for a, z in halves])), "same bytes"
    whole = bert.dense(x, w, b, round_inputs=False)
    u = 2.0**-24
    gamma = (d + 1) * u / (1 - (d + 1) * u)
    magnitude = np.abs(x.astype(np.float64)) @ np.abs(w.astype(np.float64)) + np.abs(b)  # (n, f)
    assert np.all(np.abs(split.astype(np.float64) - whole) <= 2 * gamma * magnitude)
