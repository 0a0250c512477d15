"""The attention engine: pure numpy, no web imports.

Read in this order, like a textbook chapter:

- ``stages.py``    the three stages of the seed text, each a small function:
                   stage 1 similarity scores, stage 2 weights, stage 3 weighted sum.
- ``masks.py``     which keys each query may see (global, local window, causal).
- ``multihead.py`` projections, several heads, concatenation and W_O.
- ``norms.py``     beside the weights, what each key contributes: α_ij ‖v_j W_O[h]‖ (Kobayashi et al. 2020).
"""

from app.engine.attention.masks import attention_mask
from app.engine.attention.multihead import HeadResult, MultiHeadResult, multi_head_attention, single_head_attention
from app.engine.attention.stages import SCORE_FUNCTIONS, hard_weights, similarity, softmax_weights, weighted_sum

__all__ = [
    "SCORE_FUNCTIONS",
    "HeadResult",
    "MultiHeadResult",
    "attention_mask",
    "hard_weights",
    "multi_head_attention",
    "similarity",
    "single_head_attention",
    "softmax_weights",
    "weighted_sum",
]
