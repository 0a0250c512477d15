"""A worker computes at most THREADS requests at once; /healthz needs no thread.

With 40 threads computing, the event loop waits behind them for Python's GIL and /healthz took over a
second under 100 concurrent heavy requests; bench/bench_stampede.py measures that. Here: the bound holds,
the others wait their turn, and /healthz answers while every thread is busy.
"""

import asyncio
import threading

import anyio.to_thread
import httpx
import pytest

import app.web.api
from app.main import create_app, lifespan
from app.settings import Settings
from app.view.compute import is_light
from app.view.links import state_from_query
from tests.support.asgi import run_async

# Longer than app.view.compute.LIGHT_CHARACTERS: a view computed in a worker thread.
LONG = "+".join(["the", "cat", "sat", "on", "the", "mat"] * 5)


@pytest.fixture
def held_compute(monkeypatch):
    """compute_view of the API, held at a gate; `running` counts the calls inside it right now."""
    gate, lock, state = threading.Event(), threading.Lock(), {"running": 0, "most": 0}
    original = app.web.api.compute_view

    def compute(view_state):
        with lock:
            state["running"] += 1
            state["most"] = max(state["most"], state["running"])
        try:
            assert gate.wait(30), "the gate never opened"
            return original(view_state)
        finally:
            with lock:
                state["running"] -= 1

    monkeypatch.setattr(app.web.api, "compute_view", compute)
    yield gate, state
    gate.set()


def test_at_most_threads_compute_at_once_and_health_answers_meanwhile(held_compute):
    gate, state = held_compute
    bound = Settings().threads
    web = create_app()

    async def many_new_links():
        async with lifespan(web.routes_app):
            limiter = anyio.to_thread.current_default_thread_limiter()
            transport = httpx.ASGITransport(app=web)
            async with httpx.AsyncClient(transport=transport, base_url="http://lens") as client:
                views = [
                    asyncio.create_task(client.get(f"/api/attention?source={LONG}&seed={seed}"))
                    for seed in range(bound + 4)
                ]
                for _ in range(3000):
                    if state["running"] == bound and limiter.statistics().tasks_waiting == 4:
                        break
                    await asyncio.sleep(0.01)
                health = await client.get("/healthz")  # every thread is busy
                waiting = limiter.statistics().tasks_waiting
                gate.set()
                return health, waiting, await asyncio.gather(*views)

    assert not is_light(state_from_query(f"source={LONG}"))
    health, waiting, views = run_async(many_new_links)
    assert health.status_code == 200
    assert waiting == 4 and state["most"] == bound
    assert [view.status_code for view in views] == [200] * (bound + 4)
