"""Memory back to the system once a burst is over: a policy of the worker's lifespan, not of each request.

glibc's malloc keeps what a process frees in its heaps, for reuse. A burst of real-model views (every
layer's arrays computed, in several worker threads) would leave a worker at three times its resting
size long after. So a task started with the app reads the process's resident size once a second; when
it has grown by GROWN_BYTES (64 MiB) over what it was after the last release and has stopped growing
(less than SETTLED_BYTES more than a second before), `malloc_trim(0)` hands the free pages of every
heap back to the system, in a worker thread. (Making malloc give large blocks their own mmap instead,
with a fixed M_MMAP_THRESHOLD, returns memory too but costs a third more CPU per model view:
bench/README.md.) Without glibc or /proc (not Linux) the task is not started.
"""

import asyncio
import contextlib
import ctypes
import ctypes.util
import os
from collections.abc import AsyncIterator, Callable

GROWN_BYTES = 64 * 1024 * 1024
SETTLED_BYTES = 4 * 1024 * 1024
PERIOD_SECONDS = 1.0
STATM = "/proc/self/statm"


def glibc_trim() -> Callable[[], object] | None:
    """malloc_trim(0) of the C library, if it has one (glibc does)."""
    name = ctypes.util.find_library("c")
    library = ctypes.CDLL(name) if name else None
    trim = getattr(library, "malloc_trim", None)
    return (lambda: trim(0)) if trim is not None else None


def resident_bytes() -> int:
    """The process's resident size (Linux: the second field of /proc/self/statm, in pages)."""
    with open(STATM, "rb") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class MemoryRelease:
    """Decides, from one reading of the resident size a period, when to trim; counts the trims."""

    def __init__(self, trim: Callable[[], object], resident: Callable[[], int] = resident_bytes):
        self.trim = trim
        self.resident = resident
        self.baseline: int | None = None  # the resident size after the last release (or at the start)
        self.previous: int | None = None  # the reading before
        self.trims = 0

    def due(self) -> bool:
        """Read the resident size: has it grown by GROWN_BYTES since the baseline, and stopped growing?"""
        now = self.resident()
        if self.baseline is None or now < self.baseline:
            self.baseline = now
        settled = self.previous is not None and now - self.previous < SETTLED_BYTES
        self.previous = now
        return settled and now - self.baseline >= GROWN_BYTES

    def release(self) -> None:
        """Trim (in a worker thread: it walks every heap), then start counting from what is left."""
        self.trims += 1
        self.trim()
        self.baseline = self.previous = self.resident()

    async def run(self, period: float = PERIOD_SECONDS) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(period)
            if self.due():
                await loop.run_in_executor(None, self.release)


@contextlib.asynccontextmanager
async def memory_released_after_bursts(period: float = PERIOD_SECONDS) -> AsyncIterator[MemoryRelease | None]:
    """The policy running for as long as the block (the app's lifespan) lasts; None where it cannot run."""
    trim = glibc_trim()
    if trim is None or not os.path.exists(STATM):
        yield None
        return
    policy = MemoryRelease(trim)
    task = asyncio.create_task(policy.run(period), name="memory-release")
    try:
        yield policy
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
