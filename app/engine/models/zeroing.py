"""Value zeroing (Mohebbi et al. 2023, "Quantifying Context Mixing in Transformers", EACL, section 3).

An attention weight says where a token looked, not what it took: a large weight on a value vector the rest of
the block ignores moves nothing. Value zeroing asks the whole block instead. For a layer l and a token j:

    1. zero token j's value vector v_j in every head of layer l's attention (queries and keys stay: the
       weights are the same, only what token j hands over is gone);
    2. run the rest of the block again from the same input x^l (W_O, the residual, LayerNorm, the
       feed-forward, LayerNorm): every token i gets an output x~_i^(-j);
    3. C_ij = cosine distance(x~_i^(-j), x_i^(l+1)) = 1 - cos: how much token i's output moved without j;
    4. each row i divided by its sum: C_ij is then token i's share of change that token j accounts for.

The diagonal is kept as it comes, as the paper's code does (hmohebbi/ValueZeroing): C_ii is what zeroing
token i's own value changes in its own output. Token i's residual stream is never zeroed (only the attention's
values are), so C_ii measures the self-mixing that passes through attention, not the residual; the residual
is in every C_ij, as it is in the block.

Rollout across layers (the paper's code, ``compute_joint_attention(..., res=False)``) multiplies the layers'
maps as attention rollout does, WITHOUT adding the identity for the residual: value zeroing runs the whole
block, residual included, so adding it again would count it twice.

Shapes use: n = n_tokens, d = d_model, H = n_heads, dh = d_head, L = n_layers, c = the copies in one pass
(each with one token's value zeroed). Forward passes only: the n zeroed copies of a layer go through the rest
of the block together, c copies (c * n rows) at a time.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from app.engine.attention.stages import weighted_sum
from app.engine.attention.summaries import attention_rollout
from app.engine.models.encoder import BertParams, LayerParams, after_attention

# Rows through the rest of the block in one pass: the feed-forward's (rows, 1536) float32 activations are then
# 12 MB at most, whatever the sentence's length (a 128-piece sentence has 16,384 rows per layer).
ROWS_PER_PASS = 2048


def zeroed_values(v: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Copies of one layer's values, copy j with token j's value zeroed in every head, for j in [start, stop).
    v (H, n, dh) -> (c, H, n, dh)."""
    copies = np.repeat(v[None], stop - start, axis=0)  # (c, H, n, dh)
    zeroed = np.arange(start, stop)  # (c,) the token each copy loses
    copies[np.arange(stop - start), :, zeroed] = 0.0  # copy c, every head, token start + c
    return copies


def heads_side_by_side(context: np.ndarray) -> np.ndarray:
    """The heads' outputs of each copy next to each other, as W_O reads them: (c, H, n, dh) -> (c * n, d)."""
    c, H, n, dh = context.shape
    return context.transpose(0, 2, 1, 3).reshape(c * n, H * dh)


def cosine_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """1 - cos(a_r, b_r) for each pair of rows, in float64. a (..., d), b (..., d) broadcast together -> (...).

    Taken as |a/|a| - b/|b||^2 / 2, the same number without subtracting from 1 a cosine near 1: the distances are
    small (a zeroed token moves an output a little), and two equal rows are exactly 0 apart."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    a /= np.linalg.norm(a, axis=-1, keepdims=True)
    b /= np.linalg.norm(b, axis=-1, keepdims=True)
    return 0.5 * np.square(a - b).sum(axis=-1)


def normalised_rows(distances: np.ndarray) -> np.ndarray:
    """Each row divided by its sum, the paper's normalisation (a row of zeros stays zeros). (n, n) -> (n, n)."""
    totals = distances.sum(axis=-1, keepdims=True)  # (n, 1)
    return np.divide(distances, totals, out=np.zeros_like(distances), where=totals > 0)


def layer_zeroing(x: np.ndarray, weights: np.ndarray, v: np.ndarray, lp: LayerParams, params: BertParams) -> np.ndarray:
    """One layer's value-zeroing map. x (n, d) the layer's input, weights (H, n, n) its attention weights,
    v (H, n, dh) its values -> (n, n): row i, how token i's output of the layer depends on each token j."""
    cfg = params.config
    n = x.shape[0]
    unzeroed = weighted_sum(weights, v)[None]  # (1, H, n, dh) stage 3 as the run computed it
    original = after_attention(x, heads_side_by_side(unzeroed), lp, cfg)  # (n, d) the layer's output
    distances = np.empty((n, n))  # [i, j]: token i's output moved by zeroing token j
    per_pass = max(1, ROWS_PER_PASS // n)  # copies per pass
    for start in range(0, n, per_pass):
        stop = min(n, start + per_pass)
        context = weighted_sum(weights, zeroed_values(v, start, stop))  # (c, H, n, dh) stage 3, values zeroed
        inputs = np.tile(x, (stop - start, 1))  # (c * n, d) the same input rows for each copy
        outputs = after_attention(inputs, heads_side_by_side(context), lp, cfg).reshape(stop - start, n, -1)
        distances[:, start:stop] = cosine_distances(outputs, original[None]).T  # (c, n) -> (n, c)
    return normalised_rows(distances)


def value_zeroing(params: BertParams, hidden: np.ndarray, weights: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Every layer's value-zeroing map, from a run's arrays: hidden (L + 1, n, d) each layer's input (then the last
    output), weights (L, H, n, n), v (L, H, n, dh) -> (L, n, n), each row summing to 1.

    Each layer starts from the run's own input to it, so the layers are independent: a helper thread takes every
    other layer (numpy lets go of the GIL in its products), each layer computed the same on either thread."""

    def maps_of(layers: range) -> list[np.ndarray]:
        return [layer_zeroing(hidden[i], weights[i], v[i], params.layers[i], params) for i in layers]

    n_layers = len(params.layers)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="value-zeroing") as helper:
        odd = helper.submit(maps_of, range(1, n_layers, 2))
        even = maps_of(range(0, n_layers, 2))
        maps = [None] * n_layers
        maps[0::2], maps[1::2] = even, odd.result()
    return np.stack(maps)  # (L, n, n)


def zeroing_rollout(maps: np.ndarray) -> np.ndarray:
    """The layers' maps multiplied from the first up, as attention rollout does but adding no identity for the
    residual (each map already includes it): R_1 = C_1, R_l = C_l @ R_(l-1). (L, n, n) -> (L, n, n)."""
    return attention_rollout(maps[:, None], residual=0.0)  # one "head" per layer
