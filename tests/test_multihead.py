"""Single-head and multi-head attention: the stages wired together, heads combined by W_O."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from app.engine.attention import multi_head_attention, single_head_attention
from app.engine.attention.masks import attention_mask
from app.engine.attention.stages import similarity, softmax_weights

PROPERTY = settings(max_examples=60, deadline=None)
SCORES = ("dot", "scaled_dot", "cosine", "general", "additive")


def test_single_head_by_hand():
    # The exercise preset: q1=[1,0], q2=[0,1]; keys [1,0], [0,1], [1,1]; values (1,2), (3,4), (5,6); score dot.
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    head = single_head_attention(q, k, v, score="dot")
    # stage 1: q1 -> [1, 0, 1], q2 -> [0, 1, 1]
    np.testing.assert_array_equal(head.scores, [[1, 0, 1], [0, 1, 1]])
    # stage 2: a = e/(2e+1) = 0.4223187983, b = 1/(2e+1) = 0.1553624035
    a, b = 0.4223187983, 0.1553624035
    np.testing.assert_allclose(head.weights, [[a, b, a], [b, a, a]], rtol=1e-9)
    # stage 3: q1 -> a(1,2) + b(3,4) + a(5,6) = (6a + 3b, 8a + 4b) = (3, 4)
    #          q2 -> b(1,2) + a(3,4) + a(5,6) = (b + 8a, 2b + 10a) = (3.5339127895, 4.5339127895)
    np.testing.assert_allclose(head.output, [[3.0, 4.0], [3.5339127895, 4.5339127895]], rtol=1e-9)
    assert head.mask.all()
    assert head.parameters == {}


def test_single_head_scaled_dot_with_temperature_and_mask():
    # q=[2,0], keys [1,0], [0,1], [3,0]; scaled_dot: [2, 0, 6] / sqrt(2) = [1.4142135624, 0, 4.2426406871]
    # key 3 hidden by the mask; T = 0.5: softmax of [2.8284271247, 0] over the visible keys:
    #   1 / (1 + e^-2.8284271247) = 1 / (1 + 0.0591057466) = 0.9441927808
    q = np.array([[2.0, 0.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [3.0, 0.0]])
    v = np.array([[10.0], [0.0], [99.0]])
    mask = np.array([[True, True, False]])
    head = single_head_attention(q, k, v, score="scaled_dot", temperature=0.5, mask=mask)
    np.testing.assert_allclose(head.scores, [[math.sqrt(2), 0.0, 3 * math.sqrt(2)]], rtol=1e-12)  # before T and mask
    np.testing.assert_allclose(head.weights, [[0.9441927808, 1 - 0.9441927808, 0.0]], rtol=1e-9)
    assert head.weights[0, 2] == 0.0
    np.testing.assert_allclose(head.output, [[9.441927808]], rtol=1e-9)  # the hidden 99 does not leak in


def test_single_head_hard():
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = np.array([[1.0], [2.0], [3.0]])
    head = single_head_attention(q, k, v, score="dot", hard=True)
    # q1 scores [1, 0, 1]: tie -> the first (key 0); q2 scores [0, 1, 1]: tie -> key 1
    np.testing.assert_array_equal(head.weights, [[1, 0, 0], [0, 1, 0]])
    np.testing.assert_array_equal(head.output, [[1.0], [2.0]])


def test_identity_projection_one_head_is_the_seed_picture():
    # Q = K = V = X: weights = softmax(X X^T / sqrt(d)), output = weights X, same size as X
    x = np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    result = multi_head_attention(x, x)
    head = result.heads[0]
    np.testing.assert_array_equal(head.q, x)
    expected = softmax_weights(x @ x.T / 2.0, np.ones((3, 3), bool))
    np.testing.assert_allclose(head.weights, expected, rtol=1e-12)
    np.testing.assert_allclose(result.output, expected @ x, rtol=1e-12)
    np.testing.assert_array_equal(result.parameters["W_O"], np.eye(4))


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8])
def test_identity_projection_gives_each_head_its_slice(n_heads):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 16))
    result = multi_head_attention(x, x, n_heads=n_heads, projection="identity")
    d_k = 16 // n_heads
    assert len(result.heads) == n_heads
    for h, head in enumerate(result.heads):
        features = x[:, h * d_k : (h + 1) * d_k]
        np.testing.assert_array_equal(head.q, features)
        np.testing.assert_array_equal(head.k, features)
        np.testing.assert_array_equal(head.v, features)
        np.testing.assert_array_equal(head.parameters["W_Q"], np.eye(16)[:, h * d_k : (h + 1) * d_k])
    # W_O = identity: the output is the heads side by side
    np.testing.assert_allclose(result.output, np.concatenate([head.output for head in result.heads], axis=1), atol=0)


def test_heads_must_divide_the_dimension():
    x = np.ones((2, 12))
    with pytest.raises(ValueError):
        multi_head_attention(x, x, n_heads=8)


def test_cross_attention_shapes_and_alignment_mask():
    rng = np.random.default_rng(0)
    x_q, x_kv = rng.standard_normal((3, 8)), rng.standard_normal((5, 8))
    result = multi_head_attention(x_q, x_kv, n_heads=2, projection="random", window=1, seed=4)
    for head in result.heads:
        assert head.scores.shape == head.weights.shape == head.mask.shape == (3, 5)
        assert head.output.shape == (3, 4)
        np.testing.assert_array_equal(head.mask, attention_mask(3, 5, window=1))
        assert np.all(head.weights[~head.mask] == 0)
    assert result.output.shape == (3, 8)


def test_random_projection_is_seeded():
    x = np.random.default_rng(1).standard_normal((4, 8))
    a = multi_head_attention(x, x, n_heads=2, projection="random", score="additive", seed=7)
    b = multi_head_attention(x, x, n_heads=2, projection="random", score="additive", seed=7)
    c = multi_head_attention(x, x, n_heads=2, projection="random", score="additive", seed=8)
    np.testing.assert_array_equal(a.output, b.output)
    assert not np.allclose(a.output, c.output)
    # the two heads draw different parameters
    assert not np.allclose(a.heads[0].parameters["W1"], a.heads[1].parameters["W1"])


@pytest.mark.parametrize(
    "score, shapes",
    [
        ("dot", {}),
        ("general", {"W": (4, 4)}),
        ("additive", {"W1": (4, 4), "W2": (4, 4), "v": (4,)}),
    ],
)
def test_head_parameters_name_every_matrix(score, shapes):
    x = np.random.default_rng(2).standard_normal((3, 8))
    result = multi_head_attention(x, x, n_heads=2, projection="random", score=score, seed=1)
    for head in result.heads:
        expected = {"W_Q": (8, 4), "W_K": (8, 4), "W_V": (8, 4), **shapes}
        assert {name: value.shape for name, value in head.parameters.items()} == expected
    assert result.parameters["W_O"].shape == (8, 8)


@PROPERTY
@given(
    st.sampled_from([1, 2, 4, 8]),
    st.integers(1, 3),  # d_k
    st.integers(1, 6),  # n_q
    st.integers(1, 6),  # n_k
    st.sampled_from(SCORES),
    st.sampled_from(["identity", "random"]),
    st.floats(0.05, 20),
    st.booleans(),
    st.integers(0, 2**31 - 1),
    st.data(),
)
def test_heads_combine_as_specified(n_heads, d_k, n_q, n_k, score, projection, temperature, hard, seed, data):
    d_model = n_heads * d_k
    elements = st.floats(-10, 10)
    x_q = data.draw(hnp.arrays(np.float64, (n_q, d_model), elements=elements))
    x_kv = data.draw(hnp.arrays(np.float64, (n_k, d_model), elements=elements))
    result = multi_head_attention(
        x_q, x_kv, n_heads=n_heads, projection=projection, score=score, temperature=temperature, hard=hard, seed=seed
    )
    assert len(result.heads) == n_heads
    for head in result.heads:
        p = head.parameters
        # each head projects the inputs with its own matrices ...
        np.testing.assert_allclose(head.q, x_q @ p["W_Q"], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(head.k, x_kv @ p["W_K"], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(head.v, x_kv @ p["W_V"], rtol=1e-12, atol=1e-12)
        # ... and runs the three stages on them
        again = single_head_attention(
            head.q, head.k, head.v, score=score, temperature=temperature, hard=hard, parameters=p
        )
        np.testing.assert_allclose(head.scores, similarity(score, head.q, head.k, p), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(head.weights, again.weights, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(head.weights.sum(axis=1), 1.0, atol=1e-12)
    # output = concat(head outputs) @ W_O
    concatenated = np.concatenate([head.output for head in result.heads], axis=1)
    assert concatenated.shape == (n_q, d_model)
    np.testing.assert_allclose(result.output, concatenated @ result.parameters["W_O"], rtol=1e-12, atol=1e-12)
    # the heads' projections are the column blocks of one (d_model, d_model) matrix per role
    W_Q = np.concatenate([head.parameters["W_Q"] for head in result.heads], axis=1)
    assert W_Q.shape == (d_model, d_model)
    if projection == "identity":
        np.testing.assert_array_equal(W_Q, np.eye(d_model))


@pytest.mark.parametrize("kind", ["self", "cross"])
@pytest.mark.parametrize("positional", [True, False])
def test_named_head_matrices_are_written_once_and_read_only(kind, positional):
    from app.engine.attention.named_heads import named_heads
    from app.engine.text.embed import LEXICON_DIM, column_names

    inputs = column_names(embedding="lexicon", dim=LEXICON_DIM, positional=positional)
    for head in named_heads(kind):
        W_Q, W_K = head.matrices(inputs)
        again = head.matrices(list(inputs))  # the same names as a list: the same kept matrices
        assert again[0] is W_Q and again[1] is W_K
        fresh_Q, fresh_K = head.written_matrices(inputs)
        np.testing.assert_array_equal(W_Q, fresh_Q)
        np.testing.assert_array_equal(W_K, fresh_K)
        with pytest.raises(ValueError, match="read-only"):
            W_Q[0, 0] = 1.0


@pytest.mark.parametrize("score", SCORES)
@pytest.mark.parametrize("kind, n_heads", [("self", 8), ("cross", 4)])
@pytest.mark.parametrize("hard", [False, True])
def test_named_heads_of_different_widths_each_get_their_own_stages(score, kind, n_heads, hard):
    """The heads run as one stack padded to the widest question; each must still be exactly its own head:
    its own W_Q and W_K (d_model, d_k), √d_k of its own width, its stages as if it ran alone."""
    from app.engine.attention.named_heads import named_heads
    from app.engine.text.embed import LEXICON_DIM, column_names

    inputs = column_names(embedding="lexicon", dim=LEXICON_DIM, positional=True)
    rng = np.random.default_rng(7)
    x_q, x_kv = rng.standard_normal((5, len(inputs))), rng.standard_normal((6, len(inputs)))
    if kind == "self":
        x_kv = x_q
    result = multi_head_attention(
        x_q, x_kv, n_heads=n_heads, projection="named", score=score, hard=hard, inputs=inputs, kind=kind, stretch=1.5
    )
    widths = {head.q.shape[1] for head in result.heads}
    assert len(widths) > 1, "the named heads ask questions of different widths"
    for head, named in zip(result.heads, named_heads(kind, n_heads), strict=True):
        W_Q, W_K = named.matrices(inputs)
        np.testing.assert_array_equal(head.parameters["W_Q"], W_Q)
        np.testing.assert_array_equal(head.parameters["W_K"], W_K)
        q, k = x_q @ W_Q * 1.5, x_kv @ W_K * 1.5  # (n_q, d_k), (n_k, d_k) of this head alone
        np.testing.assert_allclose(head.q, q, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(head.k, k, rtol=1e-12, atol=1e-12)
        alone = single_head_attention(q, k, x_kv, score=score, hard=hard, parameters=head.parameters)
        # a few float64 roundings apart at most: the padded columns add exact zeros, only the order of sums moves
        np.testing.assert_allclose(head.scores, alone.scores, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(head.weights, alone.weights, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(head.output, alone.output, rtol=1e-12, atol=1e-12)
