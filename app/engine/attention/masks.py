"""Which keys each query may see.

global attention   every key
local attention    only keys within `window` positions of the query's aligned position
causal mask        (self-attention) only keys at or before the query's own position
"""

import numpy as np


def aligned_positions(n_queries: int, n_keys: int) -> np.ndarray:
    """Position of the key each query is aligned with, for local attention.

    Query i of m is aligned with key round(i * (n - 1) / (m - 1)) of n, rounding halves up.
    In self-attention (m == n) this is i itself; in cross-attention it spreads the target
    steps evenly over the source sentence. A single query is aligned with key 0.
    """
    if n_queries == 1:
        return np.zeros(1, dtype=int)  # (1,)
    i = np.arange(n_queries)  # (n_q,)
    return np.floor(i * (n_keys - 1) / (n_queries - 1) + 0.5).astype(int)  # (n_q,)


def attention_mask(n_queries: int, n_keys: int, *, window: int | None = None, causal: bool = False) -> np.ndarray:
    """Boolean (n_q, n_k) matrix, True where query i may see key j. Every row sees at least one key."""
    mask = np.ones((n_queries, n_keys), dtype=bool)  # (n_q, n_k) global attention
    query_index = np.arange(n_queries)[:, None]  # (n_q, 1)
    key_index = np.arange(n_keys)[None, :]  # (1, n_k)
    if window is not None:
        centre = aligned_positions(n_queries, n_keys)[:, None]  # (n_q, 1)
        mask &= np.abs(key_index - centre) <= window
    if causal:
        if n_queries != n_keys:
            raise ValueError("a causal mask needs as many queries as keys (self-attention)")
        mask &= key_index <= query_index
    return mask
