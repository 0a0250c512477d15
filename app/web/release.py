"""Memory back to the system after large answers.

glibc's malloc keeps what a process frees in its heaps, for reuse. A burst of real-model views (every
layer's arrays computed, in several worker threads) would leave a worker at three times its resting
size long after. So once the last large answer has gone out and a second has passed without another,
`malloc_trim(0)` hands the free pages of every heap back to the system, in a worker thread. (Making
malloc give large blocks their own mmap instead, with a fixed M_MMAP_THRESHOLD, returns memory too but
costs a third more CPU per model view: bench/README.md.) Elsewhere than glibc this layer does nothing.
"""

import asyncio
import ctypes
import ctypes.util
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LARGE_ANSWER_BYTES = 1024 * 1024
QUIET_SECONDS = 1.0


def glibc_trim() -> Callable[[], object] | None:
    """malloc_trim(0) of the C library, if it has one (glibc does)."""
    name = ctypes.util.find_library("c")
    library = ctypes.CDLL(name) if name else None
    trim = getattr(library, "malloc_trim", None)
    return (lambda: trim(0)) if trim is not None else None


class ReleaseMemory:
    def __init__(self, app: ASGIApp, trim: Callable[[], object] | None = None, quiet_seconds: float = QUIET_SECONDS):
        self.app = app
        self.trim = trim if trim is not None else glibc_trim()
        self.quiet_seconds = quiet_seconds
        self.pending: asyncio.TimerHandle | None = None
        self.trims = 0  # how many times memory was handed back (tests read it)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.trim is None:
            return await self.app(scope, receive, send)
        sent = 0

        async def counted(message: Message) -> None:
            nonlocal sent
            if message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, counted)
        finally:
            if sent >= LARGE_ANSWER_BYTES:
                self.trim_when_quiet()

    def trim_when_quiet(self) -> None:
        """Trim `quiet_seconds` after the last large answer (each one puts it off again)."""
        loop = asyncio.get_running_loop()
        if self.pending is not None:
            self.pending.cancel()
        self.pending = loop.call_later(self.quiet_seconds, self.start_trim, loop)

    def start_trim(self, loop: asyncio.AbstractEventLoop) -> None:
        self.pending = None
        self.trims += 1
        loop.run_in_executor(None, self.trim)
