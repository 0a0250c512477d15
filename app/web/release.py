"""Memory back to the system once a burst is over: a policy of the worker's lifespan, not of each request.

glibc's malloc keeps what a process frees in its heaps, for reuse. A burst of real-model views (every
layer's arrays computed, in several worker threads) would leave a worker at three times its resting
size long after. So a task started with the app asks malloc once a second how much free memory its
heaps keep (mallinfo2's fordblks); when that has grown by GROWN_BYTES (64 MiB) over what it was after
the last release, has stopped growing (less than SETTLED_BYTES more than a second before) and the
burst is over (the process used less than QUIET_CPU of a CPU in that second, so a trim never takes
malloc's locks from requests being computed), `malloc_trim(0)` hands the free pages of every heap back
to the system, in a worker thread. Memory in use (the models' weights as they load) is not free
memory: it never starts a trim. (Making malloc give large blocks their own mmap instead, with a fixed
M_MMAP_THRESHOLD, returns memory too but costs a third more CPU per model view: bench/README.md.)
Without glibc the task is not started.
"""

import asyncio
import contextlib
import ctypes
import ctypes.util
import time
from collections.abc import AsyncIterator, Callable

GROWN_BYTES = 64 * 1024 * 1024
SETTLED_BYTES = 4 * 1024 * 1024
PERIOD_SECONDS = 1.0
QUIET_CPU = 0.2  # CPU seconds per second of the whole process (all threads)


class MallInfo2(ctypes.Structure):
    """glibc's struct mallinfo2 (every field a size_t)."""

    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks")
    ] + [("keepcost", ctypes.c_size_t)]


def glibc() -> tuple[Callable[[], object], Callable[[], int]] | None:
    """malloc_trim(0) and the free bytes malloc's heaps keep, if the C library has both (glibc 2.33+ does)."""
    name = ctypes.util.find_library("c")
    library = ctypes.CDLL(name) if name else None
    trim, info = getattr(library, "malloc_trim", None), getattr(library, "mallinfo2", None)
    if trim is None or info is None:
        return None
    info.restype = MallInfo2
    return (lambda: trim(0)), (lambda: info().fordblks)


class MemoryRelease:
    """Decides, from one reading of the heaps' free bytes a period, when to trim; counts the trims."""

    def __init__(
        self,
        trim: Callable[[], object],
        free_bytes: Callable[[], int],
        cpu_seconds: Callable[[], float] = time.process_time,
        period: float = PERIOD_SECONDS,
    ):
        self.trim = trim
        self.free_bytes = free_bytes
        self.cpu_seconds = cpu_seconds
        self.period = period
        self.cpu_before: float | None = None
        self.baseline: int | None = None  # the free bytes after the last release (or the least since)
        self.previous: int | None = None  # the reading before
        self.trims = 0

    def due(self) -> bool:
        """Read the free bytes and the CPU time: have the free bytes grown by GROWN_BYTES since the baseline
        and stopped growing, while the process was quiet for a period?"""
        now, cpu = self.free_bytes(), self.cpu_seconds()
        if self.baseline is None or now < self.baseline:
            self.baseline = now
        settled = self.previous is not None and now - self.previous < SETTLED_BYTES
        quiet = self.cpu_before is not None and cpu - self.cpu_before < QUIET_CPU * self.period
        self.previous, self.cpu_before = now, cpu
        return settled and quiet and now - self.baseline >= GROWN_BYTES

    def release(self) -> None:
        """Trim (in a worker thread: it walks every heap), then count from what is left. The pages of a
        trimmed free chunk go back to the system but malloc still counts the chunk as free."""
        self.trims += 1
        self.trim()
        self.baseline = self.previous = self.free_bytes()
        self.cpu_before = self.cpu_seconds()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.period)
            if self.due():
                await loop.run_in_executor(None, self.release)


@contextlib.asynccontextmanager
async def memory_released_after_bursts(period: float = PERIOD_SECONDS) -> AsyncIterator[MemoryRelease | None]:
    """The policy running for as long as the block (the app's lifespan) lasts; None without glibc."""
    functions = glibc()
    if functions is None:
        yield None
        return
    policy = MemoryRelease(*functions, period=period)
    task = asyncio.create_task(policy.run(), name="memory-release")
    try:
        yield policy
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
