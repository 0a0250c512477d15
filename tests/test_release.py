"""Freed memory goes back to the system once large answers stop (app.web.release).

The effect on a worker's memory is measured by bench/bench_memory.py; here, when the trim happens."""

import asyncio
import threading

from app.web.release import LARGE_ANSWER_BYTES, ReleaseMemory, glibc_trim
from tests.support.asgi import call, http_scope, run_async

QUIET = 0.05


async def sized_answer(scope, receive, send):
    """An answer of as many bytes as the query string says."""
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": bytes(int(scope["query_string"]))})


def trims_after(sizes, pause_between=0.0):
    """Send answers of these sizes one after the other; how many trims ran once all was quiet."""
    done = threading.Semaphore(0)

    async def run():
        layer = ReleaseMemory(sized_answer, trim=done.release, quiet_seconds=QUIET)
        for size in sizes:
            await call(layer, http_scope("/api/attention", str(size).encode()))
            await asyncio.sleep(pause_between)
        await asyncio.sleep(QUIET * 4)
        return layer.trims

    trims = run_async(run)
    for _ in range(trims):
        assert done.acquire(timeout=10), "a trim was started but never ran"
    return trims


def test_a_large_answer_is_followed_by_one_trim():
    assert trims_after([LARGE_ANSWER_BYTES]) == 1


def test_a_burst_of_large_answers_is_followed_by_one_trim():
    assert trims_after([LARGE_ANSWER_BYTES] * 5) == 1


def test_two_bursts_apart_get_a_trim_each():
    assert trims_after([LARGE_ANSWER_BYTES, LARGE_ANSWER_BYTES], pause_between=QUIET * 4) == 2


def test_small_answers_never_trim():
    assert trims_after([LARGE_ANSWER_BYTES - 1, 10, 0]) == 0


def test_this_system_can_trim():
    trim = glibc_trim()
    assert trim is not None, "Debian's glibc has malloc_trim"
    trim()
