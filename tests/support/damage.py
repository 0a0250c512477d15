"""Damaging a copy of a model-sized file in place, through a memory map: only the pages changed are touched,
not 30-90 MB read into memory and written back."""

from __future__ import annotations

import mmap
from pathlib import Path


def overwrite(path: Path, offset: int, data: bytes) -> None:
    """Write `data` over the file's bytes from `offset` (negative: counted from the end)."""
    with path.open("r+b") as file, mmap.mmap(file.fileno(), 0) as mapped:
        start = offset % len(mapped)
        mapped[start : start + len(data)] = data


def flip_bit(path: Path, offset: int | None = None) -> None:
    """Flip the lowest bit of one byte: the one at `offset` (negative: from the end), by default the middle one."""
    with path.open("r+b") as file, mmap.mmap(file.fileno(), 0) as mapped:
        mapped[len(mapped) // 2 if offset is None else offset] ^= 0x01
