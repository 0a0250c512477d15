"""Single-head and multi-head attention built from the three stages.

Multi-head attention (seed text, section 9): every head h has its own projections
W_Q[h], W_K[h], W_V[h] (d_model -> d_k) and runs the three stages on its own; the heads'
outputs are concatenated and projected by W_O (d_model -> d_model).

Projection "named" gives each head a question in words (named_heads.py): W_Q and W_K over the
named features, W_V the identity, W_O the average of the heads. Projection "identity" is the
X·Xᵀ picture: Q = K = V = X; with several heads, head h then sees its own slice of the features
(its projections are columns of the identity matrix). Projection "random" draws seeded Gaussian
matrices instead, as an untrained Transformer would.
"""

from dataclasses import dataclass, field

import numpy as np

from app.engine.attention.masks import attention_mask
from app.engine.attention.named_heads import named_heads
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
    parameters: dict  # {"W_O": (n_heads * d_v, d_model)}


def single_head_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    *,
    score: str = "scaled_dot",
    temperature: float = 1.0,
    hard: bool = False,
    mask: np.ndarray | None = None,
    parameters: dict | None = None,
) -> HeadResult:
    """The three stages for one head, on given queries, keys and values."""
    # q (n_q, d_k), k (n_k, d_k), v (n_k, d_v)
    if mask is None:
        mask = attention_mask(len(q), len(k))  # (n_q, n_k)
    scores = similarity(score, q, k, parameters)  # (n_q, n_k) stage 1
    # stage 2: one-hot rows (hard) or a softmax distribution (soft)
    weights = hard_weights(scores, mask) if hard else softmax_weights(scores, mask, temperature)  # (n_q, n_k)
    output = weighted_sum(weights, v)  # (n_q, d_v) stage 3
    return HeadResult(q, k, v, scores, mask, weights, output, dict(parameters or {}))


def projection_matrices(
    projection: str, d_model: int, n_heads: int, rng: np.random.Generator, **named: object
) -> tuple[list[dict], np.ndarray]:
    """Each head's W_Q, W_K, W_V, and W_O.

    identity and random: (d_model, d_k) column slices of one (d_model, d_model) matrix per projection,
    drawn from rng in the order W_Q, W_K, W_V, W_O when random; W_O is (d_model, d_model).
    named: the named heads' matrices (named_heads.py); W_V = I and W_O = [I/H; ...; I/H], the average.
    """
    if projection == "named":
        heads = named_heads(named["kind"], n_heads)
        inputs = named["inputs"]
        identity = np.eye(d_model)  # (d_model, d_model)
        per_head = [dict(zip(("W_Q", "W_K"), head.matrices(inputs), strict=True), W_V=identity) for head in heads]
        return per_head, np.vstack([identity / n_heads] * n_heads)  # (n_heads * d_model, d_model)
    if projection == "identity":
        W_Q = W_K = W_V = W_O = np.eye(d_model)  # (d_model, d_model)
    elif projection == "random":
        scale = 1.0 / np.sqrt(d_model)  # keeps the projected vectors about as long as the inputs
        W_Q, W_K, W_V, W_O = (rng.standard_normal((d_model, d_model)) * scale for _ in range(4))
    else:
        raise ValueError(f"unknown projection {projection!r}")
    if d_model % n_heads:
        raise ValueError(f"{n_heads} heads do not divide the dimension {d_model}")
    d_k = d_model // n_heads
    columns = [slice(h * d_k, (h + 1) * d_k) for h in range(n_heads)]
    return [{"W_Q": W_Q[:, c], "W_K": W_K[:, c], "W_V": W_V[:, c]} for c in columns], W_O


def score_parameters(score: str, d_k: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Seeded learned parameters for the general and additive scores (empty for the others)."""
    scale = 1.0 / np.sqrt(d_k)
    return {name: rng.standard_normal(shape) * scale for name, shape in score_parameter_shapes(score, d_k).items()}


def multi_head_attention(
    x_q: np.ndarray,
    x_kv: np.ndarray,
    *,
    n_heads: int = 1,
    projection: str = "identity",
    score: str = "scaled_dot",
    temperature: float = 1.0,
    hard: bool = False,
    window: int | None = None,
    causal: bool = False,
    seed: int = 0,
    inputs: tuple[str, ...] = (),
    kind: str = "self",
    stretch: float = 1.0,
) -> MultiHeadResult:
    """Attention of the rows of x_q (queries) over the rows of x_kv (keys and values).

    Self-attention passes the same matrix twice; cross-attention passes the target sentence's
    vectors as x_q and the source sentence's as x_kv. Named heads need the names of the input
    columns (`inputs`) and the kind of attention (`kind`, "self" or "cross"). `stretch` multiplies the
    length of every query and key (so every q·k by its square): the softmax saturates as it grows.
    """
    # x_q (n_q, d_model), x_kv (n_k, d_model)
    d_model = x_q.shape[1]
    rng = np.random.default_rng(seed)
    projections, W_O = projection_matrices(projection, d_model, n_heads, rng, inputs=inputs, kind=kind)
    mask = attention_mask(len(x_q), len(x_kv), window=window, causal=causal)  # (n_q, n_k)

    heads = []
    for matrices in projections:
        q = x_q @ matrices["W_Q"]  # (n_q, d_k)
        k = x_kv @ matrices["W_K"]  # (n_k, d_k)
        if stretch != 1:
            q, k = q * stretch, k * stretch  # longer (or shorter) vectors, the same directions
        v = x_kv @ matrices["W_V"]  # (n_k, d_v)
        parameters = {**matrices, **score_parameters(score, q.shape[1], rng)}
        heads.append(
            single_head_attention(
                q, k, v, score=score, temperature=temperature, hard=hard, mask=mask, parameters=parameters
            )
        )

    concatenated = np.concatenate([head.output for head in heads], axis=1)  # (n_q, n_heads * d_v)
    output = concatenated @ W_O  # (n_q, d_model)
    return MultiHeadResult(heads, output, {"W_O": W_O})
