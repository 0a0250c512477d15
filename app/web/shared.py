"""Shared answers: a link opened by a whole class is computed once, kept, and not sent again to a
browser that has it.

The deterministic GET answers (the page, /embed, /compare and their JSON twins: routes.CACHEABLE) are
the same bytes for everyone who sends the same request, so this layer does three things with them:

- **Single flight.** The first request for an answer (the leader) computes it; identical requests
  that arrive meanwhile (the followers) wait for its answer and are sent the same bytes. If the leader
  ends without a whole answer (it failed or was cancelled), each follower computes its own; a follower
  that goes away leaves the others waiting.
- **A response cache.** A whole 200 answer with an ETag is kept, least recently used first out, within
  `max_bytes` (counting everything an entry costs in memory: body, headers, key and the objects that
  hold them); one answer may take at most a quarter of it. Nothing per user.
- **Conditional requests** (RFC 9110, 13.1.2), for every GET or HEAD: a 200 whose ETag the request's
  If-None-Match names (weak comparison: W/"x" and "x" match, `*` matches any answer) becomes a 304
  without a body, kept or computed. The routes mark their deterministic answers with `cached()`.

Requests share an answer when their key is the same: a sha256 digest of the path, the exact query
string, gzip or not (as the compression layer behind this one will decide from Accept-Encoding) and the
language Accept-Language chooses, by the function the pages themselves use (a page without `lang` is
written in it; an error of the API names the field in it). So a key is 32 bytes however long the link.
A HEAD is answered as the GET with its key is (kept, followed or led: its answer is then kept for the
GETs), and sent without the body.
"""

import asyncio
import hashlib
import sys
from collections import OrderedDict
from dataclasses import dataclass, field

from fastapi.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from werkzeug.http import parse_etags, unquote_etag

from app.web import routes
from app.web.compression import accepts_gzip
from app.web.headers import pick_language, request_header, response_header

SHARED_PATHS = routes.CACHEABLE
# What an entry costs besides its objects: its slot in the OrderedDict (hash table entry and list node).
# tests/test_response_cache.py checks the whole accounting against what tracemalloc sees allocated.
SLOT_BYTES = 200
# A 304 carries the answer's validators and caching headers (ETag, Cache-Control, Vary), not its body's.
NOT_FOR_304 = (b"content-length", b"content-type", b"content-encoding")


IMMUTABLE_SECONDS = 31_536_000  # a year: how long a URL that changes with its bytes may be kept (assets, /api/fixed)


def cached(body: bytes, media_type: str, *, max_age: int, vary: str | None = None, immutable: bool = False) -> Response:
    """A response the same parameters always reproduce: a weak ETag from its bytes, public for max_age seconds
    (immutable: under a URL that changes with its bytes)."""
    etag = 'W/"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": f"public, max-age={max_age}" + (", immutable" if immutable else "")}
    if vary:
        headers["Vary"] = vary
    return Response(body, media_type=media_type, headers=headers)


def none_match(if_none_match: str, etag: str) -> bool:
    """False when If-None-Match names this ETag (weak comparison) or is `*`: the client has the answer.
    The parsing is Werkzeug's."""
    tags = parse_etags(if_none_match)
    opaque, _weak = unquote_etag(etag)
    return not tags.contains_weak(opaque)


def shareable(scope: Scope) -> bool:
    """A GET or HEAD of a deterministic route: its answer is the same for every request with its key."""
    return scope["method"] in ("GET", "HEAD") and scope["path"] in SHARED_PATHS


def page_language(scope: Scope) -> str:
    """The language a page without `lang` is written in: the page's own choice from the same header bytes."""
    return pick_language(None, request_header(scope, b"accept-language").decode("latin-1"))


def answer_key(scope: Scope) -> bytes:
    """sha256 of path, query string, gzip or not and the reader's language."""
    encoding = request_header(scope, b"accept-encoding")
    parts = (
        scope["path"].encode("utf-8"),
        scope.get("query_string", b""),
        b"gzip" if accepts_gzip(encoding) else b"",  # as the compression layer decides
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


def without_body(send: Send) -> Send:
    """A `send` that passes the status and headers but no body: a HEAD's (the GET's headers, its Content-Length
    too, RFC 9110 9.3.2) or a 304's."""

    async def head(message: Message) -> None:
        if message["type"] == "http.response.body":
            if message.get("more_body", False):
                return
            message = {"type": "http.response.body", "body": b""}
        await send(message)

    return head


def not_modified_if_matched(send: Send, if_none_match: str) -> Send:
    """A `send` that turns a 200 whose ETag If-None-Match names into a 304 without a body."""
    target = send  # without_body(send) once the answer is a 304: the body of the 200 is dropped

    async def answer(message: Message) -> None:
        nonlocal target
        if message["type"] == "http.response.start":
            etag = response_header(message, b"etag")
            if message["status"] == 200 and etag and not none_match(if_none_match, etag.decode("latin-1")):
                target = without_body(send)
                headers = [(name, value) for name, value in message.get("headers", []) if name not in NOT_FOR_304]
                message = {**message, "status": 304, "headers": headers}
        await target(message)

    return answer


@dataclass
class Flight:
    """A computation in progress: its answer when done (None if there was no whole answer)."""

    done: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    followers: int = 0


class SharedAnswers:
    """Single flight, a response cache of at most `max_bytes` (0: none) and 304s, as the module says."""

    def __init__(self, app: ASGIApp, max_bytes: int = 64 * 1024 * 1024, single_flight: bool = True):
        self.app = app
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_bytes // 4
        self.single_flight = single_flight
        self.entries: OrderedDict[bytes, Answer] = OrderedDict()
        self.size = 0  # bytes of all entries, as entry_bytes() counts them
        self.in_flight: dict[bytes, Flight] = {}
        self.computed = 0  # leaders so far: the number of shared computations (tests read it)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            return await self.app(scope, receive, send)
        if_none_match = request_header(scope, b"if-none-match")
        if if_none_match:
            send = not_modified_if_matched(send, if_none_match.decode("latin-1"))
        if not shareable(scope):
            return await self.app(scope, receive, send)
        if scope["method"] == "HEAD":
            scope, send = {**scope, "method": "GET"}, without_body(send)
        key = answer_key(scope)
        hit = self.entries.get(key)
        if hit is not None:
            self.entries.move_to_end(key)
            return await hit.send(send)
        flight = self.in_flight.get(key) if self.single_flight else None
        if flight is not None:
            flight.followers += 1
            answer: Answer | None = await asyncio.shield(flight.done)  # a cancelled follower leaves it alone
            if answer is not None:
                return await answer.send(send)
            return await self.app(scope, receive, send)
        await self.lead(key, scope, receive, send)

    async def lead(self, key: bytes, scope: Scope, receive: Receive, send: Send) -> None:
        """Compute the answer (followers, if any, wait for it) and keep it."""
        flight = None
        if self.single_flight:
            flight = self.in_flight[key] = Flight()
            self.computed += 1
        recorder = Recorder(send)
        try:
            await self.app(scope, receive, recorder)
        finally:
            answer = recorder.answer()
            if flight is not None:
                del self.in_flight[key]
                flight.done.set_result(answer)
        if answer is not None and answer.status == 200 and answer.header(b"etag"):
            self.store(key, answer)

    @staticmethod
    def entry_bytes(key: bytes, answer: Answer) -> int:
        return sys.getsizeof(key) + answer.memory() + SLOT_BYTES

    def store(self, key: bytes, answer: Answer) -> None:
        if self.max_bytes <= 0:
            return
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
