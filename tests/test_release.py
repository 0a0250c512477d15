"""Freed memory goes back to the system once a burst is over (app.web.release: a policy of the lifespan).

The effect on a worker's memory is measured by bench/bench_memory.py; here, when the trim happens, from
made-up readings of the resident size (one per period)."""

import threading

from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.web.release import GROWN_BYTES, SETTLED_BYTES, MemoryRelease, glibc_trim, resident_bytes

REST = 300 * 1024 * 1024


def trims_for(readings):
    """The policy's checks, one per reading (a trim reads once more: the next reading); how many trims ran."""
    readings = iter(readings)
    ran = threading.Semaphore(0)
    policy = MemoryRelease(trim=ran.release, resident=lambda: next(readings))
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


def test_two_bursts_apart_get_a_trim_each():
    grown = REST + GROWN_BYTES
    assert trims_for([REST, grown, grown, REST, REST, grown, grown, REST, REST]) == 2


def test_small_growth_never_trims():
    below = REST + GROWN_BYTES - 1
    assert trims_for([REST, below, below, below, REST, below, below]) == 0


def test_this_system_can_trim():
    trim = glibc_trim()
    assert trim is not None, "Debian's glibc has malloc_trim"
    trim()
    assert resident_bytes() > 10 * 1024 * 1024, "a Python process with numpy takes more than 10 MiB"


def test_the_policy_runs_for_the_apps_lifespan():
    web = create_app(Settings(access_log=False))
    with TestClient(web):
        policy = web.state.memory_release
        assert isinstance(policy, MemoryRelease)
