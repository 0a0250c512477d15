"""Attention rollout (Abnar & Zuidema 2020) and per-head statistics, by hand and as properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.engine.attention.summaries import HEAD_STATISTICS, attention_rollout, head_statistics
from app.engine.models import registry, words
from tests.support.examples import examples


@st.composite
def stacks(draw):
    shape = (draw(st.integers(1, 4)), draw(st.integers(1, 3)), *(2 * [draw(st.integers(1, 9))]))
    logits = draw(arrays(np.float64, shape, elements=st.floats(-10, 10)))
    e = np.exp(logits)
    return e / e.sum(-1, keepdims=True)


@given(stacks(), st.floats(0.0, 1.0))
@settings(max_examples=examples(200), deadline=None)
def test_rollout_rows_sum_to_one(weights, residual):
    rollout = attention_rollout(weights, residual)
    assert rollout.shape == (weights.shape[0], weights.shape[-1], weights.shape[-1])
    assert np.all(rollout >= -1e-12)
    np.testing.assert_allclose(rollout.sum(-1), 1.0, atol=1e-9)


def test_rollout_by_hand():
    # one head, two tokens; layer 1 looks at token 1, layer 2 at token 0
    w = np.array([[[[0.0, 1.0], [0.0, 1.0]]], [[[1.0, 0.0], [1.0, 0.0]]]])
    a1 = 0.5 * np.eye(2) + 0.5 * w[0, 0]  # [[.5, .5], [0, 1]]
    a2 = 0.5 * np.eye(2) + 0.5 * w[1, 0]  # [[1, 0], [.5, .5]]
    rollout = attention_rollout(w)
    np.testing.assert_allclose(rollout[0], a1)
    np.testing.assert_allclose(rollout[1], a2 @ a1)  # [[.5, .5], [.25, .75]]
    np.testing.assert_allclose(rollout[1], [[0.5, 0.5], [0.25, 0.75]])


def test_rollout_averages_heads_and_residual_one_is_identity():
    w = np.array([[[[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]]])  # two heads that disagree
    np.testing.assert_allclose(attention_rollout(w, residual=0.0)[0], [[0.5, 0.5], [0.5, 0.5]])
    np.testing.assert_allclose(attention_rollout(w, residual=1.0)[0], np.eye(2))
    with pytest.raises(ValueError):
        attention_rollout(w, residual=1.5)


def test_statistics_by_hand():
    a = np.array([[0.7, 0.2, 0.1], [0.5, 0.25, 0.25], [0.0, 0.0, 1.0]])
    stats = head_statistics(a[None, None], punctuation=np.array([False, False, True]))
    entropy_rows = [-(0.7 * math.log(0.7) + 0.2 * math.log(0.2) + 0.1 * math.log(0.1)), 1.0397207708399179, 0.0]
    assert stats["entropy"][0, 0] == pytest.approx(np.mean(entropy_rows))
    assert stats["first_token"][0, 0] == pytest.approx((0.7 + 0.5 + 0.0) / 3)
    assert stats["last_token"][0, 0] == pytest.approx((0.1 + 0.25 + 1.0) / 3)
    assert stats["self"][0, 0] == pytest.approx((0.7 + 0.25 + 1.0) / 3)
    assert stats["previous"][0, 0] == pytest.approx((0.5 + 0.0) / 2)
    assert stats["next"][0, 0] == pytest.approx((0.2 + 0.25) / 2)
    assert stats["punctuation"][0, 0] == pytest.approx((0.1 + 0.25 + 1.0) / 3)
    assert set(stats) == set(HEAD_STATISTICS)


def test_uniform_attention_has_entropy_ln_n_and_one_token_has_zero():
    n = 7
    stats = head_statistics(np.full((1, 1, n, n), 1 / n))
    assert stats["entropy"][0, 0] == pytest.approx(math.log(n))
    assert stats["punctuation"][0, 0] == 0.0
    one = head_statistics(np.ones((2, 3, 1, 1)))
    assert np.all(one["entropy"] == 0) and np.all(one["previous"] == 0) and np.all(one["self"] == 1)


@given(stacks())
@settings(max_examples=examples(100), deadline=None)
def test_statistics_are_within_their_bounds(weights):
    n = weights.shape[-1]
    stats = head_statistics(weights, punctuation=np.arange(n) % 2 == 0)
    for name in HEAD_STATISTICS:
        assert stats[name].shape == weights.shape[:2]
    assert np.all(stats["entropy"] >= -1e-12) and np.all(stats["entropy"] <= math.log(n) + 1e-9)
    for name in HEAD_STATISTICS[1:]:
        assert np.all(stats[name] >= -1e-12) and np.all(stats[name] <= 1 + 1e-9)


def test_on_a_real_run_in_words():
    model = registry.get_model("minilm")
    run = model.run("The cat sat on the mat.")
    stats = head_statistics(run.weights, words.punctuation_mask(run))
    assert stats["entropy"].shape == (6, 12)
    units = words.word_units(run)
    merged = words.merge_attention(run.weights, units)
    rollout = attention_rollout(merged)
    assert rollout.shape == (6, units.n_units, units.n_units)
    np.testing.assert_allclose(rollout.sum(-1), 1.0, atol=1e-6)
    word_stats = head_statistics(merged, words.unit_punctuation_mask(units))
    assert word_stats["punctuation"].max() > 0  # the full stop
