"""Single-head and multi-head attention built from the three stages.

Multi-head attention (seed text, section 9): every head h has its own projections
W_Q[h], W_K[h], W_V[h] (d_model -> d_k) and runs the three stages on its own; the heads'
outputs are concatenated and projected by W_O (d_model -> d_model).

All heads run the stages at once, as one stack (a leading axis of heads, as stages.py allows), from
W_Q, W_K and W_V that keep the heads' columns side by side (`Projections`).

Projection "named" gives each head a question in words (named_heads.py): W_Q and W_K over the
named features, W_V the identity, W_O the average of the heads. Projection "identity" is the
X·Xᵀ picture: Q = K = V = X; with several heads, head h then sees its own slice of the features
(its projections are columns of the identity matrix). Projection "random" draws seeded Gaussian
matrices instead, as an untrained Transformer would.
"""

import functools
import math
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
    value_norms: np.ndarray | None = None  # (n_k,) ‖v_j W_O[h]‖ when asked for (norms.py; compute.py: the head shown)


@dataclass
class MultiHeadResult:
    stack: HeadResult  # every head's stages at once: q (n_heads, n_q, d), ..., weights (n_heads, n_q, n_k)
    widths: tuple[int, ...]  # (n_heads,) each head's own d_k: its columns of the stack's q and k
    head_parameters: tuple[dict, ...]  # (n_heads,) name -> the learned matrices each head used
    output: np.ndarray  # (n_q, d_model) heads concatenated, then projected by W_O
    parameters: dict  # {"W_O": (n_heads * d_v, d_model)}

    @property
    def weights(self) -> np.ndarray:
        return self.stack.weights  # (n_heads, n_q, n_k) every head's stage-2 weights

    def head(self, h: int) -> HeadResult:
        """Head h's own stages, cut from the stack (a view answers with one head: only that one is cut)."""
        stack, width = self.stack, self.widths[h]
        return HeadResult(
            q=stack.q[h, :, :width],  # the head's own columns
            k=stack.k[h, :, :width],
            v=stack.v[h],
            scores=stack.scores[h],
            mask=stack.mask,
            weights=stack.weights[h],
            output=stack.output[h],
            parameters=self.head_parameters[h],
        )

    @property
    def heads(self) -> list[HeadResult]:
        """Every head, cut anew on each access (set a field on a head you keep, not on `heads[h]`)."""
        return [self.head(h) for h in range(len(self.widths))]


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
    d_k: np.ndarray | None = None,
) -> HeadResult:
    """The three stages for one head, on given queries, keys and values.

    Or for a stack of heads at once (q (n_heads, n_q, d_k), k and v alike, each parameter with a leading
    axis of heads) with one mask; heads padded with zero columns to one width pass their own widths `d_k`."""
    # q (n_q, d_k), k (n_k, d_k), v (n_k, d_v)
    if mask is None:
        mask = attention_mask(q.shape[-2], k.shape[-2])  # (n_q, n_k)
    scores = similarity(score, q, k, parameters, d_k)  # (n_q, n_k) stage 1
    # stage 2: one-hot rows (hard) or a softmax distribution (soft)
    weights = hard_weights(scores, mask) if hard else softmax_weights(scores, mask, temperature)  # (n_q, n_k)
    output = weighted_sum(weights, v)  # (n_q, d_v) stage 3
    return HeadResult(q, k, v, scores, mask, weights, output, dict(parameters or {}))


@dataclass(frozen=True)
class Projections:
    """Every head's W_Q, W_K and W_V side by side, as a Transformer keeps them, and W_O.

    Head h owns the columns h*d ... h*d + d_k[h] of W_Q and W_K (d: the widest head's d_k; a narrower head's
    other columns are zero, which adds only 0·0 terms to its dot products) and h*d_v ... of W_V."""

    W_Q: np.ndarray  # (d_model, n_heads * d)
    W_K: np.ndarray  # (d_model, n_heads * d)
    W_V: np.ndarray  # (d_model, n_heads * d_v)
    W_O: np.ndarray  # (n_heads * d_v, d_model)
    widths: tuple[int, ...]  # (n_heads,) each head's own d_k

    @functools.cached_property
    def each_head(self) -> tuple[dict[str, np.ndarray], ...]:
        """Every head's own W_Q, W_K (d_model, d_k) and W_V (d_model, d_v), sliced once (the named heads'
        Projections serve every request)."""
        n_heads = len(self.widths)
        d, d_v = self.W_Q.shape[1] // n_heads, self.W_V.shape[1] // n_heads
        return tuple(
            {
                "W_Q": self.W_Q[:, h * d : h * d + d_k],
                "W_K": self.W_K[:, h * d : h * d + d_k],
                "W_V": self.W_V[:, h * d_v : (h + 1) * d_v],
            }
            for h, d_k in enumerate(self.widths)
        )


def projection_matrices(
    projection: str, d_model: int, n_heads: int, rng: np.random.Generator | None, **named: object
) -> Projections:
    """Each head's W_Q, W_K, W_V, and W_O.

    identity and random: the heads' column slices of one (d_model, d_model) matrix per projection, drawn
    from rng in the order W_Q, W_K, W_V, W_O when random; W_O is (d_model, d_model).
    named: the named heads' matrices (named_heads.py); W_V = I and W_O = [I/H; ...; I/H], the average.
    """
    if projection == "named":
        return named_projections(named["kind"], n_heads, tuple(named["inputs"]))
    if projection == "identity":
        W_Q = W_K = W_V = W_O = np.eye(d_model)  # (d_model, d_model)
    elif projection == "random":
        scale = 1.0 / np.sqrt(d_model)  # keeps the projected vectors about as long as the inputs
        W_Q, W_K, W_V, W_O = (rng.standard_normal((d_model, d_model)) * scale for _ in range(4))
    else:
        raise ValueError(f"unknown projection {projection!r}")
    if d_model % n_heads:
        raise ValueError(f"{n_heads} heads do not divide the dimension {d_model}")
    return Projections(W_Q, W_K, W_V, W_O, (d_model // n_heads,) * n_heads)


@functools.lru_cache(maxsize=64)
def named_projections(kind: str, n_heads: int, inputs: tuple[str, ...]) -> Projections:
    """The named heads' matrices side by side, written once per kind, number of heads and column names."""
    heads = named_heads(kind, n_heads)
    matrices = [head.matrices(inputs) for head in heads]  # (W_Q, W_K) per head, each (d_model, d_k)
    widths = tuple(W_Q.shape[1] for W_Q, _ in matrices)
    d_model, d = len(inputs), max(widths)
    W_Q, W_K = np.zeros((d_model, n_heads * d)), np.zeros((d_model, n_heads * d))
    for h, (head_W_Q, head_W_K) in enumerate(matrices):
        W_Q[:, h * d : h * d + widths[h]] = head_W_Q
        W_K[:, h * d : h * d + widths[h]] = head_W_K
    identity = np.eye(d_model)  # (d_model, d_model)
    W_V = np.hstack([identity] * n_heads)  # (d_model, n_heads * d_model)
    W_O = np.vstack([identity / n_heads] * n_heads)  # (n_heads * d_model, d_model)
    for matrix in (W_Q, W_K, W_V, W_O):
        matrix.setflags(write=False)  # shared by every request
    return Projections(W_Q, W_K, W_V, W_O, widths)


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """(n, n_heads * d) -> (n_heads, n, d): each head's own columns."""
    return np.swapaxes(x.reshape(len(x), n_heads, -1), 0, 1)


def score_parameters(score: str, d_k: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Seeded learned parameters for the general and additive scores (empty for the others)."""
    scale = 1.0 / math.sqrt(d_k)
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
    learned_scores = bool(score_parameter_shapes(score, 1))  # general and additive learn parameters of their own
    # The seed's generator, drawn from in the order W_Q, W_K, W_V, W_O, then each head's score parameters. Made
    # only when something is drawn: making one costs more than the rest of a short sentence's heads.
    rng = np.random.default_rng(seed) if projection == "random" or learned_scores else None
    projections = projection_matrices(projection, d_model, n_heads, rng, inputs=inputs, kind=kind)
    mask = attention_mask(len(x_q), len(x_kv), window=window, causal=causal)  # (n_q, n_k)

    # Every head at once, as a stack: a leading axis of heads passes through the three stages.
    q = split_heads(x_q @ projections.W_Q, n_heads)  # (n_heads, n_q, d_k)
    k = split_heads(x_kv @ projections.W_K, n_heads)  # (n_heads, n_k, d_k)
    if stretch != 1:
        q, k = q * stretch, k * stretch  # longer (or shorter) vectors, the same directions
    v = split_heads(x_kv @ projections.W_V, n_heads)  # (n_heads, n_k, d_v)
    # each head's own score parameters, drawn head after head
    learned = [score_parameters(score, width, rng) if learned_scores else {} for width in projections.widths]
    widths = np.array(projections.widths)[:, None, None]  # (n_heads, 1, 1) scaled_dot divides by each one's √d_k
    stack = single_head_attention(
        q, k, v, score=score, temperature=temperature, hard=hard, mask=mask, parameters=padded(learned), d_k=widths
    )
    concatenated = np.swapaxes(stack.output, 0, 1).reshape(len(x_q), -1)  # (n_q, n_heads * d_v)
    output = concatenated @ projections.W_O  # (n_q, d_model)
    each_head = tuple({**projections.each_head[h], **learned[h]} for h in range(n_heads))
    return MultiHeadResult(stack, projections.widths, each_head, output, {"W_O": projections.W_O})


def padded(learned: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Each head's score parameters stacked (name -> (n_heads, ...)), narrower heads' padded with zeros."""
    stacked = {}
    for name in learned[0]:
        arrays = [parameters[name] for parameters in learned]
        shape = np.max([a.shape for a in arrays], axis=0)
        stacked[name] = np.zeros((len(arrays), *shape))
        for h, array in enumerate(arrays):
            stacked[name][(h, *(slice(0, n) for n in array.shape))] = array
    return stacked
