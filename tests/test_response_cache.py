"""The in-process cache of deterministic GET answers (app.web.shared.SharedAnswers)."""

import gc
import threading
import tracemalloc

import orjson
import pytest
from fastapi.testclient import TestClient

import app.web.api
import app.web.pages
from app.main import create_app
from app.web.headers import pick_language
from app.web.shared import SharedAnswers, answer_key, page_language
from tests.support.asgi import call, http_scope, run_async

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


@pytest.mark.parametrize("path", [LINK, "/?source=a+link+first+asked+with+head"])
def test_a_head_first_keeps_the_answer_for_the_gets_that_follow(fresh_client, monkeypatch, path):
    """A link previewer's (or curl -I's) HEAD computes the answer once, as the GET would, and keeps it."""
    head = fresh_client.head(path)
    assert head.status_code == 200 and head.content == b""
    for module in (app.web.api, app.web.pages):
        monkeypatch.setattr(module, "compute_view", refuse_to_compute)
    got = fresh_client.get(path)
    assert got.status_code == 200 and got.headers["etag"] == head.headers["etag"]
    assert head.headers["content-length"] == got.headers["content-length"]  # of the gzip bytes: httpx unzips
    assert fresh_client.head(path).headers == head.headers


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


# ---------------------------------------------------------------------------
# The bound: keys and every byte an entry costs
# ---------------------------------------------------------------------------

PAD = 15_000


def padded_query(n):
    """A 2x2 exercise link padded with 15,000 `+` per matrix (~45 KB): distinct for every n, the same view."""
    return f"q={'+' * (PAD + n % 1000)}1,0;0,1&k={'+' * (PAD + n // 1000)}1,0;0,1&v={'+' * PAD}1;2".encode()


async def small_answer(scope, receive, send):
    """A ~1 KB answer made as the routes make theirs (orjson, which over-allocates its output), with a view's
    headers built afresh for each request."""
    body = orjson.dumps({"mode": "exercise", "padding": len(scope["query_string"]), "weights": [[0.5, 0.5]] * 60})
    headers = {
        "content-length": str(len(body)),
        "content-type": "application/json",
        "etag": f'W/"{len(scope["query_string"]):032x}"',
        "cache-control": "public, max-age=3600",
    }
    raw = [(name.encode(), value.encode()) for name, value in headers.items()]
    await send({"type": "http.response.start", "status": 200, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def request(query):
    return http_scope("/api/attention", query, [(b"accept-encoding", b"gzip")])


def test_a_key_is_a_digest_however_long_the_link():
    assert len(padded_query(0)) > 45_000
    assert len(answer_key(request(padded_query(0)))) == 32
    assert answer_key(request(padded_query(0))) != answer_key(request(padded_query(1)))
    assert answer_key(request(padded_query(0))) == answer_key(request(padded_query(0)))


@pytest.mark.parametrize("links, max_bytes", [(600, 4 * 1024 * 1024), (3000, 1024 * 1024)])
def test_the_accounting_covers_everything_the_entries_allocate(links, max_bytes):
    """Padded links: ~45 KB keys, small answers. What tracemalloc sees the cache holding is never more
    than the cache counts, and the count stays within the bound."""
    for thread in threading.enumerate():  # an app started by another test computes its lessons in the
        if thread.name == "prepare-lessons":  # background: its allocations would count (and tracemalloc
            thread.join()  # stopping while another thread allocates can crash Python 3.11)

    async def fill():
        cache = SharedAnswers(small_answer, max_bytes=max_bytes)
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for n in range(links):
                await call(cache, request(padded_query(n)))
            gc.collect()
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        return cache, held

    cache, held = run_async(fill)
    assert 0 < len(cache.entries) <= links
    assert cache.size <= max_bytes
    assert held <= cache.size, f"{held} bytes held, {cache.size} counted for {len(cache.entries)} entries"
    assert cache.size == sum(cache.entry_bytes(key, answer) for key, answer in cache.entries.items())
    assert list(cache.entries)[-1] == answer_key(request(padded_query(links - 1))), "the newest stays"


def test_least_recently_used_goes_first_and_a_replaced_entry_is_counted_once():
    async def fill():
        cache = SharedAnswers(small_answer, max_bytes=10_000)
        for n in range(3):
            await call(cache, request(b"q=%d" % n))
        await call(cache, request(b"q=0"))  # a hit: q=0 is now the most recent
        cache.store(answer_key(request(b"q=1")), cache.entries[answer_key(request(b"q=1"))])
        return cache

    cache = run_async(fill)
    assert cache.size == sum(cache.entry_bytes(key, answer) for key, answer in cache.entries.items())
    for n in range(3, 40):
        run_async(lambda n=n, cache=cache: call(cache, request(b"q=%d" % n)))
    assert cache.size <= 10_000
    assert answer_key(request(b"q=2")) not in cache.entries


def test_a_large_answer_is_kept_up_to_a_quarter_of_the_bound():
    async def big(scope, receive, send):
        body = bytes(int(scope["query_string"]))
        await send({"type": "http.response.start", "status": 200, "headers": [(b"etag", b'W/"x"')]})
        await send({"type": "http.response.body", "body": body})

    async def fill():
        cache = SharedAnswers(big, max_bytes=64 * 1024 * 1024)
        await call(cache, request(b"%d" % (12 * 1024 * 1024)))  # the largest view is ~12 MB
        await call(cache, request(b"%d" % (17 * 1024 * 1024)))
        return cache

    cache = run_async(fill)
    assert [len(answer.body) for answer in cache.entries.values()] == [12 * 1024 * 1024]


# ---------------------------------------------------------------------------
# The language: the key reads Accept-Language as the page does
# ---------------------------------------------------------------------------

# The same first 300 bytes; the end decides the language.
PADDING = "en;q=0.1," + "x-pad;q=0.01," * 22
ENDS_IN_CHINESE = PADDING + "zh-CN;q=0.9"
ENDS_IN_ENGLISH = PADDING + "fr;q=0.9"


def test_a_page_comes_in_the_language_its_header_chooses(fresh_client):
    assert len(PADDING) > 290
    chinese = fresh_client.get("/?source=walk", headers={"accept-language": ENDS_IN_CHINESE})
    english = fresh_client.get("/?source=walk", headers={"accept-language": ENDS_IN_ENGLISH})
    assert '<html lang="zh-CN"' in chinese.text
    assert '<html lang="en"' in english.text, "a header that shares its start with a Chinese one got the Chinese page"


def test_headers_that_choose_the_same_language_share_an_entry(fresh_client, monkeypatch):
    first = fresh_client.get("/?source=walk", headers={"accept-language": "zh-CN,zh;q=0.9"})
    monkeypatch.setattr(app.web.pages, "compute_view", refuse_to_compute)
    for header in ("zh", "zh-TW;q=0.8, en;q=0.2", ENDS_IN_CHINESE):
        assert fresh_client.get("/?source=walk", headers={"accept-language": header}).content == first.content


def test_the_key_uses_the_pages_own_choice():
    for header in (ENDS_IN_CHINESE, ENDS_IN_ENGLISH, "", "zh;q=0", "en, zh;q=0.5", "\xff" * 600 + ",zh"):
        scope = http_scope("/", b"", [(b"accept-language", header.encode("latin-1"))])
        assert page_language(scope) == pick_language(None, header)
