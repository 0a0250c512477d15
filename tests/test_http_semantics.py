"""HTTP details: HEAD on every GET route, conditional requests by RFC 9110, gzip by
q-value, no redirect built from the Host header, large answers sent in pieces, and the security headers on
every error answer, whoever writes it (the app, its framework's 500, the HTTP server's own 400).
"""

import asyncio
import gzip
import json
import socket

import httpx
import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

import app.web.api
from app.main import create_app
from app.settings import Settings
from app.web.assets import asset_url
from app.web.compression import accepts_gzip
from app.web.guard import PIECE_BYTES, Guard
from app.web.shared import none_match
from tests.support.asgi import AppClient, body_of, call, http_scope, run_async
from tests.support.live_server import AppServer
from tests.support.load import wait_until
from tests.test_hardening import check_security_headers, exchange

SHARED_LINK = "source=walk+by+river+bank&heads=2&temperature=0.5"
WORDS = ["the", "teacher", "gave", "the", "student", "a", "book", "about", "the", "river", "and", "the", "sea"]
LONG_SENTENCE = " ".join(WORDS[i % len(WORDS)] for i in range(120))  # with model=minilm: a 1.1 MB answer


@pytest.fixture(scope="module")
def routes_app():
    return create_app()


@pytest.fixture(scope="module")
def web(routes_app):
    return AppClient(routes_app, raise_server_exceptions=False)


def get_paths():
    """One concrete path for every GET route of the app (the asset route with a real file)."""
    routes_app = create_app()
    while not hasattr(routes_app, "routes"):  # the FastAPI app, inside the HTTP layers
        routes_app = routes_app.app
    routes = []
    for route in routes_app.routes:  # FastAPI keeps an included router's routes in its original_router
        routes += route.original_router.routes if hasattr(route, "original_router") else [route]
    paths = [
        asset_url("css/app.css") if "{" in route.path else route.path
        for route in routes
        if "GET" in (getattr(route, "methods", None) or ())
    ]
    assert len(paths) >= 10 and sum(isinstance(route, APIRoute) for route in routes) >= 9, paths
    return paths


# ---------------------------------------------------------------------------
# HEAD
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", [*get_paths(), "/?" + SHARED_LINK, "/api/attention?" + SHARED_LINK, "/nope"])
def test_head_answers_like_get_without_a_body(web, path):
    got = web.get(path, headers={"accept-encoding": "gzip"})
    head = web.head(path, headers={"accept-encoding": "gzip"})
    assert head.status_code == got.status_code, path
    assert head.content == b""
    assert dict(head.headers) == dict(got.headers), path


@pytest.mark.slow  # a real server on a socket
def test_head_on_the_real_server_sends_the_get_length_and_no_body(live_server):
    for path in ("/healthz", "/?" + SHARED_LINK):
        request = f"{{}} {path} HTTP/1.1\r\nHost: lens\r\nConnection: close\r\n\r\n"
        get_status, get_headers, get_body = exchange(live_server.port, request.format("GET").encode())
        head_status, head_headers, head_body = exchange(live_server.port, request.format("HEAD").encode())
        assert head_status == get_status == 200
        assert head_body == b"", "HEAD sent a body"
        assert head_headers["content-length"] == get_headers["content-length"] == str(len(get_body))
        check_security_headers_raw(head_headers, path.split("?")[0])


@pytest.mark.parametrize(
    "method, path, allow",
    [
        ("DELETE", "/api/attention", "GET, HEAD, POST"),
        ("PUT", "/", "GET, HEAD"),
        ("DELETE", "/api/rooms/ABCDEFGH", "GET, HEAD, PUT"),
        ("GET", "/api/rooms", "POST"),
    ],
)
def test_a_405_names_every_method_of_the_path(web, method, path, allow):
    answer = web.request(method, path)
    assert answer.status_code == 405
    assert answer.headers["allow"] == allow


# ---------------------------------------------------------------------------
# If-None-Match (RFC 9110, 13.1.2: weak comparison, `*`)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "if_none_match, modified",
    [
        ('W/"abc"', False),
        ('"abc"', False),  # weak comparison: the strong form of the same tag matches
        ("*", False),
        ('"other", W/"abc"', False),
        ('"a,b", "abc"', False),  # a comma inside a tag
        ('  W/"abc"  ,"x"', False),
        ('"other"', True),
        ('W/"abcd"', True),
        ("abc", False),  # unquoted is not RFC syntax; Werkzeug reads it leniently as "abc"
        ("", True),
    ],
)
def test_weak_comparison(if_none_match, modified):
    assert none_match(if_none_match, 'W/"abc"') is modified


@pytest.mark.parametrize("path", ["/api/attention?" + SHARED_LINK, "/?" + SHARED_LINK, "/embed?" + SHARED_LINK])
def test_conditional_requests(web, path):
    first = web.get(path)
    etag = first.headers["etag"]
    assert etag.startswith('W/"')
    for if_none_match in (etag, etag.removeprefix("W/"), "*", f'"x", {etag}'):
        for method in ("GET", "HEAD"):
            answer = web.request(method, path, headers={"if-none-match": if_none_match})
            assert answer.status_code == 304, (method, if_none_match)
            assert answer.content == b""
            for kept in ("etag", "cache-control", "vary"):
                assert answer.headers.get(kept) == first.headers.get(kept), kept
            assert "content-length" not in answer.headers or answer.headers["content-length"] == "0"
            check_security_headers(answer, path.split("?")[0])
    assert web.get(path, headers={"if-none-match": '"x"'}).status_code == 200


def test_answers_without_an_etag_are_never_304(web):
    for path in ("/healthz", "/api/attention?heads=9", asset_url("css/app.css")):
        assert web.get(path, headers={"if-none-match": "*"}).status_code != 304, path


# ---------------------------------------------------------------------------
# Accept-Encoding by q-value (RFC 9110, 12.5.3)
# ---------------------------------------------------------------------------

ENCODINGS = [
    ("gzip", True),
    ("gzip, deflate, br, zstd", True),
    ("GZIP", True),
    ("*", True),
    ("gzip;q=0.001", True),
    ("deflate, *;q=0.5", True),
    ("gzip;q=0", False),
    ("gzip; q=0.0", False),
    ("gzip;q=0, *;q=1", False),  # named beats the wildcard
    ("*;q=0", False),
    ("identity", False),
    ("br, deflate", False),
    ("", False),
]


@pytest.mark.parametrize("header, gzipped", ENCODINGS)
def test_accepts_gzip(header, gzipped):
    assert accepts_gzip(header.encode()) is gzipped


@pytest.mark.parametrize("header, gzipped", ENCODINGS)
@pytest.mark.parametrize("path", ["/api/attention?" + SHARED_LINK, "/?" + SHARED_LINK])  # assets: test_assets.py
def test_gzip_only_where_its_q_value_is_above_zero(web, path, header, gzipped):
    with web.stream("GET", path, headers={"accept-encoding": header}) as answer:
        raw = b"".join(answer.iter_raw())
    assert answer.status_code == 200
    assert (answer.headers.get("content-encoding") == "gzip") is gzipped, (header, answer.headers)
    assert "accept-encoding" in answer.headers.get("vary", "").lower()
    if gzipped:
        assert raw[:2] == b"\x1f\x8b" and len(gzip.decompress(raw)) > len(raw)


# ---------------------------------------------------------------------------
# The Host header is never reflected (no trailing-slash redirect)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/embed/", "/learn/", "/api/attention/", "/healthz/", "/docs/", "/embed/?source=a"])
def test_no_redirect_is_built_from_the_host_header(web, path):
    answer = web.get(path, headers={"host": "evil.example"}, follow_redirects=False)
    assert answer.status_code == 404
    assert "location" not in answer.headers
    assert "evil.example" not in answer.text


@pytest.mark.parametrize("path", [*get_paths(), "/?" + SHARED_LINK])
def test_no_answer_mentions_the_host(web, path):
    answer = web.get(path, headers={"host": "evil.example", "x-forwarded-host": "evil.example"})
    assert "evil.example" not in answer.text and "evil.example" not in str(answer.headers)


# ---------------------------------------------------------------------------
# Large answers leave in pieces (flow control applies between them)
# ---------------------------------------------------------------------------


def test_a_large_body_is_sent_in_pieces_that_add_up_to_it():
    body = bytes(range(256)) * (5 * PIECE_BYTES // 256) + b"tail"

    async def large(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    messages = run_async(lambda: call(Guard(large), http_scope("/")))
    pieces = [message for message in messages if message["type"] == "http.response.body"]
    assert len(pieces) == 6
    assert all(len(piece["body"]) <= PIECE_BYTES for piece in pieces)
    assert [piece["more_body"] for piece in pieces] == [True] * 5 + [False]
    assert body_of(messages) == body


def test_a_client_that_stops_reading_is_dropped_after_the_send_timeout():
    body = bytes(3 * PIECE_BYTES)
    sent, never = [], asyncio.Event()

    async def large(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    async def stuck_after_one_piece(message):
        sent.append(message)
        if len(sent) > 2:
            await never.wait()  # the client's window stays full

    async def run():
        await Guard(large, send_timeout=0.05)(http_scope("/"), None, stuck_after_one_piece)

    run_async(run)
    assert [message.get("more_body") for message in sent] == [None, True, True]  # start, piece 1, piece 2 (stuck)


@pytest.mark.slow  # a real server on a socket
def test_the_real_server_drops_a_reader_that_never_reads():
    """A client that asks for the real model's largest view (~1.2 MB) twelve times on one connection and never
    reads: the kernel's send buffer is capped (SEND_BUFFER_KB), so the first answer cannot vanish into it; the
    reader is dropped after SEND_TIMEOUT with part of that answer sent, and the worker goes on answering others."""
    link = "/api/attention?model=minilm&source=" + LONG_SENTENCE.replace(" ", "+")
    request = f"GET {link} HTTP/1.1\r\nHost: lens\r\n\r\n".encode()
    with AppServer(Settings(access_log=True, send_timeout=1)) as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as reader:
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            reader.sendall(request * 12)  # pipelined; the answers are never read
            wait_until(lambda: "without completing response" in server.output(), "the reader to be dropped")
            assert httpx.get(server.base + "/healthz", timeout=30).status_code == 200
        logged = [json.loads(line) for line in server.output().splitlines() if '"/api/attention"' in line]
        assert logged and all(record["bytes"] < 1_000_000 for record in logged), logged  # never a whole answer


def test_the_largest_view_arrives_whole(web):
    words = ["the", "teacher", "gave", "the", "student", "a", "book", "about", "the", "river", "and", "the", "sea"]
    sentence = " ".join(words[i % len(words)] for i in range(120))
    params = {"model": "minilm", "source": sentence}
    plain = web.get("/api/attention", params=params, headers={"accept-encoding": "identity"})
    assert plain.status_code == 200 and len(plain.content) > 1_000_000, plain.text[:300]
    assert int(plain.headers["content-length"]) == len(plain.content)
    assert len(plain.json()["tokens"]["keys"]) == 122


# ---------------------------------------------------------------------------
# Every error answer carries the security headers, whoever writes it
# ---------------------------------------------------------------------------


def test_an_unexpected_exception_gets_a_500_with_the_security_headers(monkeypatch):
    def broken(state):
        raise RuntimeError("an unexpected bug")

    monkeypatch.setattr(app.web.api, "compute_view", broken)
    answer = TestClient(create_app(), raise_server_exceptions=False).get("/api/attention?source=a+b+c")
    assert answer.status_code == 500
    assert "an unexpected bug" not in answer.text
    check_security_headers(answer, "/api/attention")


def check_security_headers_raw(headers, path):
    """check_security_headers on a raw exchange's header dict."""

    class Answer:
        status_code = 0
        request = type("Request", (), {"method": "-", "url": path})()

    answer = Answer()
    answer.headers = headers
    check_security_headers(answer, path)


KiB = 1024
MANY_HEADERS = b"".join(b"X-Header-%d: %s\r\n" % (i, b"b" * 1000) for i in range(17))  # 17 of 1 KB


@pytest.mark.parametrize(
    "name, request_bytes, status",
    [
        ("URL over 48 KiB", b"GET /?source=" + b"a" * (60 * KiB) + b" HTTP/1.1\r\nHost: lens\r\n", 414),
        ("URL of 64 KiB and more", b"GET /?source=" + b"a" * (100 * KiB) + b" HTTP/1.1\r\nHost: lens\r\n", 414),
        ("a header over 16 KiB", b"GET /healthz HTTP/1.1\r\nHost: lens\r\nCookie: " + b"c" * (17 * KiB) + b"\r\n", 431),
        ("headers over 16 KiB in all", b"GET / HTTP/1.1\r\nHost: lens\r\n" + MANY_HEADERS, 431),
        ("body over 64 KiB", b"POST /api/attention HTTP/1.1\r\nHost: lens\r\nContent-Length: 70000\r\n", 413),
        ("unknown path", b"GET /nope HTTP/1.1\r\nHost: lens\r\n", 404),
        ("method not allowed", b"DELETE /api/attention HTTP/1.1\r\nHost: lens\r\n", 405),
        ("bad input", b"GET /api/attention?heads=9 HTTP/1.1\r\nHost: lens\r\n", 422),
    ],
)
@pytest.mark.slow  # a real server on a socket
def test_the_real_servers_error_answers_carry_the_security_headers(production_server, name, request_bytes, status):
    answer_status, headers, _ = exchange(production_server.port, request_bytes + b"Connection: close\r\n\r\n")
    assert answer_status == status, name
    check_security_headers_raw(headers, "/")


@pytest.fixture(scope="module")
def production_server(live_server):
    return live_server


@pytest.mark.slow  # a real server on a socket
def test_a_huge_header_is_refused_early_and_the_worker_carries_on(production_server):
    """A 32 MiB cookie: the HTTP server stops reading at its head bound (MAX_REQUEST_HEAD_KB) and says 400
    (a bare answer only nginx can dress: deploy/nginx.conf); /healthz answers right after."""
    status, _, _ = exchange(
        production_server.port,
        b"GET /healthz HTTP/1.1\r\nHost: lens\r\nCookie: "
        + b"c" * (32 * 1024 * KiB)
        + b"\r\nConnection: close\r\n\r\n",
    )
    assert status == 400
    assert (
        exchange(production_server.port, b"GET /healthz HTTP/1.1\r\nHost: lens\r\nConnection: close\r\n\r\n")[0] == 200
    )
