"""Which keys each query may see: global, local window (with its alignment), causal."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.attention.masks import aligned_positions, attention_mask
from tests.support.examples import examples

PROPERTY = settings(max_examples=examples(200), deadline=None)


def test_global_mask_sees_everything():
    np.testing.assert_array_equal(attention_mask(2, 3), np.ones((2, 3), bool))


def test_self_attention_aligns_each_query_with_itself():
    np.testing.assert_array_equal(aligned_positions(5, 5), [0, 1, 2, 3, 4])


@pytest.mark.parametrize(
    "m, n, expected",
    [
        # round-half-up of i (n-1)/(m-1)
        (3, 5, [0, 2, 4]),  # i*4/2 = 0, 2, 4
        (4, 3, [0, 1, 1, 2]),  # i*2/3 = 0, 0.667 -> 1, 1.333 -> 1, 2
        (3, 2, [0, 1, 1]),  # i*1/2 = 0, 0.5 -> 1 (half up, not to even), 1
        (5, 2, [0, 0, 1, 1, 1]),  # i/4 = 0, 0.25 -> 0, 0.5 -> 1, 0.75 -> 1, 1
        (5, 3, [0, 1, 1, 2, 2]),  # i*2/4 = 0, 0.5 -> 1, 1, 1.5 -> 2, 2
        (2, 7, [0, 6]),  # the first and the last
        (1, 4, [0]),  # a single query is aligned with key 0
    ],
)
def test_cross_attention_alignment_by_hand(m, n, expected):
    np.testing.assert_array_equal(aligned_positions(m, n), expected)


def test_local_window_self_attention():
    # window 1 over 4 tokens: i sees i-1, i, i+1
    expected = np.array([
        [1, 1, 0, 0],
        [1, 1, 1, 0],
        [0, 1, 1, 1],
        [0, 0, 1, 1],
    ], dtype=bool)  # fmt: skip
    np.testing.assert_array_equal(attention_mask(4, 4, window=1), expected)
    # window 0: only the diagonal
    np.testing.assert_array_equal(attention_mask(3, 3, window=0), np.eye(3, dtype=bool))


def test_local_window_cross_attention():
    # 3 queries over 5 keys: centres 0, 2, 4; window 1
    expected = np.array([
        [1, 1, 0, 0, 0],
        [0, 1, 1, 1, 0],
        [0, 0, 0, 1, 1],
    ], dtype=bool)  # fmt: skip
    np.testing.assert_array_equal(attention_mask(3, 5, window=1), expected)
    # 4 queries over 3 keys: centres 0, 1, 1, 2; window 0 picks exactly that key
    np.testing.assert_array_equal(attention_mask(4, 3, window=0), np.eye(3, dtype=bool)[[0, 1, 1, 2]])


def test_causal_mask_is_the_lower_triangle():
    np.testing.assert_array_equal(attention_mask(3, 3, causal=True), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])


def test_causal_and_window_combine():
    # window 1 and causal: i sees i-1 and i
    expected = [[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]
    np.testing.assert_array_equal(attention_mask(4, 4, window=1, causal=True), expected)


def test_causal_needs_self_attention():
    with pytest.raises(ValueError):
        attention_mask(2, 3, causal=True)


@PROPERTY
@given(st.integers(1, 40), st.integers(1, 40), st.one_of(st.none(), st.integers(0, 50)), st.booleans())
def test_every_row_sees_a_key_and_the_window_is_honoured(m, n, window, causal):
    if causal:
        n = m
    mask = attention_mask(m, n, window=window, causal=causal)
    assert mask.shape == (m, n) and mask.dtype == bool
    assert mask.any(axis=1).all()
    centres = aligned_positions(m, n)
    for i in range(m):
        for j in range(n):
            allowed = (window is None or abs(j - centres[i]) <= window) and (not causal or j <= i)
            assert mask[i, j] == allowed, (i, j)


@PROPERTY
@given(st.integers(2, 60), st.integers(1, 60))
def test_alignment_runs_from_first_to_last_key_in_order(m, n):
    centres = aligned_positions(m, n)
    assert centres[0] == 0 and centres[-1] == n - 1
    assert np.all(np.diff(centres) >= 0)
    exact = np.arange(m) * (n - 1) / (m - 1)
    assert np.all(np.abs(centres - exact) <= 0.5 + 1e-12)
