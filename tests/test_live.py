"""Live classes: rooms, the teacher's updates, students' Server-Sent Events, on one worker
(rooms in the process) and on several workers and machines sharing a real redis-server.

Every server here is real, on a loopback port: the app served in this process with the settings a test
needs (AppServer), the production command with two workers where processes matter (LiveServer), the
session's redis-server and nginx (tests/conftest.py). No mocks. Waits have
generous deadlines (hang guards); nothing asserts how fast this machine is.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import time
from contextlib import AsyncExitStack

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import app.live.rooms
from app.live.rooms import (
    CODE_ALPHABET,
    CODE_LENGTH,
    Hub,
    Limits,
    Listener,
    MemoryRooms,
    Room,
    new_code,
    new_secret,
    normal_code,
    secret_hash,
    secret_matches,
)
from app.view.links import state_from_query
from app.web.live import InvalidView, canonical_view
from tests.support.asgi import body_of, call, http_scope, run_async
from tests.support.live_server import LIVE_CLASS_ENV, LiveServer, live_class_app
from tests.support.nginx import Nginx
from tests.support.pages import page_data
from tests.support.redis_server import RedisServer
from tests.support.sse import Student

GUARD = 60.0  # seconds: a hang guard for waits, never a speed requirement
TTL = 10  # seconds: a room's time in the tests that wait it out (a window the test's own requests must fit in)

VIEW = "source=tom+chases+jerry"
STEPS = [  # the teacher steps, changes stage, then presents (each already in canonical form)
    "source=tom+chases+jerry&step=1&stage=2",
    "source=tom+chases+jerry&step=2&stage=3",
    "source=tom+chases+jerry&step=2&stage=3&present=true",
]


def run(scenario):
    """Run an async scenario to its end, in an event loop of its own (in a thread: the browser tests'
    Playwright may leave a loop running in this one)."""
    return run_async(lambda: scenario)


async def start_room(client: httpx.AsyncClient, view: str | None = VIEW, **headers) -> dict:
    answer = await client.post("/api/rooms", json=None if view is None else {"view": view}, headers=headers)
    assert answer.status_code == 201, answer.text
    return answer.json()


def bearer(room: dict) -> dict:
    return {"Authorization": f"Bearer {room['secret']}"}


async def put_view(client: httpx.AsyncClient, room: dict, view: str, headers: dict | None = None) -> httpx.Response:
    return await client.put(room["room_url"], json={"view": view}, headers=bearer(room) if headers is None else headers)


# ---------------------------------------------------------------------------
# Servers
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def redis(redis_server):
    """The session's redis-server (tests/conftest.py); each test here keeps to a database of its own."""
    return redis_server


@pytest.fixture(scope="module")
def one_worker():
    """Rooms in the process (one worker, no REDIS_URL)."""
    with live_class_app() as server:
        yield server


@pytest.fixture(scope="module")
def two_workers(redis):
    """The production command with 2 workers sharing Redis (database 0)."""
    with LiveServer(workers=2, env={**LIVE_CLASS_ENV, "REDIS_URL": redis.url}) as server:
        yield server


@pytest.fixture(params=["memory", "redis"])
def server(request):
    """Each behaviour on both stores: one worker in memory, two workers with Redis."""
    return request.getfixturevalue("one_worker" if request.param == "memory" else "two_workers")


# ---------------------------------------------------------------------------
# Codes, secrets and views (no server)
# ---------------------------------------------------------------------------


def test_codes_avoid_look_alikes_and_read_back_however_typed():
    assert not set("0O1IL") & set(CODE_ALPHABET)
    assert len(set(CODE_ALPHABET)) == len(CODE_ALPHABET) == 30
    codes = {new_code() for _ in range(2000)}
    assert len(codes) > 1990, "codes are random"
    for code in list(codes)[:50]:
        assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
        assert normal_code(code.lower()) == code
        assert normal_code(f" {code[:3]}-{code[3:]} ") == code
    assert normal_code("ABC") is None and normal_code("ABCDE0") is None and normal_code("ABCDEI") is None


def test_secrets_are_long_random_and_stored_only_as_a_hash():
    secret = new_secret()
    assert len(secret) * 6 >= 128, "at least 128 bits (base64url: 6 bits a character)"
    assert len({new_secret() for _ in range(100)}) == 100
    stored = secret_hash(secret)
    assert secret not in stored and len(stored) == 64
    assert secret_matches(secret, stored) and not secret_matches(secret + "x", stored)


@given(st.lists(st.integers(1, 50), min_size=1, max_size=30))
def test_a_stream_keeps_only_the_newest_view_whatever_the_order_of_arrival(versions):
    """A slow student skips to the latest view: a listener holds one room state, never an older one."""
    listener = Listener(Room("ABCDEF", 0, "", 0.0), "live")
    for version in versions:
        listener.offer(Room("ABCDEF", version, f"step={version}", float(version)))
    assert (listener.room.version, listener.room.view) == (max(versions), f"step={max(versions)}")
    assert listener.changed.is_set()


def test_the_keeper_ends_the_streams_of_a_room_past_its_time(monkeypatch):
    """A stream has no timer of its own: the store's keeper finds a followed room past ROOM_TTL_SECONDS, asks the
    store, and ends its streams (here the in-process store; with Redis, test_a_room_ends_after_its_time...)."""
    monkeypatch.setattr(app.live.rooms, "EXPIRY_CHECK_SECONDS", 0.01)

    async def scenario():
        rooms = MemoryRooms(Limits(ttl_seconds=3600, per_client_hour=10, rooms_max=10, streams_max=10))
        room, _ = await rooms.create(VIEW, "127.0.0.1")
        kept, _ = await rooms.create(VIEW, "127.0.0.2")
        rooms.rooms[room.code] = aged = Room(room.code, room.version, room.view, room.updated - 3601)  # time is up
        old, alive = rooms.hub.open(aged, "a"), rooms.hub.open(kept, "b")
        assert rooms.hub.past_their_time(time.time()) == [room.code]
        await rooms.start()
        try:
            await asyncio.wait_for(old.wait(), GUARD)
            assert (old.status, alive.status) == ("ended", "live")
            assert await rooms.get(room.code) is None and await rooms.get(kept.code) == kept
        finally:
            await rooms.stop()
        rooms.hub.close(old)
        rooms.hub.close(alive)
        assert rooms.hub.listeners == {} and rooms.hub.total == 0 and rooms.hub.past_their_time(time.time()) == []

    run(scenario())


def test_the_keeper_goes_on_after_a_round_that_failed(monkeypatch, caplog):
    """A round of the keeper that raises (here the keep-alives, once) is logged, and the next rounds still end the
    streams of a room past its time: a keeper that stopped would let every followed room end unseen."""
    monkeypatch.setattr(app.live.rooms, "EXPIRY_CHECK_SECONDS", 0.01)

    async def scenario():
        rooms = MemoryRooms(Limits(ttl_seconds=3600, per_client_hour=10, rooms_max=10, streams_max=10))
        room, _ = await rooms.create(VIEW, "127.0.0.1")
        rooms.rooms[room.code] = aged = Room(room.code, room.version, room.view, room.updated - 3601)
        old = rooms.hub.open(aged, "a")
        keep_alive, failures = rooms.hub.keep_alive, []

        def fails_once(now):
            if not failures:
                failures.append(now)
                raise RuntimeError("a round that fails")
            keep_alive(now)

        monkeypatch.setattr(rooms.hub, "keep_alive", fails_once)
        await rooms.start()
        try:
            await asyncio.wait_for(old.wait(), GUARD)
            assert old.status == "ended" and len(failures) == 1
        finally:
            await rooms.stop()
        rooms.hub.close(old)

    with caplog.at_level("ERROR", logger="attention_lens.live"):
        run(scenario())
    assert "a round failed" in caplog.text and "a round that fails" in caplog.text


def test_the_keeper_asks_only_the_streams_quiet_for_the_keep_alive_interval():
    """No timer per student either for keep-alives: the keeper asks each stream that sent nothing for
    LIVE_KEEPALIVE_SECONDS, so each gets its comment in its own time, and a stream that just got a change none."""
    hub = Hub(Limits(ttl_seconds=3600, per_client_hour=10, rooms_max=10, streams_max=10, keepalive_seconds=15))
    room = Room("ABCDEFGH", 1, VIEW, time.time())
    quiet, busy = hub.open(room, "a"), hub.open(room, "b")
    now = time.monotonic()
    quiet.sent_at, busy.sent_at = now - 15, now - 14.9
    hub.keep_alive(now)
    assert (quiet.keepalive_due, quiet.changed.is_set()) == (True, True)
    assert (busy.keepalive_due, busy.changed.is_set()) == (False, False)


def test_a_students_stream_costs_one_task_besides_its_request_and_ends_when_the_student_leaves():
    """What a class of thousands costs a worker (bench/README.md): each open stream is its request's own task
    plus one that waits for the student to leave; when the student leaves, both end and the hub forgets it."""
    from app.main import create_app
    from app.settings import Settings

    students = 20

    async def scenario():
        app = create_app(Settings(access_log=False))
        created = await call_json(app, "POST", "/api/rooms", b'{"view": "%s"}' % VIEW.encode())
        await app.state.rooms.start()  # the store's keeper: its one task for all streams
        before = len(asyncio.all_tasks())
        left = [asyncio.Event() for _ in range(students)]
        received = [bytearray() for _ in range(students)]

        async def student(number):
            async def receive():
                await left[number].wait()
                return {"type": "http.disconnect"}

            async def send(message):
                received[number].extend(message.get("body", b""))

            await app(http_scope(created["events_url"]), receive, send)

        tasks = [asyncio.create_task(student(number)) for number in range(students)]

        async def every_student_got_the_view():
            while any(b"data: " not in got for got in received):
                await asyncio.sleep(0.01)  # a poll of the other tasks' progress

        await asyncio.wait_for(every_student_got_the_view(), GUARD)
        assert len(asyncio.all_tasks()) - before == 2 * students, "the student's own task and one more each"
        assert app.state.rooms.hub.total == students
        for event in left:
            event.set()
        await asyncio.wait_for(asyncio.gather(*tasks), GUARD)
        assert app.state.rooms.hub.total == 0 and len(asyncio.all_tasks()) == before
        assert all(got.startswith(b"retry: 2000\n\nid: 1\ndata: {") for got in received), received[0]
        await app.state.rooms.stop()

    run(scenario())


def test_a_stream_whose_client_sends_a_body_past_the_limit_ends():
    """The task that waits for the student to leave reads what the client sends: a GET that streams a body past
    the guard's limit ends its stream, like a student who left, instead of leaving a stream nobody watches."""
    from app.main import create_app
    from app.settings import Settings
    from app.web.guard import MAX_BODY_BYTES

    async def scenario():
        app = create_app(Settings(access_log=False))
        created = await call_json(app, "POST", "/api/rooms", b'{"view": "%s"}' % VIEW.encode())
        received = bytearray()

        async def receive():
            return {"type": "http.request", "body": b"x" * (MAX_BODY_BYTES + 1), "more_body": True}

        async def send(message):
            received.extend(message.get("body", b""))

        await asyncio.wait_for(app(http_scope(created["events_url"]), receive, send), GUARD)
        assert received.startswith(b"retry: 2000\n\n") and app.state.rooms.hub.total == 0
        await app.state.rooms.stop()

    run(scenario())


async def call_json(app, method, path, body=b""):
    """One request to the app in this process; its JSON answer."""
    scope = http_scope(path, headers=[(b"content-type", b"application/json")], method=method)
    return json.loads(body_of(await call(app, scope, body)))


LINK_PARAMS = st.fixed_dictionaries(
    {},
    optional={
        "source": st.sampled_from(["tom chases jerry", "walk by river bank", "汤姆 追逐 杰瑞"]),
        "temperature": st.sampled_from(["0.5", "1", "1.0", "2.50"]),
        "step": st.integers(0, 5).map(str),
        "stage": st.sampled_from(["1", "2", "3"]),
        "present": st.sampled_from(["true", "false", "1"]),
        "heads": st.sampled_from(["1", "2", "4"]),
        "lang": st.sampled_from(["en", "zh"]),
    },
)


@given(LINK_PARAMS)
def test_canonical_view_is_the_share_links_canonical_form(params):
    """Any valid link's query -> the link's canonical query string; canonical already: unchanged."""
    from urllib.parse import urlencode

    query = urlencode(params)
    expected = state_from_query(urlencode(params)).query_string()
    assert canonical_view(query) == expected
    assert canonical_view(expected) == expected
    assert canonical_view("?" + query) == expected


@pytest.mark.parametrize(
    "view, field",
    [
        ("temperature=99", "temperature"),
        ("stage=7", "stage"),
        ("nonsense=1", "nonsense"),
        ("source=", "source"),
        ("q=1,2&k=1,2", "v"),
        ("source=a+b&heads=9", "heads"),
    ],
)
def test_an_invalid_view_names_its_field(view, field):
    with pytest.raises(InvalidView) as raised:
        canonical_view(view)
    item = raised.value.items[0]
    assert item["field"] == field and item["loc"][:3] == ["body", "view", field]


# ---------------------------------------------------------------------------
# Rooms, teacher and students, on both stores
# ---------------------------------------------------------------------------


@pytest.mark.slow  # starts real servers
def test_a_room_starts_with_the_teachers_view_and_students_follow_each_change(server):
    async def scenario():
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client, "source=tom+chases+jerry&temperature=1.0&step=0")
            assert re.fullmatch(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}", room["code"])
            assert room["follow_url"] == f"/live/{room['code']}"
            assert room["view"] == VIEW, "stored in canonical form: defaults left out"
            assert room["version"] == 1 and room["expires_in"] == 12 * 3600
            async with Student(client, room["code"]) as student:
                assert student.status_code == 200
                first = await student.next_view()
                assert (first.id, first.json()) == ("1", {"view": VIEW, "version": 1})
                for version, view in enumerate(STEPS, start=2):
                    answer = await put_view(client, room, view)
                    assert answer.status_code == 204 and answer.content == b""
                    event = await student.next_view()
                    assert (event.id, event.json()) == (str(version), {"view": view, "version": version})
            current = (await client.get(room["room_url"])).json()
            assert (current["version"], current["view"], "secret" in current) == (4, STEPS[2], False)

    run(scenario())


@pytest.mark.slow  # starts real servers
def test_the_stream_is_event_stream_with_retry_and_keep_alive_comments(server):
    async def scenario():
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client)
            async with Student(client, room["code"]) as student:
                assert student.headers["content-type"].startswith("text/event-stream")
                assert student.headers["cache-control"] == "no-store"
                assert student.headers["x-accel-buffering"] == "no", "nginx must not buffer the stream"
                assert "content-encoding" not in student.headers, "never gzip-buffered"
                opening = await student.next_block()
                assert opening.retry == 2000 and opening.data is None
                await student.next_view()
                keepalive = await student.next_block()  # LIVE_KEEPALIVE_SECONDS=0.5 and nothing else happens
                assert keepalive.comments == ["keep-alive"] and keepalive.data is None

    run(scenario())


@pytest.mark.slow  # starts real servers
def test_a_wrong_or_missing_secret_changes_nothing(server):
    async def scenario():
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client)
            other = await start_room(client)
            async with Student(client, room["code"]) as student:
                await student.next_view()
                missing = await put_view(client, room, STEPS[1], headers={})
                assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
                assert missing.json()["message"].startswith("authorization: ")
                for wrong in ({"Authorization": "Bearer " + other["secret"]}, {"Authorization": "Basic abc"}):
                    answer = await put_view(client, room, STEPS[1], headers=wrong)
                    assert answer.status_code in (401, 403), answer.text
                wrong = await put_view(
                    client, room, STEPS[1], headers={"Authorization": "Bearer " + room["secret"][:-1]}
                )
                assert wrong.status_code == 403 and "secret does not match" in wrong.json()["message"]
                assert (await client.get(room["room_url"])).json()["version"] == 1
                assert (await put_view(client, room, STEPS[2])).status_code == 204
                event = await student.next_view()  # the next event is the real change: nothing came before it
                assert event.json() == {"view": STEPS[2], "version": 2}

    run(scenario())


@pytest.mark.slow  # starts real servers
def test_a_view_that_is_not_a_valid_link_is_422_and_changes_nothing(server):
    async def scenario():
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client)
            for view, message in [
                ("temperature=99", "temperature: must be at most 20"),
                ("source=&step=1", "source: must not be empty"),
                ("secret=1", "secret: unknown parameter (known: source, target, "),
                ("x" * 60_000, "view: at most 49152 bytes (got 60000)"),
            ]:
                answer = await put_view(client, room, view)
                assert answer.status_code == 422, answer.text
                assert answer.json()["message"].startswith(message)
                assert answer.json()["detail"][0]["loc"][:2] == ["body", "view"]
            assert (await client.put(room["room_url"], json={}, headers=bearer(room))).status_code == 422
            created = await client.post("/api/rooms", json={"view": "heads=9"})
            assert created.status_code == 422 and created.json()["message"].startswith("heads: ")
            assert (await client.get(room["room_url"])).json()["version"] == 1

    run(scenario())


@pytest.mark.slow  # starts real servers
def test_a_late_joiner_gets_the_current_view_at_once(server):
    async def scenario():
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client, None)  # no body: the default view
            assert room["view"] == ""
            for view in STEPS:
                assert (await put_view(client, room, view)).status_code == 204
            async with Student(client, room["code"]) as late:
                assert (await late.next_view()).json() == {"view": STEPS[2], "version": 4}

    run(scenario())


@pytest.mark.slow  # starts real servers
def test_last_event_id_resends_only_a_newer_view(server):
    async def scenario():
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client)
            await put_view(client, room, STEPS[1])  # version 2
            async with Student(client, room["code"], last_event_id="1") as behind:
                assert (await behind.next_view()).json() == {"view": STEPS[1], "version": 2}
            async with Student(client, room["code"], last_event_id="2") as current:
                await put_view(client, room, STEPS[2])
                assert (await current.next_view()).json() == {"view": STEPS[2], "version": 3}, "2 was not sent again"

    run(scenario())


@pytest.mark.slow  # starts real servers
def test_the_same_view_again_is_not_a_change(server):
    async def scenario():
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client)
            assert (await put_view(client, room, VIEW + "&temperature=1")).status_code == 204
            assert (await client.get(room["room_url"])).json()["version"] == 1

    run(scenario())


@pytest.mark.slow  # starts real servers
def test_unknown_rooms_are_404_everywhere(server):
    async def scenario():
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client)
            unknown = "22222222"  # a random room has this code once in 6.6e11
            for path in (f"/api/rooms/{unknown}", f"/api/rooms/{unknown}/events", f"/api/rooms/{unknown}/qr.svg"):
                answer = await client.get(path)
                assert answer.status_code == 404 and unknown in answer.json()["message"], path
            assert (await put_view(client, {**room, "room_url": f"/api/rooms/{unknown}"}, VIEW)).status_code == 404
            assert (await client.get("/api/rooms/not-a-code")).status_code == 404
            page = await client.get(f"/live/{unknown}")
            assert page.status_code == 404 and "text/html" in page.headers["content-type"]
            assert "No live class with the code" in page.text and "没有代码为" in page.text and unknown in page.text

    run(scenario())


@pytest.mark.slow  # starts real servers
def test_the_follow_page_shows_the_rooms_view_in_follow_mode(server):
    async def scenario():
        async with httpx.AsyncClient(base_url=server.base, timeout=60) as client:  # the models may still load
            room = await start_room(client, "source=tom+chases+jerry&step=2&lang=zh")
            page = await client.get(f"/live/{room['code'].lower()}")
            assert page.status_code == 200 and page.headers["cache-control"] == "no-cache"
            data = page_data(page.text)
            assert data["follow"] == {key: room[key] for key in data["follow"]}
            assert set(data["follow"]) == {"code", "follow_url", "room_url", "events_url", "qr_url"}
            assert data["view"]["share_path"] == "/?source=tom+chases+jerry&step=2&lang=zh"

    run(scenario())


@pytest.mark.slow  # starts real servers
def test_the_qr_code_is_an_svg_of_the_absolute_follow_link(server):
    async def scenario():
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client)
            answer = await client.get(room["qr_url"])
            assert answer.status_code == 200 and answer.headers["content-type"] == "image/svg+xml"
            assert "max-age" in answer.headers["cache-control"] and answer.headers["etag"]
            assert answer.text.startswith("<svg") and f"{server.base}/live/{room['code']}</title>" in answer.text
            again = await client.get(room["qr_url"], headers={"If-None-Match": answer.headers["etag"]})
            assert again.status_code == 304

    run(scenario())


@pytest.mark.slow  # a real server on a socket
def test_the_qr_code_follows_the_proxys_scheme_and_host(one_worker):
    """Behind nginx (scripts/serve trusts X-Forwarded-* from 127.0.0.1) the link is the public one."""

    async def scenario(server):
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client)
            answer = await client.get(
                room["qr_url"], headers={"Host": "lens.example.org", "X-Forwarded-Proto": "https"}
            )
            assert f"<title>QR code: https://lens.example.org/live/{room['code']}</title>" in answer.text

    run(scenario(one_worker))


# ---------------------------------------------------------------------------
# Two workers, two machines, one Redis
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_thirty_students_on_two_workers_receive_each_of_three_updates(two_workers):
    async def scenario():
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
        async with httpx.AsyncClient(base_url=two_workers.base, timeout=30, limits=limits) as client:
            room = await start_room(client)
            async with AsyncExitStack() as stack:
                students = [await stack.enter_async_context(Student(client, room["code"])) for _ in range(30)]
                firsts = await asyncio.gather(*(student.next_view() for student in students))
                assert {event.id for event in firsts} == {"1"}
                for version, view in enumerate(STEPS, start=2):
                    waiting = [asyncio.create_task(student.next_view()) for student in students]
                    assert (await put_view(client, room, view)).status_code == 204
                    events = await asyncio.gather(*waiting)
                    assert [event.json() for event in events] == [{"view": view, "version": version}] * 30

    run(scenario())
    assert len(two_workers.worker_pids()) == 2


@pytest.mark.slow
def test_a_teacher_on_one_machine_drives_students_on_another(redis):
    """Two separate servers (as two machines) sharing one Redis: rooms and changes cross between them."""
    url = redis.url.removesuffix("/0") + "/2"

    async def scenario(a, b):
        async with (
            httpx.AsyncClient(base_url=a.base, timeout=30) as teacher,
            httpx.AsyncClient(base_url=b.base, timeout=30) as students,
        ):
            room = await start_room(teacher)
            async with Student(students, room["code"]) as student:
                assert (await student.next_view()).json()["version"] == 1
                for version, view in enumerate(STEPS, start=2):
                    assert (await put_view(teacher, room, view)).status_code == 204
                    assert (await student.next_view()).json() == {"view": view, "version": version}
            assert (await students.get(room["room_url"])).json()["view"] == STEPS[2]

    with live_class_app(redis_url=url) as a, live_class_app(redis_url=url) as b:
        run(scenario(a, b))


@pytest.mark.slow
def test_several_workers_without_redis_answer_rooms_503_and_everything_else(redis):
    async def scenario(server):
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            created = await client.post("/api/rooms", json={"view": VIEW})
            assert created.status_code == 503
            message = created.json()["message"]
            assert "REDIS_URL" in message and "WORKERS=2" in message, message
            for path in ("/api/rooms/ABCDEFGH", "/api/rooms/ABCDEFGH/events", "/api/rooms/ABCDEFGH/qr.svg"):
                assert (await client.get(path)).status_code == 503, path
            put = await client.put("/api/rooms/ABCDEFGH", json={"view": VIEW}, headers={"Authorization": "Bearer x"})
            assert put.status_code == 503
            for path in ("/", "/?source=tom+chases+jerry&step=1", "/api/attention?source=tom+chases+jerry", "/learn"):
                assert (await client.get(path)).status_code == 200, path
            follow = await client.get("/live/ABCDEFGH")
            assert follow.status_code == 200 and '"follow":{"code":"ABCDEFGH"' in follow.text

    with live_class_app(workers=2) as server:  # the app as each of two workers sees itself
        run(scenario(server))


# ---------------------------------------------------------------------------
# Behind nginx (deploy/nginx.conf as shipped, only its two ports changed)
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_students_follow_through_nginx():
    """Events pass nginx unbuffered; room JSON is never served from nginx's cache, the QR code (PUBLIC_ORIGIN) is."""

    async def scenario(proxy):
        async with httpx.AsyncClient(base_url=proxy, timeout=30) as client:
            room = await start_room(client)
            async with Student(client, room["code"]) as student:
                assert student.headers["content-type"].startswith("text/event-stream")
                assert (await student.next_view()).json()["version"] == 1
                for version, view in enumerate(STEPS, start=2):
                    assert (await put_view(client, room, view)).status_code == 204
                    assert (await student.next_view()).json() == {"view": view, "version": version}
                    current = await client.get(room["room_url"])
                    assert current.json()["version"] == version and current.headers["x-cache-status"] != "HIT"
            public = {"Host": "lens.example.org"}  # nginx passes $host and $scheme on: the link students see
            qr = [await client.get(room["qr_url"], headers=public) for _ in range(2)]
            assert [answer.headers["x-cache-status"] for answer in qr] == ["MISS", "HIT"]
            assert f"<title>QR code: http://lens.example.org/live/{room['code']}</title>" in qr[1].text

    # PUBLIC_ORIGIN: a QR code that caches may share (without it, its link comes from the Host header: private)
    with live_class_app(public_origin="http://lens.example.org") as server, Nginx(server.port) as proxy:
        run(scenario(proxy.base))


# ---------------------------------------------------------------------------
# Redis stopped and back
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_redis_stopped_streams_say_reconnecting_and_resume_when_it_is_back():
    async def scenario(redis, server):
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client)
            async with Student(client, room["code"]) as student:
                assert (await student.next_view()).json()["version"] == 1
                await asyncio.to_thread(redis.stop)
                assert await student.next_status() == "reconnecting"

                created = await client.post("/api/rooms", json={"view": VIEW})
                assert created.status_code == 503 and "Redis" in created.json()["message"]
                assert (await put_view(client, room, STEPS[1])).status_code == 503
                assert (await client.get(room["events_url"])).status_code == 503
                for path in ("/", "/?source=walk+by+river+bank&step=2", "/api/attention?source=a+b", "/healthz"):
                    assert (await client.get(path)).status_code == 200, path
                follow = await client.get(room["follow_url"])
                assert follow.status_code == 200 and f'"follow":{{"code":"{room["code"]}"' in follow.text

                await asyncio.to_thread(redis.start)
                assert await student.next_status() == "live"
                assert (await put_view(client, room, STEPS[2])).status_code == 204
                assert (await student.next_view()).json() == {"view": STEPS[2], "version": 2}
            async with Student(client, room["code"]) as newcomer:
                assert (await newcomer.next_view()).json()["version"] == 2

    # A Redis of its own (stopped and started again), with persistence: the session's one stays up.
    with RedisServer(persist=True) as redis, live_class_app(redis_url=redis.url) as server:
        run(scenario(redis, server))


# ---------------------------------------------------------------------------
# Limits and expiry
# ---------------------------------------------------------------------------

LIMITS = {"rooms_per_client_hour": 2, "rooms_max": 3, "room_streams_max": 2, "room_view_max_bytes": 100}


@pytest.fixture(params=["memory", "redis"])
def limited(request, redis):
    """The production server options (they trust X-Forwarded-For from 127.0.0.1: one address per 'client')."""
    settings = dict(LIMITS)
    if request.param == "redis":
        settings["redis_url"] = redis.url.removesuffix("/0") + "/1"
    with live_class_app(**settings) as server:
        yield server


@pytest.mark.slow  # a real server on a socket
def test_limits_are_enforced_with_messages_that_name_them(limited):
    async def scenario():
        async with httpx.AsyncClient(base_url=limited.base, timeout=30) as client:
            first = await start_room(client, **{"X-Forwarded-For": "10.0.0.1"})
            await start_room(client, **{"X-Forwarded-For": "10.0.0.1"})
            third = await client.post("/api/rooms", json={"view": VIEW}, headers={"X-Forwarded-For": "10.0.0.1"})
            assert third.status_code == 429
            assert third.json()["message"].startswith("rooms_per_client_hour: at most 2 new rooms per address per hour")
            assert 1 <= int(third.headers["retry-after"]) <= 3601

            await start_room(client, **{"X-Forwarded-For": "10.0.0.2"})  # the third room in all
            full = await client.post("/api/rooms", json={"view": VIEW}, headers={"X-Forwarded-For": "10.0.0.3"})
            assert full.status_code == 503 and full.json()["message"].startswith("rooms_max: at most 3 open rooms")

            long_view = "source=" + "a+" * 60 + "b"
            too_long = await put_view(client, first, long_view)
            assert too_long.status_code == 422
            assert too_long.json()["message"] == f"view: at most 100 bytes (got {len(long_view)})"

            async with Student(client, first["code"]) as one, Student(client, first["code"]) as two:
                assert (one.status_code, two.status_code) == (200, 200)
                extra = await client.get(first["events_url"])
                assert extra.status_code == 503
                assert extra.json()["message"].startswith("room_streams_max: at most 2 students follow one room")

    run(scenario())


@pytest.mark.slow
def test_a_room_ends_after_its_time_without_updates(redis):
    """ROOM_TTL_SECONDS=TTL: the open stream says 'ended' and closes; the room is gone everywhere. Both stores at
    once, each on a server of its own (they share nothing), so the test waits out the TTL once. The TTL is a
    window the test must start its student in (two requests): TTL seconds is far more than a busy machine takes."""

    async def scenario(server):
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client)
            async with Student(client, room["code"]) as student:
                await student.next_view()
                assert await student.next_status() == "ended"
                assert await student.rest() == [] and student.ended
            assert (await client.get(room["room_url"])).status_code == 404
            assert (await put_view(client, room, VIEW)).status_code == 404
            page = await client.get(room["follow_url"])
            assert page.status_code == 404 and f"{TTL} seconds" in page.text and f"{TTL} 秒" in page.text

    async def both(servers):
        await asyncio.gather(*(scenario(server) for server in servers))

    url = redis.url.removesuffix("/0") + "/3"
    with (
        live_class_app(room_ttl_seconds=TTL) as memory,
        live_class_app(redis_url=url, room_ttl_seconds=TTL) as with_redis,
    ):
        run(both([memory, with_redis]))


# ---------------------------------------------------------------------------
# Graceful shutdown with open streams
# ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("store", ["memory", "redis"])
def test_sigterm_ends_open_streams_and_the_server_exits_cleanly(store, redis):
    workers, env = (None, LIVE_CLASS_ENV) if store == "memory" else (2, {**LIVE_CLASS_ENV, "REDIS_URL": redis.url})
    server = LiveServer(workers=workers, env={**env, "ACCESS_LOG": "1"})

    async def scenario():
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            room = await start_room(client)
            async with AsyncExitStack() as stack:
                students = [await stack.enter_async_context(Student(client, room["code"])) for _ in range(5)]
                for student in students:
                    await student.next_view()
                server.process.send_signal(signal.SIGTERM)
                try:
                    code = await asyncio.to_thread(server.process.wait, 25)
                except subprocess.TimeoutExpired:
                    pytest.fail("the server did not exit within 25 s of SIGTERM:\n" + server.output()[-3000:])
                for student in students:
                    await student.rest()  # the stream ends (no exception: the last chunk was sent)
                    assert student.ended
                return code

    try:
        server.start()
        code = run(scenario())
        log = server.output()
        # The supervisor (2 workers) exits 0; a lone uvicorn process re-raises SIGTERM once it has shut down.
        assert code == (0 if workers else -signal.SIGTERM), log[-3000:]
        assert log.count("Finished server process") == (workers or 1), log[-3000:]
        assert "timeout graceful shutdown exceeded" not in log, log[-3000:]
        assert "without completing response" not in log, log[-3000:]
        assert "Traceback" not in log, log[-3000:]
        streams = [line for line in log.splitlines() if '/events"' in line and '"status":200' in line]
        assert len(streams) == 5, "each stream ended with a complete response (access log):\n" + log[-3000:]
    finally:
        server.stop()


def test_every_room_path_is_in_routes_and_documented():
    """The API is in /openapi.json (the SSE stream and the QR code with their media types)."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    spec = TestClient(create_app()).get("/openapi.json").json()
    paths = spec["paths"]
    assert set(paths["/api/rooms"]) == {"post"}
    assert set(paths["/api/rooms/{code}"]) == {"get", "put"}
    assert "text/event-stream" in paths["/api/rooms/{code}/events"]["get"]["responses"]["200"]["content"]
    assert "image/svg+xml" in paths["/api/rooms/{code}/qr.svg"]["get"]["responses"]["200"]["content"]
    assert {"401", "403", "404", "422", "503"} <= set(paths["/api/rooms/{code}"]["put"]["responses"])
