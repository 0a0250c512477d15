"""The shared numpy encoder: splitting element-wise work over two cores changes no number."""

from __future__ import annotations

import os

import numpy as np
import pytest

from app.engine.models import bert, registry

LONG = "Attention lets every token look at every other token. 注意力 机制 让 每个 词 都 能 看到 其他 词。 " * 6


@pytest.mark.parametrize("name", ["minilm", "e5"])
def test_two_cores_give_exactly_the_numbers_of_one(name, monkeypatch):
    model = registry.get_model(name)
    ids = model.tokenize(LONG).ids
    assert len(ids) == 128 and 128 * model.params.config.d_ff >= bert.SPLIT_MIN_ELEMENTS  # the split happens
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
def test_a_product_split_by_rows_gives_exactly_the_whole_product(n, monkeypatch):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, 384)).astype(np.float32)  # (n, d)
    w = rng.standard_normal((384, 1536)).astype(np.float32)  # (d, f)
    b = rng.standard_normal(1536).astype(np.float32)  # (f,)
    assert n * 384 * 1536 >= bert.SPLIT_MIN_MULTIPLY_ADDS  # the split happens
    monkeypatch.setattr(bert, "split_work", True)
    split = bert.linear(x, w, b, round_inputs=False)
    monkeypatch.setattr(bert, "split_work", False)
    assert np.array_equal(split, bert.linear(x, w, b, round_inputs=False))
