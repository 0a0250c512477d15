"""The three stages of attention, as the seed text draws them.

    Stage 1  similarity   s_ij = F(query_i, key_j)
    Stage 2  weights      a_ij = softmax_j(s_ij / temperature)   (or hard: one-hot)
    Stage 3  output       out_i = sum_j a_ij * value_j

Every function also works on a stack of heads: leading axes (e.g. n_heads) pass through, which is
how the real model (app/engine/models/bert.py) runs these same three stages for its 12 heads at once.

Shape names used in the comments:
    n_q  number of queries        n_k  number of keys (= number of values)
    d_k  query/key width          d_v  value width          d_a  hidden width of the additive score
"""

import math

import numpy as np

# ---------------------------------------------------------------------------
# Stage 1: similarity of every query with every key
# ---------------------------------------------------------------------------


def dot_scores(q: np.ndarray, k: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Dot product q·k (multiplicative attention). ``out``: an array to write the result into."""
    # q (n_q, d_k), k (n_k, d_k)
    return np.matmul(q, np.swapaxes(k, -1, -2), out=out)  # (n_q, n_k)


def scaled_dot_scores(
    q: np.ndarray, k: np.ndarray, out: np.ndarray | None = None, d_k: np.ndarray | None = None
) -> np.ndarray:
    """q·k / sqrt(d_k): the Transformer's score; the scaling keeps large d_k from saturating the softmax.

    ``d_k``: each head's own width, (n_heads, 1, 1), for a stack of heads of different widths padded with
    zero columns to the widest (multihead.py); by default the width of q."""
    scale = math.sqrt(q.shape[-1]) if d_k is None else np.sqrt(d_k)
    scores = dot_scores(q, k, out)  # (n_q, n_k)
    if scores.dtype.kind == "f":
        scores /= scale  # in place (a Python float keeps float32 float32): the model's 12 heads are big
        return scores
    return scores / scale  # integer inputs


def cosine_scores(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Cosine similarity q·k / (|q| |k|); a zero vector has similarity 0 with everything."""
    q_norm = np.linalg.norm(q, axis=-1, keepdims=True)  # (n_q, 1)
    k_norm = np.linalg.norm(k, axis=-1, keepdims=True)  # (n_k, 1)
    q_unit = np.divide(q, q_norm, out=np.zeros_like(q), where=q_norm > 0)  # (n_q, d_k)
    k_unit = np.divide(k, k_norm, out=np.zeros_like(k), where=k_norm > 0)  # (n_k, d_k)
    return dot_scores(q_unit, k_unit)  # (n_q, n_k)


def general_scores(q: np.ndarray, k: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Luong's "general" multiplicative score q^T W k, with a learned matrix W."""
    # W (d_k, d_k)
    return dot_scores(q @ W, k)  # (n_q, n_k)


def additive_scores(q: np.ndarray, k: np.ndarray, W1: np.ndarray, W2: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Bahdanau's additive score v^T tanh(W1 q + W2 k): a feed-forward network with one hidden layer."""
    # W1 (d_a, d_k), W2 (d_a, d_k), v (d_a,)
    query_part = q @ np.swapaxes(W1, -1, -2)  # (n_q, d_a)
    key_part = k @ np.swapaxes(W2, -1, -2)  # (n_k, d_a)
    hidden = np.tanh(query_part[..., :, None, :] + key_part[..., None, :, :])  # (n_q, n_k, d_a)
    return (hidden @ v[..., None, :, None])[..., 0]  # (n_q, n_k): v as a (d_a, 1) column


# name -> (function, names of the learned parameters it takes after q and k)
SCORE_FUNCTIONS = {
    "dot": (dot_scores, ()),
    "scaled_dot": (scaled_dot_scores, ()),
    "cosine": (cosine_scores, ()),
    "general": (general_scores, ("W",)),
    "additive": (additive_scores, ("W1", "W2", "v")),
}


def score_parameter_shapes(score: str, d_k: int) -> dict[str, tuple[int, ...]]:
    """The shapes of the learned parameters a score function needs (the hidden width d_a is d_k)."""
    shapes = {"general": {"W": (d_k, d_k)}, "additive": {"W1": (d_k, d_k), "W2": (d_k, d_k), "v": (d_k,)}}
    return shapes.get(score, {})


def similarity(
    score: str, q: np.ndarray, k: np.ndarray, parameters: dict | None = None, d_k: np.ndarray | None = None
) -> np.ndarray:
    """Stage 1 for the named score function: an (n_q, n_k) matrix of scores.

    ``d_k``: heads padded with zero columns to one width pass their own widths (scaled_dot_scores). Zero
    columns add only 0·0 terms to every dot product and length, so the other scores need no widths."""
    if score == "scaled_dot":
        return scaled_dot_scores(q, k, d_k=d_k)
    function, parameter_names = SCORE_FUNCTIONS[score]
    parameters = parameters or {}
    return function(q, k, *(parameters[name] for name in parameter_names))


# ---------------------------------------------------------------------------
# Stage 2: scores -> weights
# ---------------------------------------------------------------------------


def softmax_weights(
    scores: np.ndarray, mask: np.ndarray, temperature: float = 1.0, out: np.ndarray | None = None
) -> np.ndarray:
    """Soft attention: softmax over the keys each query may see, of score / temperature.

    Stable for any finite scores: the largest visible score is subtracted *before* dividing by
    the temperature, so every exponent is <= 0 and the largest is exactly 0 (no overflow, no NaN).
    Keys the mask hides get weight exactly 0. Every row must see at least one key.
    ``out``: an array to write the weights into (the real model keeps every layer's in one array).
    """
    # scores (n_q, n_k) float, mask (n_q, n_k) bool
    visible = scores if np.all(mask) else np.where(mask, scores, -np.inf)  # (n_q, n_k)
    float_type = np.result_type(visible.dtype, 1.0)  # float32 stays float32, integers become float64
    shifted = np.subtract(visible, visible.max(axis=-1, keepdims=True), out=out, dtype=float_type)  # row max is 0
    if temperature != 1:
        shifted /= temperature
    exponentials = np.exp(shifted, out=shifted)  # (n_q, n_k), hidden keys -> exp(-inf) = 0
    exponentials /= exponentials.sum(axis=-1, keepdims=True)
    return exponentials  # (n_q, n_k), rows sum to 1


def hard_weights(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Hard attention: weight 1 on the largest visible score (the first one on ties), 0 elsewhere."""
    # scores (n_q, n_k), mask (n_q, n_k)
    visible = np.where(mask, scores, -np.inf)  # (n_q, n_k)
    chosen = visible.argmax(axis=-1)[..., None]  # (n_q, 1) argmax returns the first index on ties
    weights = np.zeros(visible.shape, dtype=float)  # (n_q, n_k)
    np.put_along_axis(weights, chosen, 1.0, axis=-1)
    return weights


# ---------------------------------------------------------------------------
# Stage 3: the weighted sum of the values
# ---------------------------------------------------------------------------


def weighted_sum(weights: np.ndarray, v: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Each query's output is the sum of the values, weighted by its attention weights."""
    # weights (n_q, n_k), v (n_k, d_v)
    return np.matmul(weights, v, out=out)  # (n_q, d_v)
