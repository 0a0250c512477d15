"""A student for tests and benchmarks: one Server-Sent Events stream, read block by block (httpx, async).

    async with httpx.AsyncClient(base_url=server.base) as client, Student(client, code) as student:
        event = await student.next_event()          # the room's current view
        assert event.json()["view"] == "source=..."

Parsing follows the EventSource rules that matter here: `field: value` lines, `:` comments, a blank
line ends a block. Every wait has a deadline so a broken server fails a test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

import httpx

WAIT = 30.0  # seconds: a hang guard, not a speed requirement


@dataclass
class Block:
    """One block of the stream: an event (data), a comment (keep-alive) or a `retry:` line."""

    event: str = "message"
    data: str | None = None
    id: str | None = None
    retry: int | None = None
    comments: list[str] = field(default_factory=list)
    received: float = 0.0  # time.perf_counter() when its last line arrived

    def json(self) -> dict:
        assert self.data is not None, self
        return json.loads(self.data)


class Student:
    """GET /api/rooms/<code>/events on `client`; `status_code` and `headers` once entered."""

    def __init__(self, client: httpx.AsyncClient, code: str, *, last_event_id: str | None = None):
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        self.request = client.build_request("GET", f"/api/rooms/{code}/events", headers=headers)
        self.client = client
        self.response: httpx.Response | None = None
        self.lines = None
        self.ended = False  # the server closed the stream

    async def __aenter__(self) -> Student:
        self.response = await self.client.send(self.request, stream=True)
        self.lines = self.response.aiter_lines()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.response.aclose()

    @property
    def status_code(self) -> int:
        return self.response.status_code

    @property
    def headers(self) -> httpx.Headers:
        return self.response.headers

    async def next_block(self, timeout: float = WAIT) -> Block | None:
        """The next block, or None when the server ended the stream."""
        block = Block()
        async with asyncio.timeout(timeout):
            async for line in self.lines:
                if line == "":
                    block.received = time.perf_counter()
                    return block
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "":
                    block.comments.append(value)
                elif name == "data":
                    block.data = value if block.data is None else block.data + "\n" + value
                elif name in ("event", "id"):
                    setattr(block, name, value)
                elif name == "retry":
                    block.retry = int(value)
        self.ended = True
        return None

    async def next_event(self, timeout: float = WAIT) -> Block | None:
        """The next block that carries data (a view or a status), skipping comments and `retry:`."""
        deadline = time.monotonic() + timeout
        while True:
            block = await self.next_block(max(0.0, deadline - time.monotonic()))
            if block is None or block.data is not None:
                return block

    async def next_view(self, timeout: float = WAIT) -> Block:
        block = await self.next_event(timeout)
        assert block is not None and block.event == "message", block
        return block

    async def next_status(self, timeout: float = WAIT) -> str:
        block = await self.next_event(timeout)
        assert block is not None and block.event == "status", block
        return block.json()["status"]

    async def rest(self, timeout: float = WAIT) -> list[Block]:
        """Every block until the server ends the stream."""
        blocks = []
        while (block := await self.next_block(timeout)) is not None:
            blocks.append(block)
        return blocks
