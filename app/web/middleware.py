"""HTTP concerns shared by every route: security headers, request limits, caching by ETag.

Pure ASGI middleware (no per-request task switching), so it costs next to nothing per request.
"""

import hashlib
import logging
import time
from collections import OrderedDict

from fastapi import Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException

from app.web import routes
from app.web.compression import choose_encoding

access_log = logging.getLogger("attention_lens.access")

MAX_BODY_BYTES = 64 * 1024
MAX_URL_BYTES = 48 * 1024  # a 32x32 exercise with q, k and v written out fits comfortably
BODY_TOO_LARGE = f"body: at most {MAX_BODY_BYTES} bytes (64 KiB)"

# No inline script, no eval: embedded data travels in <script type="application/json"> blocks.
# style-src allows inline styles because Plotly sets style attributes on the charts it draws.
PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors {ancestors}"
)
# Swagger UI (/docs) and ReDoc start with an inline script of FastAPI's own; they show no user text.
DOCS_CSP = PAGE_CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")


def security_headers(path):
    embeddable = path in routes.FRAMEABLE
    csp = DOCS_CSP if path in (routes.DOCS, routes.REDOC) else PAGE_CSP
    headers = [
        (b"content-security-policy", csp.format(ancestors="*" if embeddable else "'none'").encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
    ]
    if not embeddable:
        headers.append((b"x-frame-options", b"DENY"))
    return headers


def plain_error(status, message):
    return Response(message + "\n", status_code=status, media_type="text/plain; charset=utf-8")


class Hardening:
    """Adds the security headers to every response, refuses oversized URLs and bodies, and writes
    one access-log line per request with its status and time in milliseconds."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        status = [0]
        try:
            await self.limited(scope, receive, send, status)
        finally:
            if access_log.isEnabledFor(logging.INFO):
                client = (scope.get("client") or ("-", 0))[0]
                query = scope.get("query_string", b"")
                target = scope["path"] + ("?" + query.decode("latin-1") if query else "")
                elapsed = (time.perf_counter() - started) * 1000
                access_log.info('%s "%s %s" %d %.1fms', client, scope["method"], target[:300], status[0], elapsed)

    async def limited(self, scope, receive, send, status):
        extra = security_headers(scope["path"])

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + extra
                status[0] = message["status"]
            await send(message)

        if len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") > MAX_URL_BYTES:
            response = plain_error(414, f"URL: at most {MAX_URL_BYTES} bytes")
            return await response(scope, receive, send_with_headers)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
            response = plain_error(413, BODY_TOO_LARGE)
            return await response(scope, receive, send_with_headers)

        received = 0

        async def limited_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY_BYTES:
                    raise BodyTooLarge()
            return message

        try:
            await self.app(scope, limited_receive, send_with_headers)
        except BodyTooLarge:
            response = plain_error(413, BODY_TOO_LARGE)
            await response(scope, receive, send_with_headers)


class BodyTooLarge(HTTPException):
    """Raised while the body streams in; an HTTPException so FastAPI's body reader passes it on as 413."""

    def __init__(self):
        super().__init__(413, BODY_TOO_LARGE)


def client_has(if_none_match, etag):
    """Does an If-None-Match header name this ETag?"""
    return etag in [tag.strip() for tag in if_none_match.split(",")]


def cached(request: Request, body: bytes, media_type: str, *, max_age: int, vary: str | None = None):
    """A response the same parameters always reproduce: ETag from its bytes, 304 when the client has it."""
    etag = 'W/"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": f"public, max-age={max_age}"}
    if vary:
        headers["Vary"] = vary
    if client_has(request.headers.get("if-none-match", ""), etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


class ResponseCache:
    """Keeps recent answers of the deterministic GET routes (the page, /embed, /api/attention) in memory.

    A link shared with a class is opened by everyone at once: the first request computes, the rest
    are served these bytes (and their ETag, or a 304) without validation or computation. The key is
    the exact request target plus what the answer depends on besides it (gzip or not; the language,
    for pages). Holds at most `max_bytes`; least recently used answers go first. Nothing per user.
    """

    PATHS = routes.CACHEABLE

    def __init__(self, app, max_bytes=64 * 1024 * 1024, max_entry_bytes=4 * 1024 * 1024):
        self.app = app
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_entry_bytes
        self.entries = OrderedDict()  # key -> (status, headers, body, etag)
        self.size = 0

    def key(self, scope, headers):
        gzip = choose_encoding(headers.get(b"accept-encoding", b"").decode("latin-1"), ["gzip"]) == "gzip"
        language = headers.get(b"accept-language", b"")[:200] if scope["path"] != routes.API_ATTENTION else b""
        return (scope["path"], scope.get("query_string", b""), gzip, language)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"] not in self.PATHS:
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        key = self.key(scope, headers)
        hit = self.entries.get(key)
        if hit is not None:
            self.entries.move_to_end(key)
            return await self.replay(hit, headers, send)

        started = {}
        chunks = []

        async def record(message):
            if message["type"] == "http.response.start":
                started.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    self.store(key, started, b"".join(chunks))
            await send(message)

        await self.app(scope, receive, record)

    def store(self, key, start, body):
        if start.get("status") != 200 or len(body) > self.max_entry_bytes:
            return
        raw_headers = list(start.get("headers", []))
        etag = dict(raw_headers).get(b"etag")
        if etag is None:
            return
        self.entries[key] = (200, raw_headers, body, etag)
        self.size += len(body)
        while self.size > self.max_bytes:
            _, (_, _, old_body, _) = self.entries.popitem(last=False)
            self.size -= len(old_body)

    async def replay(self, entry, request_headers, send):
        status, headers, body, etag = entry
        if client_has(request_headers.get(b"if-none-match", b"").decode("latin-1"), etag.decode("latin-1")):
            kept = [
                (name, value)
                for name, value in headers
                if name not in (b"content-length", b"content-encoding", b"content-type")
            ]
            await send({"type": "http.response.start", "status": 304, "headers": kept})
            await send({"type": "http.response.body", "body": b""})
            return
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
