"""Float32 error bounds shared by the real models' tests (MiniLM and e5)."""

from __future__ import annotations

import math

import numpy as np


def recomputation_bounds(run) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How far two float32 evaluations of stages 1-3 can differ, per number, in any summation order.

    Each lies within Higham's worst case of the exact result (u = 2^-24, gamma(k) = k u / (1 - k u)):
    scores q k / sqrt(dh): gamma(dh) |q| |k| / sqrt(dh), and u |score| for the division; weights
    exp(s - max) / sum: u |s - max| (the subtraction, magnified by exp), 8 u (numpy's float32 exp is
    within a few ulps), gamma(n) (the n-term sum) and u (the division), relative to the weight;
    context weights @ v: gamma(n) |weights| |v|. Two evaluations: twice that.
    """
    u, dh, n = 2.0**-24, run.q.shape[-1], run.weights.shape[-1]

    def gamma(k):
        return k * u / (1 - k * u)

    q, k, v, s, w = (getattr(run, key).astype(np.float64) for key in ("q", "k", "v", "scores", "weights"))
    scores = gamma(dh) * np.abs(q) @ np.abs(np.swapaxes(k, -1, -2)) / math.sqrt(dh) + u * np.abs(s)
    weights = w * (u * (s.max(-1, keepdims=True) - s) + 8 * u + gamma(n) + u)
    context = gamma(n) * w @ np.abs(v)
    return 2 * scores, 2 * weights, 2 * context
