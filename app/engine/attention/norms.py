"""Beside where a word looked, what each word contributed: weight × value norm (Kobayashi et al. 2020).

A head's output for query i is a sum over the keys j of α_ij · v_j, and the layer then multiplies the heads'
outputs, side by side, by W_O. So head h's part of the layer's output is

    Σ_j α_ij · f(x_j),   f(x_j) = (x_j W_V + b_V) W_O[h] = v_j W_O[h]

where W_O[h] is head h's own rows of W_O (rows h·d_v ... (h+1)·d_v - 1). *Attention is Not Only a Weight*
(Kobayashi et al., EMNLP 2020) measures what key j puts into query i's output as the length of that term,

    ‖α_ij · f(x_j)‖ = α_ij · ‖v_j W_O[h]‖        (α_ij ≥ 0)

A big weight on a key whose transformed value f(x_j) is short moves the output little. The output bias b_O is
left out, as the paper does: it is added once, whatever the weights, and belongs to no key. Each function below
is one step; shapes are named in the comments, and every one takes leading axes (heads, layers) as they come.
"""

from __future__ import annotations

import numpy as np


def head_rows(W_O: np.ndarray, head: int, d_v: int) -> np.ndarray:
    """Head `head`'s own rows of W_O (n_heads * d_v, d_model): the (d_v, d_model) block its output is multiplied by."""
    return W_O[head * d_v : (head + 1) * d_v]  # (d_v, d_model)


def value_norms(v: np.ndarray, W_O: np.ndarray | None) -> np.ndarray:
    """‖f(x_j)‖ = ‖v_j W_O[h]‖ of every key: v (..., n_k, d_v), W_O (..., d_v, d_model) -> (..., n_k).

    W_O None: the output is the weighted sum itself (an exercise's hand-typed values), so f(x_j) = v_j."""
    transformed = v if W_O is None else np.matmul(v, W_O)  # (..., n_k, d_model) f(x_j), the output bias left out
    return np.linalg.norm(transformed, axis=-1)  # (..., n_k)


def weighted_norms(weights: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """‖α_ij f(x_j)‖ = α_ij ‖f(x_j)‖: weights (..., n_q, n_k), norms (..., n_k) -> (..., n_q, n_k)."""
    return weights * norms[..., None, :]  # (..., n_q, n_k) α ≥ 0, so the length of α f is α times the length of f


def shares(contributions: np.ndarray) -> np.ndarray:
    """Each key's share of its row's total (..., n_k) -> (..., n_k), rows summing to 1 (a row of zeros stays
    zero): comparable with the weights, which sum to 1 too."""
    totals = contributions.sum(axis=-1, keepdims=True)  # (..., n_q, 1)
    return contributions / np.where(totals > 0, totals, 1.0)  # (..., n_q, n_k)
