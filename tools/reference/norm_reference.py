"""A float64 reference for weight × value norm (Kobayashi et al. 2020, "Attention is Not Only a Weight", eq. 5),
written from the paper's formula, unfactored and slowly, independently of app/engine/attention/norms.py.

The paper rewrites one head's part of a layer's output for query i as

    y_i = Σ_j α_ij f(x_j),   f(x) = (x W_V + b_V) W_O        (W_O: the head's rows of the output projection)

and measures key j's contribution as the length of the vector α_ij f(x_j) (the output bias left out). Here each
f(x_j) is computed from the layer's input x_j as written, then multiplied by α_ij, and its length taken: no
‖α f‖ = α ‖f‖, no stacking of heads. numpy in float64 only; the tests (tests/test_norms.py) compare the app's
float32 (real models) and float64 (teaching engine, translators) numbers with these.
"""

from __future__ import annotations

import math

import numpy as np


def transformed_value(x_j: np.ndarray, W_V: np.ndarray, b_V: np.ndarray | None, W_O: np.ndarray | None) -> np.ndarray:
    """f(x_j) = (x_j W_V + b_V) W_O for one input row x_j (d_in,), in float64."""
    value = np.asarray(x_j, np.float64) @ np.asarray(W_V, np.float64)
    if b_V is not None:
        value = value + np.asarray(b_V, np.float64)
    return value if W_O is None else value @ np.asarray(W_O, np.float64)


def contribution_norms(
    alpha: np.ndarray, x: np.ndarray, W_V: np.ndarray, b_V: np.ndarray | None, W_O: np.ndarray | None
) -> np.ndarray:
    """‖α_ij f(x_j)‖ for every query i and key j: alpha (n_q, n_k), x (n_k, d_in) the keys' inputs -> (n_q, n_k)."""
    alpha = np.asarray(alpha, np.float64)
    n_q, n_k = alpha.shape
    out = np.zeros((n_q, n_k))
    for j in range(n_k):
        f_j = transformed_value(x[j], W_V, b_V, W_O)
        for i in range(n_q):
            vector = alpha[i, j] * f_j  # the term α_ij f(x_j) of y_i
            out[i, j] = math.sqrt(float(np.sum(vector * vector)))
    return out


def softmax_attention(x: np.ndarray, W_Q: np.ndarray, b_Q: np.ndarray, W_K: np.ndarray, b_K: np.ndarray) -> np.ndarray:
    """A BERT head's weights from the layer's input x (n, d_in): softmax_j((x_i W_Q + b_Q)·(x_j W_K + b_K) / √d_k),
    in float64, every key visible (one sentence, no padding)."""
    x = np.asarray(x, np.float64)
    q = x @ np.asarray(W_Q, np.float64) + np.asarray(b_Q, np.float64)
    k = x @ np.asarray(W_K, np.float64) + np.asarray(b_K, np.float64)
    scores = q @ k.T / math.sqrt(q.shape[1])
    scores -= scores.max(axis=1, keepdims=True)
    e = np.exp(scores)
    return e / e.sum(axis=1, keepdims=True)
