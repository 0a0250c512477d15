"""Freed memory goes back to the system once a burst is over (app.web.release: a policy of the lifespan).

The effect on a worker's memory is measured by bench/bench_memory.py; here, when the trim happens, from
made-up readings of the free bytes malloc's heaps keep (one per period)."""

import threading

from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.web.release import GROWN_BYTES, SETTLED_BYTES, MemoryRelease, glibc

REST = 3 * 1024 * 1024


def trims_for(readings, busy=()):
    """The policy's checks, one per reading (a trim reads once more: the next reading); how many trims ran.
    `busy`: the checks (by number) after a period in which the process used a whole CPU."""
    readings = iter(readings)
    checks = iter(range(10_000))
    cpu = [0.0]

    def cpu_seconds():
        cpu[0] += 1.0 if next(checks) in busy else 0.01
        return cpu[0]

    ran = threading.Semaphore(0)
    policy = MemoryRelease(trim=ran.release, free_bytes=lambda: next(readings), cpu_seconds=cpu_seconds)
    try:
        while True:
            if policy.due():
                policy.release()
    except StopIteration:
        pass
    for _ in range(policy.trims):
        assert ran.acquire(timeout=1), "a trim was counted but never ran"
    return policy.trims


def test_a_large_growth_is_followed_by_one_trim_once_it_settles():
    grown = REST + GROWN_BYTES
    assert trims_for([REST, grown, grown, REST, REST, REST]) == 1


def test_no_trim_while_memory_still_grows():
    step = 2 * SETTLED_BYTES
    assert trims_for([REST + n * step for n in range(GROWN_BYTES // step * 3)]) == 0


def test_a_burst_of_growth_is_followed_by_one_trim():
    step = 2 * SETTLED_BYTES
    burst = [REST + n * step for n in range(GROWN_BYTES // step * 2)]
    top = burst[-1]
    assert trims_for([*burst, top, REST, REST, REST]) == 1


def test_no_trim_while_the_process_is_busy():
    grown = REST + GROWN_BYTES
    assert trims_for([REST, grown, grown, grown, grown], busy={2, 3, 4}) == 0
    assert trims_for([REST, grown, grown, grown, grown], busy={2, 3}) == 1, "once quiet, the trim comes"


def test_two_bursts_apart_get_a_trim_each():
    grown = REST + GROWN_BYTES
    assert trims_for([REST, grown, grown, REST, REST, grown, grown, REST, REST]) == 2


def test_small_growth_never_trims():
    below = REST + GROWN_BYTES - 1
    assert trims_for([REST, below, below, below, REST, below, below]) == 0


def test_this_system_can_trim_and_count_free_bytes():
    functions = glibc()
    assert functions is not None, "Debian's glibc has malloc_trim and mallinfo2"
    trim, free_bytes = functions
    # 160 MB from malloc's heaps (each block above pymalloc's 512 bytes), every other block freed: holes
    # between blocks in use, which free() cannot give back by itself (only the top of a heap).
    blocks = [bytearray(4096) for _ in range(40_000)]
    before = free_bytes()
    del blocks[::2]
    assert free_bytes() - before > 64 * 1024 * 1024, "what was freed is kept in the heaps, and counted"
    trim()
    del blocks


def test_the_policy_runs_for_the_apps_lifespan():
    web = create_app(Settings(access_log=False))
    with TestClient(web):
        policy = web.state.memory_release
        assert isinstance(policy, MemoryRelease)
