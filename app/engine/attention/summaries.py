"""Whole-model summaries of attention: rollout across layers, and one number per (layer, head).

Pure numpy on a stack of attention weights ``weights`` of shape (n_layers, n_heads, n, n) whose
rows sum to 1 (a real model's ``run.weights``, or the word-level merge of it). Position 0 is the
first token and position n - 1 the last: for a model run, its first and last special tokens
([CLS] / [SEP], <s> / </s>).
"""

from __future__ import annotations

import numpy as np

HEAD_STATISTICS = ("entropy", "first_token", "last_token", "self", "previous", "next", "punctuation")


def attention_rollout(weights: np.ndarray, residual: float = 0.5) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", section 3).

    For each layer l the heads are averaged, the residual connection is added as the identity and
    the rows are renormalised; then the layers are multiplied from the first up:

        A_l = residual * I + (1 - residual) * mean_h W_{l,h}      (rows renormalised to sum to 1)
        R_1 = A_1,   R_l = A_l @ R_{l-1}

    R_l[i, j] is how much position i after layer l draws, through all paths, on input token j.
    ``residual`` = 0.5 weighs the skip connection and attention equally, as in the paper; the heads
    are averaged as in the paper (and its code, samiraabnar/attention_flow).
    (n_layers, n_heads, n, n) -> (n_layers, n, n): R_1 .. R_L, each row-stochastic.
    """
    if not 0.0 <= residual <= 1.0:
        raise ValueError("residual must be between 0 and 1")
    n_layers, _, n, _ = weights.shape
    mixed = weights.astype(np.float64).mean(axis=1)  # (L, n, n) heads averaged
    mixed *= 1.0 - residual
    mixed += residual * np.eye(n)  # (L, n, n) the residual stream
    mixed /= mixed.sum(axis=-1, keepdims=True)  # rows sum to 1 again
    rollout = np.empty_like(mixed)  # (L, n, n)
    rollout[0] = mixed[0]
    for layer in range(1, n_layers):
        rollout[layer] = mixed[layer] @ rollout[layer - 1]
    return rollout


def head_statistics(weights: np.ndarray, punctuation: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Seven numbers per (layer, head), each a mean over the n query rows of the head's weights a_ij.

    * ``entropy``: H_i = -sum_j a_ij ln a_ij, in nats (natural log; 0 ln 0 = 0), averaged over rows i.
      Low: the head looks at few tokens; ln n: evenly at all. (Clark et al. 2019, section 3, fig. 4.)
    * ``first_token``: a_i0, the attention to the first token ([CLS] / <s>).
    * ``last_token``: a_i,n-1, the attention to the last token ([SEP] / </s>); Clark et al. 2019
      found heads that park attention on [SEP] (section 3.2).
    * ``self``: a_ii, the attention to itself.
    * ``previous``: a_i,i-1, the attention to the token before, averaged over the rows i >= 1.
    * ``next``: a_i,i+1, the attention to the token after, averaged over the rows i <= n - 2.
      (Clark et al. 2019 section 3.1: heads that attend to the previous or next token.)
    * ``punctuation``: sum over the punctuation tokens j of a_ij (Clark et al. 2019 looked at
      periods and commas); 0 when the sentence has none. ``punctuation``: (n,) bool mask.

    ``previous`` and ``next`` are 0 for a one-token input. (L, H, n, n) -> {name: (L, H)}.
    """
    w = weights.astype(np.float64)  # (L, H, n, n)
    n = w.shape[-1]
    logs = np.log(w, out=np.zeros_like(w), where=w > 0)
    diagonal = np.diagonal(w, axis1=-2, axis2=-1)  # (L, H, n)
    zeros = np.zeros(w.shape[:2])
    stats = {
        "entropy": -(w * logs).sum(axis=-1).mean(axis=-1),
        "first_token": w[..., :, 0].mean(axis=-1),
        "last_token": w[..., :, n - 1].mean(axis=-1),
        "self": diagonal.mean(axis=-1),
        "previous": np.diagonal(w, offset=-1, axis1=-2, axis2=-1).mean(axis=-1) if n > 1 else zeros,
        "next": np.diagonal(w, offset=1, axis1=-2, axis2=-1).mean(axis=-1) if n > 1 else zeros,
    }
    mask = np.zeros(n, bool) if punctuation is None else np.asarray(punctuation, bool)
    if mask.shape != (n,):
        raise ValueError(f"punctuation mask has shape {mask.shape}, expected ({n},)")
    stats["punctuation"] = w[..., mask].sum(axis=-1).mean(axis=-1) if mask.any() else zeros
    return stats
