"""OpenBLAS's thread count, set while the process runs (numpy's matrix products call OpenBLAS).

The encoder (``bert.py``) splits its work over two threads itself. OpenBLAS's own threads, on top
of that, busy-wait for the next product after each one and take the core the encoder's second
thread needs, so the encoder asks OpenBLAS for one thread. numpy has no call for this (the
environment variable OPENBLAS_NUM_THREADS is read only when numpy loads), so this finds the
OpenBLAS library numpy loaded and calls its ``openblas_set_num_threads``. Linux only (it reads
/proc/self/maps); elsewhere, or with another BLAS, it does nothing.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

# numpy's wheels bundle scipy-openblas (64-bit integers, prefixed names); a system OpenBLAS has the plain name.
SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads")


def loaded_libraries() -> list[str]:
    """The paths of the OpenBLAS shared libraries this process has loaded."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return []
    paths = {line.split(maxsplit=5)[-1] for line in maps.splitlines() if line.count(" ") >= 5}
    return sorted(p for p in paths if "openblas" in Path(p).name.lower())


def use_one_thread() -> bool:
    """Ask every loaded OpenBLAS for one thread; True if one was found."""
    import numpy  # noqa: F401, PLC0415 (loads OpenBLAS, if numpy uses it)

    found = False
    for path in loaded_libraries():
        library = ctypes.CDLL(path)
        for name in SETTERS:
            if hasattr(library, name):
                getattr(library, name)(1)
                found = True
                break
    return found
