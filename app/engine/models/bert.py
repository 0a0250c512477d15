"""A BERT encoder in pure numpy, written to be read.

Computes the forward pass of a pretrained BERT encoder for ONE unpadded sentence
(all-MiniLM-L6-v2 with its float32 weights, multilingual-e5-small with 4-bit weights)
and keeps every intermediate that the attention views need:
per layer and per head Q, K, V, the scaled scores, the softmax weights and the
context vectors, plus the hidden state after the embeddings and after each layer.

Matches Hugging Face ``transformers.BertModel`` (eager attention, eval mode):
post-LayerNorm residual blocks, exact erf GELU, absolute position embeddings,
token type 0 for every token. No attention mask is needed because a single
sentence without padding attends to all its tokens.

Shapes use: n = n_tokens, d = d_model (384), H = n_heads (12),
dh = d_head (32), L = n_layers (6 for MiniLM, 12 for e5), f = d_ff (1536).
Only numpy here: no web code, no file access (``minilm.py`` and ``e5.py`` load the weights).
Both models are the same architecture (checked in ``e5.c``: post-LN blocks, exact erf GELU,
positions counted from 0, token type 0, LayerNorm eps 1e-12); they differ only in their
numbers, their vocabulary, how the word-embedding table is stored (``word_emb.rows``) and
e5's rounding of every matrix product's input to 8 bits, as its C engine does (``round_inputs``).

The types and the row kernel (one block over some rows) live in ``encoder.py``, a leaf that the helper
process (``row_process.py``) and the weights file (``weights_cache.py``) build on too; their names are
also this module's (``bert.BertParams``). This module is the whole pass: the weights arranged, the
embeddings, the rows split over two cores, and ``encode``, which is given the runner of the second half
(``other_half``: the helper process, ``row_process.encode_with_helper``) rather than importing it.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from app.engine.models.encoder import (  # noqa: F401 (the encoder's names, also bert's for its users)
    DTYPE,
    AttentionTrace,
    BertConfig,
    BertParams,
    DenseRows,
    EmbeddingRows,
    EncoderOutput,
    LayerParams,
    MappedFile,
    attention_stages,
    dense,
    encoder_layer,
    erf,
    feed_forward,
    gelu,
    layer_norm,
    layers_for_rows,
    round_to_8_bits,
)

# The runner of a long sentence's second half of rows elsewhere: given ``halves`` (the calling thread's rows,
# then the other's), it takes both through every layer and answers True, or answers False having computed
# nothing (``encode`` then uses the helper thread). The models pass ``row_process.encode_with_helper``.
OtherHalf = Callable[[BertParams, EncoderOutput, list[tuple[int, int]]], bool]


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=DTYPE)
    a.setflags(write=False)  # the cached model is shared by every request
    return a


def params_from_tensors(
    tensors: dict[str, np.ndarray], config: BertConfig, word_emb: EmbeddingRows | None = None
) -> BertParams:
    """Arrange Hugging Face BertModel tensors (``nn.Linear`` stores (out, in)) for ``x @ W``.

    ``word_emb``: the word-embedding table when it is not a plain float32 tensor in ``tensors``
    (e5 keeps it 4-bit). Raises KeyError for a missing tensor and ValueError for a wrong shape.
    """
    d, f = config.d_model, config.d_ff

    def get(name: str, shape: tuple[int, ...]) -> np.ndarray:
        a = tensors[name]
        if a.shape != shape:
            raise ValueError(f"tensor {name} has shape {a.shape}, expected {shape}")
        return a

    def layer(i: int) -> LayerParams:
        p = f"encoder.layer.{i}."
        att = p + "attention."
        w_qkv = np.concatenate([get(att + f"self.{m}.weight", (d, d)).T for m in ("query", "key", "value")], axis=1)
        b_qkv = np.concatenate([get(att + f"self.{m}.bias", (d,)) for m in ("query", "key", "value")])
        return LayerParams(
            w_qkv=_frozen(w_qkv),
            b_qkv=_frozen(b_qkv),
            w_o=_frozen(get(att + "output.dense.weight", (d, d)).T),
            b_o=_frozen(get(att + "output.dense.bias", (d,))),
            ln1_g=_frozen(get(att + "output.LayerNorm.weight", (d,))),
            ln1_b=_frozen(get(att + "output.LayerNorm.bias", (d,))),
            w_in=_frozen(get(p + "intermediate.dense.weight", (f, d)).T),
            b_in=_frozen(get(p + "intermediate.dense.bias", (f,))),
            w_out=_frozen(get(p + "output.dense.weight", (d, f)).T),
            b_out=_frozen(get(p + "output.dense.bias", (d,))),
            ln2_g=_frozen(get(p + "output.LayerNorm.weight", (d,))),
            ln2_b=_frozen(get(p + "output.LayerNorm.bias", (d,))),
        )

    word_name = "embeddings.word_embeddings.weight"
    return BertParams(
        config=config,
        word_emb=word_emb if word_emb is not None else DenseRows(_frozen(get(word_name, (config.vocab_size, d)))),
        pos_emb=_frozen(get("embeddings.position_embeddings.weight", (config.max_positions, d))),
        type_emb=_frozen(get("embeddings.token_type_embeddings.weight", (config.type_vocab_size, d))),
        emb_ln_g=_frozen(get("embeddings.LayerNorm.weight", (d,))),
        emb_ln_b=_frozen(get("embeddings.LayerNorm.bias", (d,))),
        layers=tuple(layer(i) for i in range(config.n_layers)),
    )


# Two cores share a sentence's work by its rows (tokens): each takes its half of the rows through every layer, the
# second half in a helper process (``row_process.py``: two threads of one process each ran about 1.5x slower than
# alone) or, when none is ready, on a helper thread. Only the attention mixes tokens, and it needs only every
# row's key and value: so the halves meet once a layer, when both halves' keys and values are written
# (``layers_for_rows``). Meeting costs: on the 2-CPU virtual machines this runs on (no halt polling), a thread
# that waits is woken 80-140 us later, so the three hand-overs a layer of an earlier version (rows, heads, rows)
# cost much of what the second core gained (bench/README.md). numpy and OpenBLAS release the GIL while they
# compute. OpenBLAS itself is kept to one thread: its own threads busy-wait for work after every product and
# took the core our second thread needed.
SPLIT_MIN_MULTIPLY_ADDS = 1 << 22  # a sentence whose first product has fewer multiply-adds (~0.1 ms) stays whole
# OpenBLAS's kernels take a product's rows in tiles (up to 12 at a time with its Haswell kernel) and a row's
# sums may depend on its place in a tile, so the rows are split only at a multiple of 12: with the Haswell,
# Sandybridge, Nehalem and Prescott kernels the halves are then exactly the whole product. Another CPU's
# kernel may sum a row in another order when split (float32 rounding, tests/test_bert.py bounds it); the split
# depends only on the row count, so every process still gives the same bytes.
ROWS_TOGETHER = 12
split_work = (os.cpu_count() or 1) > 1  # tests switch it off to compare
_helper: tuple[int, ThreadPoolExecutor] | None = None  # (pid, one worker thread), made on first use
_helper_lock = threading.Lock()


def _helper_thread() -> ThreadPoolExecutor:
    global _helper
    with _helper_lock:
        if _helper is None or _helper[0] != os.getpid():  # a forked worker needs its own thread
            _helper = (os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="bert-rows"))
        return _helper[1]


def row_halves(n: int, big_enough: bool) -> list[tuple[int, int]]:
    """The rows [start, stop) each thread takes: two parts split at a multiple of ROWS_TOGETHER, or one."""
    half = round(n / 2 / ROWS_TOGETHER) * ROWS_TOGETHER
    if not split_work or not big_enough or not 0 < half < n:
        return [(0, n)]
    return [(0, half), (half, n)]


def embeddings(p: BertParams, ids: np.ndarray) -> np.ndarray:
    """Token ids (n,) -> word + position + token-type(0) embeddings, LayerNormed. Returns (n, d)."""
    n = ids.shape[0]
    x = p.word_emb.rows(ids) + p.pos_emb[:n] + p.type_emb[0]  # (n, d)
    return layer_norm(x, p.emb_ln_g, p.emb_ln_b, p.config.eps)


def encode(p: BertParams, ids: Sequence[int] | np.ndarray, other_half: OtherHalf | None = None) -> EncoderOutput:
    """Run all layers on token ids (n,) (already with [CLS]/[SEP]) and keep every intermediate. A long
    sentence's second half of rows goes to ``other_half`` when given and able, else to the helper thread."""
    cfg = p.config
    ids = np.asarray(ids, dtype=np.int64)
    n = ids.shape[0]
    if ids.ndim != 1 or n == 0:
        raise ValueError("ids must be a non-empty 1-D sequence")
    if n > cfg.max_positions:
        raise ValueError(f"{n} tokens exceed the {cfg.max_positions} position embeddings")
    if ids.min() < 0 or ids.max() >= cfg.vocab_size:
        raise ValueError("token id out of vocabulary range")

    L, H, dh, d = cfg.n_layers, cfg.n_heads, cfg.d_head, cfg.d_model
    out = EncoderOutput.empty(L, H, n, dh, d)
    out.hidden[0] = embeddings(p, ids)  # (n, d)
    halves = row_halves(n, big_enough=n * d * 3 * d >= SPLIT_MIN_MULTIPLY_ADDS)
    if len(halves) == 1:
        layers_for_rows(p.layers, cfg, out, halves[0])
    elif other_half is None or not other_half(p, out, halves):  # the other half elsewhere, when it can
        _encode_with_helper_thread(p, out, halves)
    return out


def _encode_with_helper_thread(p: BertParams, out: EncoderOutput, halves: list[tuple[int, int]]) -> None:
    """The first half's rows on this thread, the second half's on the helper thread, meeting once a layer."""
    meeting = threading.Barrier(2)  # once a layer, when both halves' keys and values are written

    def rows_through_every_layer(rows: tuple[int, int]) -> None:
        try:
            layers_for_rows(p.layers, p.config, out, rows, meet=meeting.wait)
        except BaseException:
            meeting.abort()  # the other thread stops waiting (threading.BrokenBarrierError) instead of hanging
            raise

    other = _helper_thread().submit(rows_through_every_layer, halves[1])
    with contextlib.suppress(threading.BrokenBarrierError):  # the other thread failed: its error is raised below
        rows_through_every_layer(halves[0])
    other.result()
