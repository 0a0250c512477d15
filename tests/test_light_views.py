"""The typed sentence's short path (app/web/api.py's LightViews): GET /api/attention for a view computed in line is
answered before FastAPI's layers, with the very answer its route gives; everything else reaches the routes."""

import pytest

from app.main import create_app
from app.web.api import LightViews
from app.web.compression import Compression
from tests.support.asgi import body_of, call, http_scope, run_async

web = create_app()

LINKS = [
    b"source=the+cat+sat+on+the+mat",  # a typed sentence at the default settings
    b"source=walk+by+river+bank&heads=2&projection=random&attribution=norm&step=2",
    b"source=bank+of+the+river&target=%E6%B2%B3%E5%B2%B8&lang=zh",  # encoder-decoder
    b"source=the+cat+sat&plane=embedding",
    b"q=1,0;0,1&k=1,0;0,1&v=1;2",  # an exercise
    b"source=the+cat&score=nope",  # 422
    b"source=",  # 422
    b"source=%FF%FE",  # 422: not UTF-8
    b"source=" + b"word+" * 40,  # too long for in line: the routes compute it
]
HEADERS = [
    [(b"host", b"lens")],
    [(b"host", b"lens"), (b"accept-language", b"zh-CN"), (b"accept-encoding", b"gzip")],
]


def answer(app, query, headers):
    messages = run_async(lambda: call(app, http_scope("/api/attention", query, headers=headers)))
    return messages[0]["status"], messages[0]["headers"], body_of(messages)


def layers(app):
    """The app's HTTP layers, outermost first (each keeps the next in `.app`)."""
    found = []
    while hasattr(app, "app"):
        app = app.app
        found.append(app)
    return found


def test_the_app_takes_the_short_path_behind_its_compression():
    chain = layers(web)
    assert [type(layer) for layer in chain[-3:]] == [Compression, LightViews, type(web.routes_app)]


@pytest.mark.parametrize("headers", HEADERS)
@pytest.mark.parametrize("query", LINKS)
def test_the_short_path_answers_as_the_route_does(query, headers):
    """Status, every header (ETag, Cache-Control, Content-Type, Content-Length, gzip) and the body, byte for byte,
    against the routes alone, both behind the app's compression."""
    short = answer(Compression(LightViews(web.routes_app)), query, headers)
    routed = answer(Compression(web.routes_app), query, headers)
    assert short == routed


def refuse(scope, receive, send):
    raise AssertionError(f"the routes were asked for {scope['method']} {scope['path']}")


async def the_routes(scope, receive, send):
    the_routes.asked.append((scope["method"], scope["path"], scope["query_string"]))
    await web.routes_app(scope, receive, send)


def test_a_typed_sentence_and_its_422_never_reach_the_routes():
    short = LightViews(refuse)
    status, _, body = answer(short, b"source=the+cat+sat+on+the+mat", [])
    assert status == 200 and b'"the","cat","sat"' in body
    status, _, body = answer(short, b"source=the+cat&score=nope&lang=zh", [])
    assert status == 422 and b'"field":"score"' in body


def test_everything_else_reaches_the_routes():
    the_routes.asked = []
    short = LightViews(the_routes)
    long = b"source=" + b"word+" * 40
    assert answer(short, long, [])[0] == 200
    head = run_async(lambda: call(short, http_scope("/api/attention", b"source=the+cat", method="HEAD")))
    assert head[0]["status"] == 200
    assert run_async(lambda: call(short, http_scope("/api/arithmetic", b"source=the+cat")))[0]["status"] == 200
    assert the_routes.asked == [
        ("GET", "/api/attention", long),
        ("HEAD", "/api/attention", b"source=the+cat"),
        ("GET", "/api/arithmetic", b"source=the+cat"),
    ]
