"""One query step written out, number by number, as a teacher would on the board.

``step_arithmetic`` writes out one step of a head's three stages with every intermediate: the
products q·k (or qᵀW, or W₁q and W₂k for the additive score), the scaling, the exponentials and
their sum, each weight, each weight × value, and the output; where the head knows its rows of W_O,
each key's ‖v_j W_O[h]‖, the weight times it and its share of the step's total (Kobayashi et al. 2020,
norms.py). The scores, weights and output are the head's own, so the board and the heatmaps cannot disagree.
"""

from __future__ import annotations

import math

import numpy as np

from app.engine.attention.multihead import HeadResult
from app.engine.attention.norms import shares

PRINTABLE_EXPONENT = 50.0  # e^50 ≈ 5e21: beyond this the exponentials are written shifted


def step_arithmetic(head: HeadResult, step: int, *, score: str, temperature: float = 1.0, hard: bool = False) -> dict:
    """Every number of one query step of a head (anything with q, k, v, scores, mask, weights, output, parameters).

    The scores, weights and output are the head's own (the heatmaps show the same numbers); the
    intermediate products are recomputed here from its q, k and parameters, the way the score function
    computes them, and the exponentials from its scores.
    """
    q = head.q[step]  # (d_k,) the query
    k, v = head.k, head.v  # (n_k, d_k), (n_k, d_v)
    mask = head.mask[step]  # (n_k,) True where the query may see the key
    scores = head.scores[step]  # (n_k,) stage 1
    weights = head.weights[step]  # (n_k,) stage 2
    parameters = head.parameters or {}
    board: dict = {"q": q, "k": k, "mask": mask, "scores": scores}
    if score in ("dot", "scaled_dot", "cosine"):
        board["dots"] = k @ q  # (n_k,) q·k_j
    if score == "scaled_dot":
        board["scale"] = math.sqrt(q.shape[-1])  # the scores are q·k_j / √d_k
    if score == "cosine":
        board["norms"] = np.linalg.norm(q) * np.linalg.norm(k, axis=-1)  # (n_k,) |q| |k_j|
    if score == "general":
        board["qW"] = q @ parameters["W"]  # (d_k,) then s_j = (qᵀW)·k_j
    if score == "additive":
        board["W1q"] = parameters["W1"] @ q  # (d_a,)
        board["W2k"] = k @ parameters["W2"].T  # (n_k, d_a)
        board["hidden"] = np.tanh(board["W1q"][None, :] + board["W2k"])  # (n_k, d_a), s_j = v·hidden_j
    if not hard:
        visible = scores[mask]
        # The exponentials as written on the board: e^(s/T), or e^((s - max)/T) when e^(s/T) would not print.
        shift = float(visible.max()) if np.abs(visible / temperature).max() > PRINTABLE_EXPONENT else 0.0
        exponentials = np.where(mask, np.exp((scores - shift) / temperature), 0.0)  # (n_k,)
        board.update(shift=shift, temperature=temperature, exponentials=exponentials, total=exponentials.sum())
    board["weights"] = weights  # exponential / sum (soft), or 0 and 1 (hard)
    board["weighted_values"] = weights[:, None] * v  # (n_k, d_v) each weight × its value
    board["output"] = head.output[step]  # (d_v,) stage 3: the sum of the weighted values
    norms = head.value_norms  # (n_k,) ‖v_j W_O[h]‖, where the head knows its W_O (else None)
    if norms is not None:  # weight × value norm (Kobayashi et al. 2020): what each key puts into the output
        contributions = weights * norms  # (n_k,) α_j ‖v_j W_O[h]‖, norms.weighted_norms of one row
        board["value_norms"] = norms
        board["contributions"] = contributions
        board["contribution_shares"] = shares(contributions)  # (n_k,) of the step's total
    return board
