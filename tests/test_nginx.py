"""The production path: Debian's nginx running deploy/nginx.conf in front of scripts/serve.

The session's live server and its nginx (tests/conftest.py: the app served in this process with the
production server options, Debian's nginx with deploy/nginx.conf in front of it, on free loopback
ports). nginx faces the clients: oversized heads and bodies get its own answers (with the app's
strict security headers added), idle connections are closed after client_header_timeout, a class opening
one new link reaches the app once (proxy_cache_lock), and the app's own answers pass through unchanged.
"""

import json
import re
import select
import socket
import threading
import time

import httpx
import pytest

from tests.support.live_server import free_port
from tests.support.load import wait_until
from tests.support.nginx import CONFIG, Nginx
from tests.test_hardening import exchange
from tests.test_http_semantics import check_security_headers_raw

pytestmark = pytest.mark.slow  # starts nginx (scripts/test installs it: without it these tests fail) and the app

KiB = 1024
SHARED = CONFIG.parent / "lens" / "http.conf"  # what nginx does, included by deploy/nginx.conf
CLIENT_HEADER_TIMEOUT = int(re.search(r"client_header_timeout (\d+)s;", SHARED.read_text())[1])
GUARD = 60.0  # seconds: a hang guard for polling, never a speed requirement


@pytest.fixture(scope="module")
def stack(live_server, nginx):
    return live_server, nginx


def raw(port, request_line, *headers, body=b""):
    """A raw request with Connection: close; (status, headers, body) of the answer."""
    head = request_line + b"\r\nHost: lens\r\n" + b"".join(header + b"\r\n" for header in headers)
    return exchange(port, head + b"Connection: close\r\n\r\n" + body)


# ---------------------------------------------------------------------------
# nginx's own answers, and the app's through nginx
# ---------------------------------------------------------------------------

NGINX_REFUSALS = {
    "URL over 64 KiB (nginx's 414)": (b"GET /?source=" + b"a" * (70 * KiB) + b" HTTP/1.1", (), 414),
    "a 1 MiB cookie (nginx's 400)": (b"GET /healthz HTTP/1.1", (b"Cookie: " + b"c" * (1024 * KiB),), 400),
    "body over 128 KiB (nginx's 413)": (b"POST /api/attention HTTP/1.1", (b"Content-Length: 200000",), 413),
    "malformed header (nginx's 400)": (b"GET / HTTP/1.1", (b"No colon here",), 400),
    "HTTP/2.0 in a request line (nginx's 505)": (b"GET / HTTP/2.0", (), 505),
}
APP_REFUSALS = {
    "URL over 48 KiB (the app's 414)": (b"GET /?source=" + b"a" * (50 * KiB) + b" HTTP/1.1", (), 414),
    "a header over 16 KiB (the app's 431)": (b"GET /healthz HTTP/1.1", (b"Cookie: " + b"c" * (20 * KiB),), 431),
    "bad input (the app's 422)": (b"GET /api/attention?heads=9 HTTP/1.1", (), 422),
    "unknown path (the app's 404)": (b"GET /nope HTTP/1.1", (), 404),
}


@pytest.mark.parametrize("kind", [*NGINX_REFUSALS, *APP_REFUSALS])
def test_every_refusal_carries_the_security_headers_once(stack, kind):
    _, proxy = stack
    request_line, headers, status = {**NGINX_REFUSALS, **APP_REFUSALS}[kind]
    answer_status, answer_headers, body = raw(proxy.port, request_line, *headers)
    assert answer_status == status, (kind, body[:200])
    check_security_headers_raw(answer_headers, "/")
    assert answer_headers["server"] == "nginx", "nginx answers with its own name, never its version"


def test_the_worker_carries_on_after_a_header_over_16_kib(stack):
    app, proxy = stack
    status, _, _ = raw(proxy.port, b"GET /healthz HTTP/1.1", b"Cookie: " + b"c" * (17 * KiB))
    assert status == 431
    assert httpx.get(proxy.base + "/healthz", timeout=30).status_code == 200
    assert httpx.get(app.base + "/healthz", timeout=30).status_code == 200


def test_a_32x32_exercise_link_reaches_the_app(stack):
    _, proxy = stack
    row = ",".join(["1.5"] * 32)
    matrix = ";".join([row] * 32)
    status, _, body = raw(proxy.port, f"GET /api/attention?q={matrix}&k={matrix}&v={matrix} HTTP/1.1".encode())
    assert status == 200, body[:300]
    assert len(json.loads(body)["head"]["weights"]) == 32


def test_an_app_that_is_down_gets_nginx_502_with_the_security_headers():
    with Nginx(free_port()) as proxy:  # nothing listens on the app's port
        status, headers, _ = raw(proxy.port, b"GET /healthz HTTP/1.1")
    assert status == 502
    check_security_headers_raw(headers, "/")


@pytest.mark.parametrize("path", ["/embed?source=framed+view", "/?source=strict+page", "/docs"])
def test_the_apps_own_headers_pass_unchanged_also_from_the_cache(stack, path):
    app, proxy = stack
    direct = httpx.get(app.base + path, timeout=30)
    for attempt in ("MISS or none", "HIT or none"):
        through = httpx.get(proxy.base + path, timeout=30)
        assert through.status_code == 200, attempt
        assert through.headers.get_list("content-security-policy") == [direct.headers["content-security-policy"]]
        assert through.headers.get("x-frame-options") == direct.headers.get("x-frame-options"), attempt
        assert through.content == direct.content
    if path.startswith("/embed"):
        assert (
            "x-frame-options" not in through.headers
            and "frame-ancestors *" in through.headers["content-security-policy"]
        )
        assert through.headers["x-cache-status"] == "HIT"


def test_head_and_conditional_requests_through_nginx(stack):
    _, proxy = stack
    first = httpx.get(proxy.base + "/api/attention?source=head+through+nginx", timeout=30)
    head = httpx.head(proxy.base + "/api/attention?source=head+through+nginx", timeout=30)
    assert head.status_code == 200 and head.content == b"" and head.headers["etag"] == first.headers["etag"]
    again = httpx.get(
        proxy.base + "/api/attention?source=head+through+nginx", headers={"if-none-match": "*"}, timeout=30
    )
    assert again.status_code == 304


# ---------------------------------------------------------------------------
# A class opening one new link reaches the app once (proxy_cache_lock)
# ---------------------------------------------------------------------------


def test_sixteen_simultaneous_requests_reach_the_app_once(stack):
    app, proxy = stack
    link = "/api/attention?source=the+class+opens+the+teachers+new+link&heads=4&projection=random&seed=7"
    barrier, answers = threading.Barrier(16), []

    def student():
        barrier.wait()
        answers.append(httpx.get(proxy.base + link, timeout=30))

    students = [threading.Thread(target=student) for _ in range(16)]
    for thread in students:
        thread.start()
    for thread in students:
        thread.join()
    assert [answer.status_code for answer in answers] == [200] * 16
    assert len({answer.content for answer in answers}) == 1

    def reached():  # the app's access log lines of this link (each written just after its answer went out)
        lines = [line for line in app.output().splitlines() if line.startswith("{")]
        return [line for line in lines if "the+class+opens" in json.loads(line).get("query", "")]

    # None could come later unseen: a request straight to the app after every answer is logged after them.
    assert httpx.get(app.base + "/api/attention?source=the+marker+after+the+class", timeout=30).status_code == 200
    wait_until(lambda: "the+marker+after" in app.output(), "the marker's line in the app's access log")
    assert len(reached()) == 1, reached()


# ---------------------------------------------------------------------------
# Idle connections are closed after client_header_timeout; /healthz answers throughout
# ---------------------------------------------------------------------------


def closed(connection):
    """Did nginx close this connection? (reset_timedout_connection: it resets what timed out)"""
    try:
        return connection.recv(1024) == b""
    except ConnectionResetError:
        return True


def test_idle_connections_are_closed_after_the_timeout_and_health_answers_meanwhile(stack):
    _, proxy = stack
    opened = time.monotonic()  # before the first connection: each is at most this old when it is closed
    idle = [socket.create_connection(("127.0.0.1", proxy.port)) for _ in range(200)]
    slow = socket.create_connection(("127.0.0.1", proxy.port))
    slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: lens\r\nX-Slow: ")  # a head that never ends
    connections = [*idle, slow]
    health, closed_after = [], {}
    try:
        while len(closed_after) < len(connections) and time.monotonic() - opened < CLIENT_HEADER_TIMEOUT + GUARD:
            health.append((len(closed_after), httpx.get(proxy.base + "/healthz", timeout=30).status_code))
            readable, _, _ = select.select([c for c in connections if c not in closed_after], [], [], 0.2)
            for connection in readable:
                if closed(connection):
                    closed_after[connection] = time.monotonic() - opened
    finally:
        for connection in connections:
            connection.close()
    assert len(closed_after) == len(connections), f"{len(connections) - len(closed_after)} still open"
    assert min(closed_after.values()) >= CLIENT_HEADER_TIMEOUT - 1, "closed before the documented timeout"
    assert {status for _, status in health} == {200}
    assert any(closed == 0 for closed, _ in health), "health answered while every idle connection was open"
