"""Single-head and multi-head attention built from the three stages.

Multi-head attention (seed text, section 9): every head h has its own projections
W_Q[h], W_K[h], W_V[h] (d_model -> d_k) and runs the three stages on its own; the heads'
outputs are concatenated and projected by W_O (d_model -> d_model).

Projection "identity" is the seed's X·Xᵀ picture: Q = K = V = X. With several heads, head h
then sees its own slice of the features (its projections are columns of the identity matrix).
Projection "random" draws seeded Gaussian matrices instead, as an untrained Transformer would.
"""

from dataclasses import dataclass, field

import numpy as np

from app.engine.attention.masks import attention_mask
from app.engine.attention.stages import hard_weights, score_parameter_shapes, similarity, softmax_weights, weighted_sum


@dataclass
class HeadResult:
    q: np.ndarray  # (n_q, d_k)
    k: np.ndarray  # (n_k, d_k)
    v: np.ndarray  # (n_k, d_v)
    scores: np.ndarray  # (n_q, n_k) stage 1
    mask: np.ndarray  # (n_q, n_k) True where the query may see the key
    weights: np.ndarray  # (n_q, n_k) stage 2
    output: np.ndarray  # (n_q, d_v) stage 3
    parameters: dict = field(default_factory=dict)  # name -> learned matrix this head used


@dataclass
class MultiHeadResult:
    heads: list  # of HeadResult
    output: np.ndarray  # (n_q, d_model) heads concatenated, then projected by W_O
    parameters: dict  # {"W_O": (d_model, d_model)}


def single_head_attention(q, k, v, *, score="scaled_dot", temperature=1.0, hard=False, mask=None, parameters=None):
    """The three stages for one head, on given queries, keys and values."""
    # q (n_q, d_k), k (n_k, d_k), v (n_k, d_v)
    if mask is None:
        mask = attention_mask(len(q), len(k))  # (n_q, n_k)
    scores = similarity(score, q, k, parameters)  # (n_q, n_k) stage 1
    # stage 2: one-hot rows (hard) or a softmax distribution (soft)
    weights = hard_weights(scores, mask) if hard else softmax_weights(scores, mask, temperature)  # (n_q, n_k)
    output = weighted_sum(weights, v)  # (n_q, d_v) stage 3
    return HeadResult(q, k, v, scores, mask, weights, output, dict(parameters or {}))


def projection_matrices(projection, d_model, rng):
    """W_Q, W_K, W_V, W_O, each (d_model, d_model); drawn from rng in that order when random."""
    if projection == "identity":
        identity = np.eye(d_model)  # (d_model, d_model)
        return identity, identity, identity, identity
    if projection == "random":
        scale = 1.0 / np.sqrt(d_model)  # keeps the projected vectors about as long as the inputs
        return tuple(rng.standard_normal((d_model, d_model)) * scale for _ in range(4))
    raise ValueError(f"unknown projection {projection!r}")


def score_parameters(score, d_k, rng):
    """Seeded learned parameters for the general and additive scores (empty for the others)."""
    scale = 1.0 / np.sqrt(d_k)
    return {name: rng.standard_normal(shape) * scale for name, shape in score_parameter_shapes(score, d_k).items()}


def multi_head_attention(
    x_q,
    x_kv,
    *,
    n_heads=1,
    projection="identity",
    score="scaled_dot",
    temperature=1.0,
    hard=False,
    window=None,
    causal=False,
    seed=0,
):
    """Attention of the rows of x_q (queries) over the rows of x_kv (keys and values).

    Self-attention passes the same matrix twice; cross-attention passes the target sentence's
    vectors as x_q and the source sentence's as x_kv.
    """
    # x_q (n_q, d_model), x_kv (n_k, d_model)
    d_model = x_q.shape[1]
    if d_model % n_heads:
        raise ValueError(f"{n_heads} heads do not divide the dimension {d_model}")
    d_k = d_model // n_heads
    rng = np.random.default_rng(seed)
    W_Q, W_K, W_V, W_O = projection_matrices(projection, d_model, rng)  # each (d_model, d_model)
    mask = attention_mask(len(x_q), len(x_kv), window=window, causal=causal)  # (n_q, n_k)

    heads = []
    for h in range(n_heads):
        columns = slice(h * d_k, (h + 1) * d_k)
        parameters = {"W_Q": W_Q[:, columns], "W_K": W_K[:, columns], "W_V": W_V[:, columns]}  # each (d_model, d_k)
        parameters.update(score_parameters(score, d_k, rng))
        q = x_q @ parameters["W_Q"]  # (n_q, d_k)
        k = x_kv @ parameters["W_K"]  # (n_k, d_k)
        v = x_kv @ parameters["W_V"]  # (n_k, d_k)
        heads.append(
            single_head_attention(
                q, k, v, score=score, temperature=temperature, hard=hard, mask=mask, parameters=parameters
            )
        )

    concatenated = np.concatenate([head.output for head in heads], axis=1)  # (n_q, d_model)
    output = concatenated @ W_O  # (n_q, d_model)
    return MultiHeadResult(heads, output, {"W_O": W_O})
