"""The access log: one JSON object per line, nothing a client sends can forge a line or write a control
character. Fuzzed in process with hypothesis; checked on the real server's output."""

import io
import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.main import create_app
from app.settings import Settings
from app.web.accesslog import MAX_FIELD_CHARS, JsonLines, access_log
from tests.support.asgi import call, http_scope, run_async
from tests.support.examples import examples
from tests.support.live_server import AppServer
from tests.test_hardening import exchange

PRINTABLE_ASCII = {chr(code) for code in range(0x20, 0x7F)}


@pytest.fixture(scope="module")
def logged():
    """The app with its access log written (JSON lines) into a buffer the test reads."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(JsonLines())
    level, propagate = access_log.level, access_log.propagate
    access_log.addHandler(handler)
    access_log.setLevel(logging.INFO)
    access_log.propagate = False
    yield create_app(), buffer
    access_log.removeHandler(handler)
    access_log.setLevel(level)
    access_log.propagate = propagate


def the_line(buffer):
    """The one line the last request wrote, checked: printable ASCII only, ended by a single newline."""
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    assert text.endswith("\n") and text.count("\n") == 1, repr(text[:300])
    line = text[:-1]
    assert set(line) <= PRINTABLE_ASCII, {char for char in line if char not in PRINTABLE_ASCII}
    return json.loads(line)


def log_one(app, buffer, path, query, headers, method="GET"):
    scope = http_scope(path, query, headers, method)
    run_async(lambda: call(app, scope))
    return the_line(buffer)


any_text = st.text(st.characters(codec="utf-8"), max_size=300)  # control characters, newlines, escapes, CJK
header_names = st.sampled_from([b"user-agent", b"referer", b"accept-language", b"x-forwarded-for", b"cookie"])


@settings(max_examples=examples(200), deadline=None)
@given(
    path=any_text.map(lambda text: "/" + text),
    query=st.binary(max_size=300),
    headers=st.lists(st.tuples(header_names, st.binary(max_size=200)), max_size=4),
    method=st.sampled_from(["GET", "POST", "HEAD", "GE\nT"]),
)
def test_whatever_a_request_holds_makes_one_clean_json_line(logged, path, query, headers, method):
    app, buffer = logged
    record = log_one(app, buffer, path, query, headers, method)
    assert record["path"] == path[:MAX_FIELD_CHARS]
    assert record["query"] == query[:MAX_FIELD_CHARS].decode("latin-1")
    assert record["method"] == method
    assert isinstance(record["status"], int) and isinstance(record["ms"], float) and record["pid"] > 0


@pytest.mark.parametrize(
    "path",
    [
        '/\r\n{"time":"forged","status":200}',  # what %0d%0a decodes to
        "/\x1b[31mred\x1b[0m",  # what %1b[31m decodes to
        "/\u2028\u2029\x85\x00\x7f",
        "/" + "a" * 5000,
    ],
)
def test_known_injections(logged, path):
    app, buffer = logged
    record = log_one(app, buffer, path, b"x=%0d%0a\x1b", [])
    assert record["path"] == path[:MAX_FIELD_CHARS]
    assert record["status"] == 404


@pytest.mark.slow  # a real server on a socket
def test_the_real_servers_log_is_json_lines():
    with AppServer(Settings(access_log=True)) as server:
        for target in (b"/%0d%0a%7B%22forged%22:1%7D", b"/%1b[31mred", b"/api/attention?source=%0d%0a%1b&x=%00"):
            exchange(server.port, b"GET " + target + b" HTTP/1.1\r\nHost: lens\r\nConnection: close\r\n\r\n")
        exchange(server.port, b"GET /healthz HTTP/1.1\r\nHost: lens\r\nConnection: close\r\n\r\n")
        output = server.output()
    assert "\x1b" not in output
    records = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    paths = [record["path"] for record in records]
    assert '/\r\n{"forged":1}' in paths and "/\x1b[31mred" in paths and "/healthz" in paths
    assert all(set(line) <= PRINTABLE_ASCII for line in output.splitlines() if line.startswith("{"))
    assert not any(line.startswith('{"forged"') for line in output.splitlines())
