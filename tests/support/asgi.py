"""Calling an ASGI app directly, without a server: for tests of one middleware layer at a time."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any


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


async def call(app, scope) -> list[dict]:
    """The messages the app sends for one request with an empty body."""
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    return sent


def body_of(messages: list[dict]) -> bytes:
    return b"".join(message.get("body", b"") for message in messages if message["type"] == "http.response.body")
