"""The in-process cache of deterministic GET answers (app.web.middleware.ResponseCache)."""

import asyncio
import threading

import pytest
from fastapi.testclient import TestClient

import app.web.api
import app.web.pages
from app.main import create_app
from app.web.middleware import ResponseCache

LINK = "/api/attention?source=the+cat+sat+on+the+mat&heads=2"


@pytest.fixture()
def fresh_client():
    with TestClient(create_app()) as client:
        yield client


def refuse_to_compute(*args, **kwargs):
    raise AssertionError("computed again: the cache did not answer")


def test_a_repeated_link_is_answered_from_the_cache(fresh_client, monkeypatch):
    first = fresh_client.get(LINK)
    assert first.status_code == 200
    monkeypatch.setattr(app.web.api, "compute_view", refuse_to_compute)
    again = fresh_client.get(LINK)
    assert again.status_code == 200
    assert again.content == first.content
    assert again.headers["etag"] == first.headers["etag"]
    assert again.headers["content-security-policy"] == first.headers["content-security-policy"]
    not_modified = fresh_client.get(LINK, headers={"if-none-match": first.headers["etag"]})
    assert not_modified.status_code == 304 and not_modified.content == b""
    assert not_modified.headers["etag"] == first.headers["etag"]
    with pytest.raises(AssertionError, match="computed again"):
        fresh_client.get(LINK + "&step=1")  # another link is another entry


def test_gzip_and_identity_are_kept_apart(fresh_client):
    plain = fresh_client.get(LINK, headers={"accept-encoding": "identity"})
    zipped = fresh_client.get(LINK, headers={"accept-encoding": "gzip"})
    plain_again = fresh_client.get(LINK, headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain_again.headers
    assert plain_again.content == plain.content
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.content == plain.content  # httpx decompressed it


def test_pages_are_kept_per_language(fresh_client, monkeypatch):
    english = fresh_client.get("/?source=walk", headers={"accept-language": "en"})
    chinese = fresh_client.get("/?source=walk", headers={"accept-language": "zh-CN"})
    monkeypatch.setattr(app.web.pages, "compute_view", refuse_to_compute)
    assert fresh_client.get("/?source=walk", headers={"accept-language": "zh-CN"}).text == chinese.text
    assert 'lang="zh-CN"' in chinese.text and 'lang="en"' in english.text


def test_errors_are_not_kept(fresh_client, monkeypatch):
    assert fresh_client.get("/api/attention?score=nope").status_code == 422
    calls = []
    original = app.web.api.state_from_query
    monkeypatch.setattr(app.web.api, "state_from_query", lambda query: calls.append(1) or original(query))
    assert fresh_client.get("/api/attention?score=nope").status_code == 422
    assert fresh_client.get("/api/attention?source=%20").status_code == 422
    assert fresh_client.get("/api/attention?source=%20").status_code == 422
    assert len(calls) == 3  # every bad request is validated again


def test_the_cache_stays_within_its_size():
    # A thread of its own: Playwright's sync API may leave an event loop running in this one.
    errors = []
    worker = threading.Thread(target=lambda: errors.extend(run_collecting(fill_a_small_cache)))
    worker.start()
    worker.join(30)
    assert errors == []


def run_collecting(coroutine_function):
    try:
        asyncio.run(coroutine_function())
    except Exception as error:  # noqa: BLE001 - handed back to the test's thread
        return [error]
    return []


async def fill_a_small_cache():
    async def answer(scope, receive, send):
        body = scope["query_string"] * 100
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"etag", b'W/"' + scope["query_string"] + b'"')],
            }
        )
        await send({"type": "http.response.body", "body": body})

    cache = ResponseCache(answer, max_bytes=1000)

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        pass

    for i in range(20):
        scope = {"type": "http", "method": "GET", "path": "/api/attention", "query_string": b"q=%d" % i, "headers": []}
        await cache(scope, receive, send)
    assert cache.size <= 1000
    assert 0 < len(cache.entries) < 20
    assert list(cache.entries)[-1][1] == b"q=19"  # the newest stays, the oldest went first
