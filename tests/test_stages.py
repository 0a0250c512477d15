"""The three stages of app.engine.attention.stages, against examples worked by hand, plus properties.

Hand values used below (to 10 digits):
    e = 2.7182818285, e^2 = 7.3890560989, sqrt(e) = 1.6487212707
    tanh(1) = 0.7615941560, 1/sqrt(2) = 0.7071067812
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from app.engine.attention import stages
from app.engine.attention.stages import (
    additive_scores,
    cosine_scores,
    dot_scores,
    general_scores,
    hard_weights,
    scaled_dot_scores,
    similarity,
    softmax_weights,
    weighted_sum,
)
from tests.support.examples import examples

E = math.e
Q = np.array([[1.0, 0.0]])  # one query
K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # three keys
V = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])  # three values
ALL = np.ones((1, 3), dtype=bool)

PROPERTY = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------------------
# Stage 1
# ---------------------------------------------------------------------------


def test_dot_by_hand():
    # q=[1,0]: q.k1 = 1, q.k2 = 0, q.k3 = 1
    np.testing.assert_allclose(dot_scores(Q, K), [[1.0, 0.0, 1.0]], atol=0)
    # two queries: q2=[0,1] -> 0, 1, 1
    np.testing.assert_allclose(dot_scores(np.array([[1.0, 0.0], [0.0, 1.0]]), K), [[1, 0, 1], [0, 1, 1]], atol=0)


def test_scaled_dot_divides_by_sqrt_dk():
    # d_k = 2: [1, 0, 1] / sqrt(2) = [0.7071067812, 0, 0.7071067812]
    np.testing.assert_allclose(scaled_dot_scores(Q, K), [[0.7071067812, 0.0, 0.7071067812]], rtol=1e-9)
    # d_k = 4: q=[1,1,1,1], k=[2,2,2,2]: dot 8, / sqrt(4) = 4
    np.testing.assert_allclose(scaled_dot_scores(np.ones((1, 4)), 2 * np.ones((1, 4))), [[4.0]], rtol=1e-12)


def test_cosine_by_hand_and_zero_vector():
    # q=[1,0] against [1,0], [0,1], [1,1], [0,0]: 1, 0, 1/sqrt(2), and 0 for the zero vector
    keys = np.vstack([K, [[0.0, 0.0]]])
    scores = cosine_scores(Q, keys)
    np.testing.assert_allclose(scores, [[1.0, 0.0, 0.7071067812, 0.0]], rtol=1e-9, atol=1e-12)
    # q=[3,4], k=[4,3]: 24 / (5 * 5) = 0.96; length does not matter: k=[40,30] too
    np.testing.assert_allclose(
        cosine_scores(np.array([[3.0, 4.0]]), np.array([[4.0, 3.0], [40.0, 30.0]])), [[0.96, 0.96]]
    )
    # a zero query is 0 against everything, never NaN
    zero = cosine_scores(np.zeros((1, 2)), K)
    assert np.array_equal(zero, np.zeros((1, 3)))


def test_general_by_hand():
    # q=[1,2], W=[[1,0],[2,1]]: q^T W = [1*1 + 2*2, 1*0 + 2*1] = [5, 2]
    # k1=[3,1]: 5*3 + 2*1 = 17;  k2=[0,1]: 2
    q = np.array([[1.0, 2.0]])
    W = np.array([[1.0, 0.0], [2.0, 1.0]])
    k = np.array([[3.0, 1.0], [0.0, 1.0]])
    np.testing.assert_allclose(general_scores(q, k, W), [[17.0, 2.0]], atol=0)
    # W = identity is the plain dot product
    np.testing.assert_allclose(general_scores(Q, K, np.eye(2)), dot_scores(Q, K), atol=0)


def test_additive_by_hand():
    # d_k = 2, hidden width d_a = 3
    # W1 = [[1,0],[0,1],[1,1]], q = [1,0]          -> W1 q  = [1, 0, 1]
    # W2 = [[0,0],[1,0],[0,-1]]
    #   k1 = [0,1]: W2 k1 = [0, 0, -1] -> tanh([1, 0, 0]) = [0.7615941560, 0, 0]
    #   k2 = [1,1]: W2 k2 = [0, 1, -1] -> tanh([1, 1, 0]) = [0.7615941560, 0.7615941560, 0]
    # v = [1, -2, 5]:  s1 = 0.7615941560,  s2 = 0.7615941560 - 2 * 0.7615941560 = -0.7615941560
    W1 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    W2 = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, -1.0]])
    v = np.array([1.0, -2.0, 5.0])
    k = np.array([[0.0, 1.0], [1.0, 1.0]])
    np.testing.assert_allclose(additive_scores(Q, k, W1, W2, v), [[0.7615941560, -0.7615941560]], rtol=1e-9)
    # the same through the named dispatcher
    scores = similarity("additive", Q, k, {"W1": W1, "W2": W2, "v": v})
    np.testing.assert_allclose(scores, [[0.7615941560, -0.7615941560]], rtol=1e-9)


def test_dispatcher_knows_the_five_scores():
    assert set(stages.SCORE_FUNCTIONS) == {"dot", "scaled_dot", "cosine", "general", "additive"}
    np.testing.assert_allclose(similarity("dot", Q, K), [[1, 0, 1]])
    np.testing.assert_allclose(similarity("scaled_dot", Q, K), [[1 / math.sqrt(2), 0, 1 / math.sqrt(2)]])
    W = np.array([[0.0, 1.0], [1.0, 0.0]])  # swaps the coordinates: q^T W k = q1 k2 + q2 k1
    np.testing.assert_allclose(similarity("general", Q, K, {"W": W}), [[0, 1, 1]])


def test_parameter_shapes():
    assert stages.score_parameter_shapes("general", 4) == {"W": (4, 4)}
    assert stages.score_parameter_shapes("additive", 4) == {"W1": (4, 4), "W2": (4, 4), "v": (4,)}
    assert stages.score_parameter_shapes("dot", 4) == {}


# ---------------------------------------------------------------------------
# Stage 2
# ---------------------------------------------------------------------------


def test_softmax_by_hand():
    # scores [1, 0, 1]: 2e + 1 = 6.4365636569
    #   e / (2e + 1) = 0.4223187983,  1 / (2e + 1) = 0.1553624035
    weights = softmax_weights(np.array([[1.0, 0.0, 1.0]]), ALL)
    np.testing.assert_allclose(weights, [[0.4223187983, 0.1553624035, 0.4223187983]], rtol=1e-9)


def test_softmax_temperature_by_hand():
    scores = np.array([[1.0, 0.0, 1.0]])
    # T = 0.5: scores / T = [2, 0, 2]: e^2 / (2e^2 + 1) = 7.3890560989 / 15.7781121979 = 0.4683105308
    np.testing.assert_allclose(
        softmax_weights(scores, ALL, 0.5), [[0.4683105308, 0.0633789383, 0.4683105308]], rtol=1e-9
    )
    # T = 2: scores / T = [0.5, 0, 0.5]: sqrt(e) / (2 sqrt(e) + 1) = 1.6487212707 / 4.2974425414 = 0.3836517312
    #   and 1 / 4.2974425414 = 0.2326965376
    np.testing.assert_allclose(
        softmax_weights(scores, ALL, 2.0), [[0.3836517312, 0.2326965376, 0.3836517312]], rtol=1e-9
    )
    # a higher temperature is flatter, a lower one sharper
    assert (
        softmax_weights(scores, ALL, 20.0)[0, 1]
        > softmax_weights(scores, ALL, 1.0)[0, 1]
        > softmax_weights(scores, ALL, 0.05)[0, 1]
    )


def test_softmax_masked_key_gets_exactly_zero():
    # key 3 hidden: the softmax runs over [1, 0] only: e / (e + 1) = 0.7310585786, 1 / (e + 1) = 0.2689414214
    weights = softmax_weights(np.array([[1.0, 0.0, 1.0]]), np.array([[True, True, False]]))
    np.testing.assert_allclose(weights[0, :2], [0.7310585786, 0.2689414214], rtol=1e-9)
    assert weights[0, 2] == 0.0


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_softmax_extreme_scores_do_not_overflow():
    # [1000, 1000, -1000]: exp(1000) would overflow without the max shift; answer [0.5, 0.5, 0]
    weights = softmax_weights(np.array([[1000.0, 1000.0, -1000.0]]), ALL)
    np.testing.assert_allclose(weights, [[0.5, 0.5, 0.0]], atol=1e-300)
    huge = softmax_weights(np.array([[1e308, -1e308, 1e308]]), ALL, 0.05)
    np.testing.assert_allclose(huge, [[0.5, 0.0, 0.5]])


def test_hard_is_one_hot_first_index_on_ties():
    # largest score 3 at positions 1 and 2: the first (1) wins
    np.testing.assert_array_equal(hard_weights(np.array([[1.0, 3.0, 3.0, 2.0]]), np.ones((1, 4), bool)), [[0, 1, 0, 0]])
    # position 1 hidden: the best visible is 2
    mask = np.array([[True, False, True, True]])
    np.testing.assert_array_equal(hard_weights(np.array([[1.0, 3.0, 3.0, 2.0]]), mask), [[0, 0, 1, 0]])
    # a hidden larger score never wins, even when it is much larger
    np.testing.assert_array_equal(hard_weights(np.array([[5.0, 1.0]]), np.array([[False, True]])), [[0, 1]])
    # all equal: the first
    np.testing.assert_array_equal(hard_weights(np.zeros((2, 3)), np.ones((2, 3), bool)), [[1, 0, 0], [1, 0, 0]])


# ---------------------------------------------------------------------------
# Stage 3
# ---------------------------------------------------------------------------


def test_weighted_sum_by_hand():
    # weights [0.4223, 0.1554, 0.4223] on values (1,2), (3,4), (5,6):
    # first and last have the same weight, so they contribute their mean (3,4); the middle is (3,4): output (3,4)
    weights = softmax_weights(dot_scores(Q, K), ALL)
    np.testing.assert_allclose(weighted_sum(weights, V), [[3.0, 4.0]], rtol=1e-12)
    # weights [0.25, 0.75, 0] -> 0.25*(1,2) + 0.75*(3,4) = (2.5, 3.5)
    np.testing.assert_allclose(weighted_sum(np.array([[0.25, 0.75, 0.0]]), V), [[2.5, 3.5]], atol=1e-15)
    # values narrower than the keys: d_v = 1
    np.testing.assert_allclose(weighted_sum(np.array([[0.5, 0.0, 0.5]]), np.array([[2.0], [9.0], [4.0]])), [[3.0]])


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

finite = st.floats(allow_nan=False, allow_infinity=False)  # the whole float range, +-1.79e308 included
extreme = st.sampled_from([1e308, -1e308, 1.7976931348623157e308, -1.7976931348623157e308, 0.0, 5e-324])
score_value = st.one_of(finite, extreme)
temperatures = st.floats(min_value=0.05, max_value=20.0)


@st.composite
def scores_and_mask(draw, elements=score_value):
    n_q = draw(st.integers(1, 6))
    n_k = draw(st.integers(1, 8))
    scores = draw(hnp.arrays(np.float64, (n_q, n_k), elements=elements))
    mask = draw(hnp.arrays(np.bool_, (n_q, n_k)))
    visible_key = draw(hnp.arrays(np.int64, (n_q,), elements=st.integers(0, n_k - 1)))
    mask[np.arange(n_q), visible_key] = True  # every row sees at least one key
    return scores, mask


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@PROPERTY
@given(scores_and_mask(), temperatures)
def test_softmax_rows_sum_to_one_and_are_finite(data, temperature):
    scores, mask = data
    weights = softmax_weights(scores, mask, temperature)
    assert weights.shape == scores.shape
    assert np.all(np.isfinite(weights))
    assert np.all(weights >= 0)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@PROPERTY
@given(scores_and_mask(), temperatures)
def test_masked_keys_get_exactly_zero(data, temperature):
    scores, mask = data
    weights = softmax_weights(scores, mask, temperature)
    assert np.all(weights[~mask] == 0.0)
    # the best visible key of each row always keeps a positive weight
    best = np.where(mask, scores, -np.inf).argmax(axis=1)
    assert np.all(weights[np.arange(len(scores)), best] > 0)


@PROPERTY
@given(scores_and_mask())
def test_hard_is_one_hot_on_the_first_visible_maximum(data):
    scores, mask = data
    weights = hard_weights(scores, mask)
    assert set(np.unique(weights)) <= {0.0, 1.0}
    np.testing.assert_array_equal(weights.sum(axis=1), 1.0)
    for i in range(len(scores)):
        visible = [j for j in range(scores.shape[1]) if mask[i, j]]
        best = max(scores[i, j] for j in visible)
        expected = next(j for j in visible if scores[i, j] == best)  # first index on ties
        assert weights[i, expected] == 1.0


moderate = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False)


@PROPERTY
@given(scores_and_mask(elements=moderate), st.data(), temperatures)
def test_softmax_is_shift_invariant(data, draw, temperature):
    scores, mask = data
    shift = draw.draw(hnp.arrays(np.float64, (len(scores), 1), elements=moderate))  # one constant per row
    before = softmax_weights(scores, mask, temperature)
    after = softmax_weights(scores + shift, mask, temperature)
    np.testing.assert_allclose(after, before, rtol=1e-6, atol=1e-9)


@PROPERTY
@given(scores_and_mask(elements=moderate), st.data(), temperatures)
def test_weighted_sum_lies_in_the_convex_hull_of_the_visible_values(data, draw, temperature):
    scores, mask = data
    d_v = draw.draw(st.integers(1, 5))
    v = draw.draw(hnp.arrays(np.float64, (scores.shape[1], d_v), elements=st.floats(-1e6, 1e6)))
    output = weighted_sum(softmax_weights(scores, mask, temperature), v)
    assert output.shape == (len(scores), d_v)
    tolerance = 1e-9 * max(1.0, float(np.abs(v).max()))
    for i in range(len(scores)):
        visible = v[mask[i]]  # (n_visible, d_v)
        assert np.all(output[i] >= visible.min(axis=0) - tolerance)
        assert np.all(output[i] <= visible.max(axis=0) + tolerance)
