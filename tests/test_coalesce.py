"""Simultaneous requests for one new link compute it once (single flight, app.web.shared.SharedAnswers).

Deterministic: the computation is held at a gate until every request has arrived, then counted. The CPU
time of 16 simultaneous requests against one is measured by bench/bench_stampede.py.
"""

import asyncio
import threading

import httpx
import pytest

import app.web.api
from app.main import create_app
from app.view.compute import is_light
from app.view.links import state_from_query
from app.web.shared import SharedAnswers, answer_key
from tests.support.asgi import body_of, call, http_scope, run_async

# Longer than app.view.compute.LIGHT_CHARACTERS: computed in a worker thread, where the gate can hold it.
LINK = "/api/attention?source=" + "+".join(["the", "whole", "class", "opens", "the", "same", "link"] * 3) + "&heads=2"
CLASS = 16


def layer(app, kind):
    """The middleware instance of this kind in the app's stack (each layer keeps the next in .app)."""
    while not isinstance(app, kind):
        app = app.app
    return app


async def until(condition, what, seconds=30.0):
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def gated_compute(monkeypatch):
    """compute_view of the API, counted and held until the gate opens (it runs in a worker thread)."""
    gate, calls = threading.Event(), []
    original = app.web.api.compute_view

    def compute(state):
        calls.append(state)
        assert gate.wait(30), "the gate never opened"
        return original(state)

    monkeypatch.setattr(app.web.api, "compute_view", compute)
    yield gate, calls
    gate.set()


def class_asks_at_once(gated_compute, methods: list[str], headers: dict | None = None) -> tuple[list, int]:
    """A new app asked for LINK once per method, all at once; the gate opens once the first request computes
    and every other one waits for it. The answers, and how many computations the layer counted."""
    gate, calls = gated_compute
    web = create_app()

    async def class_asks():
        transport = httpx.ASGITransport(app=web)
        async with httpx.AsyncClient(transport=transport, base_url="http://lens") as client:
            requests = [asyncio.create_task(client.request(method, LINK, headers=headers)) for method in methods]
            await until(lambda: calls, "the first request to compute")
            coalesce = layer(web, SharedAnswers)
            flights = coalesce.in_flight.values()
            await until(lambda: sum(f.followers for f in flights) == len(methods) - 1, "every other request to wait")
            gate.set()
            return await asyncio.gather(*requests), coalesce.computed

    return run_async(class_asks)


@pytest.mark.parametrize("headers", [{}, {"accept-encoding": "gzip"}, {"accept-language": "zh"}])
def test_a_class_opening_one_new_link_computes_it_once(gated_compute, headers):
    _, calls = gated_compute
    assert not is_light(state_from_query(LINK.split("?", 1)[1]))
    answers, computed = class_asks_at_once(gated_compute, ["GET"] * CLASS, headers)
    assert len(calls) == 1 and computed == 1
    assert {answer.status_code for answer in answers} == {200}
    assert len({answer.content for answer in answers}) == 1
    assert len({answer.headers["etag"] for answer in answers}) == 1
    assert all(answer.headers["x-frame-options"] == "DENY" for answer in answers), "followers get the headers too"


def test_heads_and_gets_of_one_new_link_share_one_computation(gated_compute):
    _, calls = gated_compute
    methods = ["HEAD", "GET"] * (CLASS // 2)
    answers, computed = class_asks_at_once(gated_compute, methods)
    assert len(calls) == 1 and computed == 1
    assert {answer.status_code for answer in answers} == {200}
    assert len({answer.headers["etag"] for answer in answers}) == 1
    bodies = {
        method: {answer.content for m, answer in zip(methods, answers, strict=True) if m == method}
        for method in ("HEAD", "GET")
    }
    assert bodies["HEAD"] == {b""} and len(bodies["GET"]) == 1 and b"" not in bodies["GET"]


def test_requests_for_different_answers_are_not_shared(gated_compute):
    gate, calls = gated_compute
    gate.set()
    web = create_app()

    async def two_kinds():
        transport = httpx.ASGITransport(app=web)
        async with httpx.AsyncClient(transport=transport, base_url="http://lens") as client:
            return await asyncio.gather(
                client.get(LINK, headers={"accept-encoding": "gzip"}),
                client.get(LINK, headers={"accept-encoding": "identity"}),
                client.get(LINK + "&step=1"),
            )

    zipped, plain, other = run_async(two_kinds)
    assert len(calls) == 3
    assert zipped.headers["content-encoding"] == "gzip" and "content-encoding" not in plain.headers
    assert other.content != plain.content


async def held_answer(gate, calls, fail_first=False):
    """A fake route: counts its calls, waits for the gate, fails the first time if told to."""

    async def route(scope, receive, send):
        calls.append(scope["query_string"])
        await gate.wait()
        if fail_first and len(calls) == 1:
            raise RuntimeError("the leader fails before answering")
        await send({"type": "http.response.start", "status": 200, "headers": [(b"etag", b'W/"1"')]})
        await send({"type": "http.response.body", "body": b"answer %d" % len(calls)})

    return route


def test_followers_compute_their_own_when_the_leader_fails_without_an_answer():
    async def run():
        gate, calls = asyncio.Event(), []
        coalesce = SharedAnswers(await held_answer(gate, calls, fail_first=True), max_bytes=0)
        scope = http_scope("/api/attention", b"q=1")
        leader = asyncio.create_task(call(coalesce, dict(scope)))
        await until(lambda: calls, "the leader")
        followers = [asyncio.create_task(call(coalesce, dict(scope))) for _ in range(3)]
        await until(lambda: coalesce.in_flight[answer_key(scope)].followers == 3, "the followers")
        gate.set()
        with pytest.raises(RuntimeError):
            await leader
        return [body_of(messages) for messages in await asyncio.gather(*followers)], calls, coalesce

    bodies, calls, coalesce = run_async(run)
    assert len(calls) == 4 and sorted(bodies) == [b"answer 2", b"answer 3", b"answer 4"]
    assert coalesce.in_flight == {}


def test_a_follower_that_goes_away_does_not_cancel_the_others():
    async def run():
        gate, calls = asyncio.Event(), []
        coalesce = SharedAnswers(await held_answer(gate, calls), max_bytes=0)
        scope = http_scope("/", b"source=a")
        tasks = [asyncio.create_task(call(coalesce, dict(scope))) for _ in range(3)]
        key = answer_key(scope)
        await until(lambda: key in coalesce.in_flight and coalesce.in_flight[key].followers == 2, "the followers")
        tasks[1].cancel()
        gate.set()
        leader, gone, other = await asyncio.gather(*tasks, return_exceptions=True)
        return leader, gone, other, calls

    leader, gone, other, calls = run_async(run)
    assert isinstance(gone, asyncio.CancelledError)
    assert body_of(leader) == body_of(other) == b"answer 1"
    assert len(calls) == 1


def test_only_the_deterministic_get_routes_are_coalesced():
    async def run():
        gate, calls = asyncio.Event(), []
        coalesce = SharedAnswers(await held_answer(gate, calls), max_bytes=0)
        tasks = [asyncio.create_task(call(coalesce, http_scope("/healthz"))) for _ in range(3)]
        tasks += [asyncio.create_task(call(coalesce, http_scope("/api/attention", method="POST"))) for _ in range(3)]
        await until(lambda: len(calls) == 6, "every request to reach the route")
        gate.set()
        await asyncio.gather(*tasks)
        return calls

    assert len(run_async(run)) == 6
