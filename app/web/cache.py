"""The in-process cache of the deterministic GET answers (the page, /embed, /api/attention), bounded in bytes.

A link shared with a class is opened by everyone: the first request computes, later ones get these bytes
(and their ETag, or a 304 from ConditionalGet) without validation or computation. Nothing per user.

The key is a sha256 digest of what an answer depends on: the path, the exact query string, gzip or
not, and the language that Accept-Language chooses, by the function the pages themselves use (a page
without `lang` is written in it; an error of the API names the field in it, and single flight shares
errors too).
So a key is 32 bytes however long the link, and two browsers whose headers choose the same language
share an entry. The bound counts everything an entry costs in memory (body, headers, key and the
objects that hold them), least recently used first out; one answer may take at most a quarter of it.
"""

import hashlib
import sys
from collections import OrderedDict
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.view.i18n import pick_language
from app.web import routes
from app.web.headers import request_header, response_header

SHARED_PATHS = routes.CACHEABLE
# What an entry costs besides its objects: its slot in the OrderedDict (hash table entry and list node).
# tests/test_response_cache.py checks the whole accounting against what tracemalloc sees allocated.
SLOT_BYTES = 200


def shareable(scope: Scope) -> bool:
    """A GET of a deterministic route: its answer may be shared with other requests for the same key."""
    return scope["type"] == "http" and scope["method"] == "GET" and scope["path"] in SHARED_PATHS


def page_language(scope: Scope) -> str:
    """The language a page without `lang` is written in: the page's own choice from the same header bytes."""
    return pick_language(None, request_header(scope, b"accept-language").decode("latin-1"))


def answer_key(scope: Scope) -> bytes:
    """sha256 of path, query string, gzip or not (NegotiateGzip leaves `gzip` or nothing) and the reader's language."""
    path = scope["path"]
    parts = (
        path.encode("utf-8"),
        scope.get("query_string", b""),
        request_header(scope, b"accept-encoding"),
        page_language(scope).encode("ascii"),
    )
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.digest()


@dataclass(frozen=True, slots=True)
class Answer:
    """A whole HTTP answer, kept to be sent again."""

    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes

    def header(self, name: bytes) -> bytes:
        return response_header({"headers": self.headers}, name)

    def memory(self) -> int:
        """Bytes these objects take (sys.getsizeof: each object's own size, payload included)."""
        pairs = sum(sys.getsizeof(pair) + sys.getsizeof(pair[0]) + sys.getsizeof(pair[1]) for pair in self.headers)
        return sys.getsizeof(self) + sys.getsizeof(self.headers) + pairs + sys.getsizeof(self.body)

    async def send(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": list(self.headers)})
        await send({"type": "http.response.body", "body": self.body})


class Recorder:
    """A `send` that passes an answer on and keeps a copy of it."""

    def __init__(self, send: Send):
        self.send = send
        self.status = 0
        self.headers: tuple[tuple[bytes, bytes], ...] = ()
        self.chunks: list[bytes] = []
        self.complete = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = tuple((bytes(name), bytes(value)) for name, value in message.get("headers", ()))
        elif message["type"] == "http.response.body":
            self.chunks.append(message.get("body", b""))
            self.complete = not message.get("more_body", False)
        await self.send(message)

    def answer(self) -> Answer | None:
        """The answer sent, if it was sent whole."""
        return Answer(self.status, self.headers, b"".join(self.chunks)) if self.complete else None


class ResponseCache:
    """Answers 200s with an ETag of the shared routes from memory; at most `max_bytes` in all."""

    def __init__(self, app: ASGIApp, max_bytes: int = 64 * 1024 * 1024):
        self.app = app
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_bytes // 4
        self.entries: OrderedDict[bytes, Answer] = OrderedDict()
        self.size = 0  # bytes of all entries, as entry_bytes() counts them

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not shareable(scope):
            return await self.app(scope, receive, send)
        key = answer_key(scope)
        hit = self.entries.get(key)
        if hit is not None:
            self.entries.move_to_end(key)
            return await hit.send(send)
        recorder = Recorder(send)
        await self.app(scope, receive, recorder)
        answer = recorder.answer()
        if answer is not None and answer.status == 200 and answer.header(b"etag"):
            self.store(key, answer)

    @staticmethod
    def entry_bytes(key: bytes, answer: Answer) -> int:
        return sys.getsizeof(key) + answer.memory() + SLOT_BYTES

    def store(self, key: bytes, answer: Answer) -> None:
        # A copy of exactly its length: a body straight from orjson keeps the spare capacity of orjson's
        # buffer (len() 1 KB, allocated 8 KB), which no size count sees.
        answer = Answer(answer.status, answer.headers, memoryview(answer.body).tobytes())
        cost = self.entry_bytes(key, answer)
        if cost > self.max_entry_bytes:
            return
        if key in self.entries:
            self.size -= self.entry_bytes(key, self.entries.pop(key))
        self.entries[key] = answer
        self.size += cost
        while self.size > self.max_bytes:
            old_key, old = self.entries.popitem(last=False)
            self.size -= self.entry_bytes(old_key, old)
