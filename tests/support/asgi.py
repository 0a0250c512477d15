"""Calling an ASGI app directly, without a server: for tests of one middleware layer at a time."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import httpx
import orjson


def run_async(coroutine_function: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """asyncio.run in a thread of its own (Playwright's sync API may leave an event loop running in this one);
    returns the result or raises what the coroutine raised."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["result"] = asyncio.run(coroutine_function())
        except BaseException as error:  # noqa: BLE001 - handed back to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(300)
    if thread.is_alive():
        raise TimeoutError("the coroutine did not finish within 300 s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("result")


def http_scope(path: str, query: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None, method: str = "GET"):
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "headers": headers or [],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
        "root_path": "",
    }


async def call(app, scope, body: bytes = b"") -> list[dict]:
    """The messages the app sends for one request with this body (whole, in one message)."""
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    return sent


def body_of(messages: list[dict]) -> bytes:
    return b"".join(message.get("body", b"") for message in messages if message["type"] == "http.response.body")


class StrictJsonResponse(httpx.Response):
    """A response whose .json() is orjson's: as strict as a browser's JSON.parse (NaN and Infinity, which Python's
    json module reads, are refused) and four times as fast on the views' 30 to 170 KB of JSON."""

    def json(self, **kwargs: Any) -> Any:
        return orjson.loads(self.content) if not kwargs else super().json(**kwargs)


def strict_json(response: httpx.Response) -> httpx.Response:
    response.__class__ = StrictJsonResponse
    return response


class AppClient:
    """A synchronous client of an ASGI app in this process, like Starlette's TestClient (same base URL, client
    address, redirects followed, cookies kept; `raise_server_exceptions=False` turns an app's exception into a
    500 response), over httpx's ASGITransport on one event loop kept running in a thread of its own.

    Why not TestClient: it starts an event loop in a new thread for every request (3-4 ms each); here a request
    costs about 1 ms. The app's lifespan is not run (as with a TestClient not used in a `with`). A response's
    .json() is orjson's (StrictJsonResponse).
    """

    def __init__(self, app, raise_server_exceptions: bool = True) -> None:
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, name="app-client", daemon=True).start()
        transport = httpx.ASGITransport(
            app=app, raise_app_exceptions=raise_server_exceptions, client=("testclient", 50000)
        )

        async def make():
            return httpx.AsyncClient(transport=transport, base_url="http://testserver", follow_redirects=True)

        self._client = self._run(make())

    def _run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(300)

    def request(self, method: str, url: str, **options):
        return strict_json(self._run(self._client.request(method, url, **options)))

    # client.get(url, **options) is client.request("GET", url, **options), and so on.
    get = functools.partialmethod(request, "GET")
    head = functools.partialmethod(request, "HEAD")
    options = functools.partialmethod(request, "OPTIONS")
    post = functools.partialmethod(request, "POST")
    put = functools.partialmethod(request, "PUT")
    patch = functools.partialmethod(request, "PATCH")
    delete = functools.partialmethod(request, "DELETE")

    @contextlib.contextmanager
    def stream(self, method: str, url: str, **options):
        """The response with its body exactly as sent (`iter_raw()`), read whole first."""

        async def send():
            request = self._client.build_request(method, url, **options)
            response = await self._client.send(request, stream=True)
            try:
                raw = b"".join([chunk async for chunk in response.aiter_raw()])
            finally:
                await response.aclose()
            return StrictJsonResponse(
                response.status_code, headers=response.headers, stream=httpx.ByteStream(raw), request=request
            )

        response = self._run(send())
        try:
            yield response
        finally:
            response.close()
