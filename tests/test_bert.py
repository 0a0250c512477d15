"""The shared numpy encoder: splitting its work over two cores changes no number."""

from __future__ import annotations

import os

import numpy as np
import pytest

from app.engine.models import bert, registry

LONG = "Attention lets every token look at every other token. 注意力 机制 让 每个 词 都 能 看到 其他 词。 " * 6


@pytest.mark.parametrize("name", ["minilm", "e5"])
def test_two_cores_give_exactly_the_numbers_of_one(name, monkeypatch):
    """Everything but the products' own sums: the rows and heads each core takes, GELU's blocks, LayerNorm, the
    residuals, e5's rounding. A product split by rows is exact only with some CPUs' kernels (bounded in the test
    below), so here each row's product is computed alone, the same sums however the rows are split, on any CPU."""
    model = registry.get_model(name)
    ids = model.tokenize(LONG).ids
    cfg = model.params.config
    assert len(ids) == 128 and 128 * cfg.d_model * cfg.d_ff >= bert.SPLIT_MIN_MULTIPLY_ADDS  # the rows are split
    assert cfg.n_heads * 128 * 128 * cfg.d_head >= bert.SPLIT_MIN_MULTIPLY_ADDS  # and the heads

    def row_by_row(x, w, b, round_inputs, out=None):
        """bert.dense with each row's product alone: a stack of n (1, d_in) @ (d_in, d_out) products, one BLAS call
        each (as many dense calls of one row each, without their Python overhead). The 8-bit rounding goes block by
        block within a row, so rounding all the rows at once rounds each row as alone."""
        if round_inputs:
            x = bert.round_to_8_bits(x)  # (n, d_in)
        rows = np.matmul(x[:, None, :], w)[:, 0, :]  # (n, 1, d_in) @ (d_in, d_out) -> (n, d_out)
        rows += b
        if out is None:
            return rows
        out[...] = rows
        return out

    monkeypatch.setattr(bert, "dense", row_by_row)
    monkeypatch.setattr(bert, "split_work", True)
    split = bert.encode(model.params, ids)
    monkeypatch.setattr(bert, "split_work", False)
    whole = bert.encode(model.params, ids)
    for key in ("q", "k", "v", "scores", "weights", "context", "hidden"):
        assert np.array_equal(getattr(split, key), getattr(whole, key)), key


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
def test_a_product_split_by_rows_is_the_whole_product_to_float32_rounding(n, monkeypatch):
    """Split at a multiple of 12 rows, each row's sums are those of the whole product with the kernels this was
    checked on (bert.PRODUCT_ROWS_TOGETHER); on any CPU they differ by no more than two orders of summing can:
    each of K + 1 float32 sums (K products, then the bias) within gamma_(K+1) * sum |terms| of the exact value,
    gamma_m = m u / (1 - m u), u = 2^-24 (Higham, Accuracy and Stability, 3.1)."""
    rng = np.random.default_rng(n)
    d, f = 384, 1536
    x = rng.standard_normal((n, d)).astype(np.float32)  # (n, d)
    w = rng.standard_normal((d, f)).astype(np.float32)  # (d, f)
    b = rng.standard_normal(f).astype(np.float32)  # (f,)
    assert n * d * f >= bert.SPLIT_MIN_MULTIPLY_ADDS  # the split happens
    monkeypatch.setattr(bert, "split_work", True)
    split = bert.linear(x, w, b, round_inputs=False)
    assert np.array_equal(split, bert.linear(x, w, b, round_inputs=False)), "the same call, the same bytes"
    monkeypatch.setattr(bert, "split_work", False)
    whole = bert.linear(x, w, b, round_inputs=False)
    u = 2.0**-24
    gamma = (d + 1) * u / (1 - (d + 1) * u)
    magnitude = np.abs(x.astype(np.float64)) @ np.abs(w.astype(np.float64)) + np.abs(b)  # (n, f)
    assert np.all(np.abs(split.astype(np.float64) - whole) <= 2 * gamma * magnitude)
