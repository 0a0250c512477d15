"""The guard every request passes: security headers on every answer, limits on what comes in, and a
bound on what a slow reader can hold on the way out.

In:  a URL over 48 KiB gets 414, header fields over 16 KiB in all 431, a body over 64 KiB 413 (as
     declared, or as it streams in).
Out: every answer, whoever writes it (a route, an error handler, the framework's 500), carries the
     security headers of its path (CSP, nosniff, no referrer, frames only for /embed). A large body
     leaves in pieces of 64 KiB: a body handed to the HTTP server in one message is copied into the
     connection's write buffer whole, so a client that never reads would keep that copy (about 1 MB
     for the largest view) for as long as it stays connected. In pieces, each waits until the previous
     ones have drained (uvicorn's flow control), and a client that takes more than SEND_TIMEOUT
     seconds to make room for the next one is dropped: the answer stops there and the server closes
     the connection, as nginx's send_timeout does in front of it.

Pure ASGI (no per-request task switching), so it costs next to nothing per request.
"""

import asyncio

from fastapi.responses import Response
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web import routes

MAX_BODY_BYTES = 64 * 1024
MAX_URL_BYTES = 48 * 1024  # a 32x32 exercise with q, k and v written out fits comfortably
MAX_HEADER_BYTES = 16 * 1024  # all header fields together, as sent ("name: value\r\n" each)
BODY_TOO_LARGE = f"body: at most {MAX_BODY_BYTES} bytes (64 KiB)"
HEADERS_TOO_LARGE = f"request headers: at most {MAX_HEADER_BYTES} bytes (16 KiB) in all"
PIECE_BYTES = 64 * 1024

# No inline script, no eval: embedded data travels in <script type="application/json"> blocks.
# style-src allows inline styles because Plotly sets style attributes on the charts it draws.
PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors {ancestors}"
)
# Swagger UI (/docs) and ReDoc start with an inline script of FastAPI's own; they show no user text.
DOCS_CSP = PAGE_CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")


def security_headers(path: str) -> list[tuple[bytes, bytes]]:
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


def plain_error(status: int, message: str) -> Response:
    return Response(message + "\n", status_code=status, media_type="text/plain; charset=utf-8")


def header_bytes(scope: Scope) -> int:
    """The size of the request's header fields as they were sent."""
    return sum(len(name) + len(value) + 4 for name, value in scope.get("headers") or ())


def refusal(scope: Scope) -> Response | None:
    """The answer to a request too large to read (414, 431, 413 for a declared body), or None."""
    if len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") > MAX_URL_BYTES:
        return plain_error(414, f"URL: at most {MAX_URL_BYTES} bytes")
    if header_bytes(scope) > MAX_HEADER_BYTES:
        return plain_error(431, HEADERS_TOO_LARGE)
    declared = dict(scope.get("headers") or []).get(b"content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
        return plain_error(413, BODY_TOO_LARGE)
    return None


class BodyTooLarge(HTTPException):
    """Raised while the body streams in; an HTTPException so FastAPI's body reader passes it on as 413."""

    def __init__(self):
        super().__init__(413, BODY_TOO_LARGE)


class ClientStoppedReading(Exception):
    """A piece of the answer could not be sent within the send timeout."""


class Guard:
    """Security headers on every answer; 414, 431 and 413 for oversized requests; large bodies in pieces,
    a client that stops reading for `send_timeout` seconds dropped."""

    def __init__(self, app: ASGIApp, send_timeout: float = 10.0):
        self.app = app
        self.send_timeout = send_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        extra = security_headers(scope["path"])

        async def guarded_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + extra
                return await send(message)
            body = message.get("body", b"") if message["type"] == "http.response.body" else b""
            if len(body) <= PIECE_BYTES:
                return await send(message)
            more_body = message.get("more_body", False)
            whole = memoryview(body)
            for start in range(0, len(body), PIECE_BYTES):
                last = start + PIECE_BYTES >= len(body)
                piece = bytes(whole[start : start + PIECE_BYTES])
                try:
                    async with asyncio.timeout(self.send_timeout):
                        await send({"type": "http.response.body", "body": piece, "more_body": more_body or not last})
                except TimeoutError:
                    raise ClientStoppedReading() from None

        refused = refusal(scope)
        if refused is not None:
            return await refused(scope, receive, guarded_send)
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY_BYTES:
                    raise BodyTooLarge()
            return message

        try:
            await self.app(scope, limited_receive, guarded_send)
        except BodyTooLarge:
            await plain_error(413, BODY_TOO_LARGE)(scope, receive, guarded_send)
        except ClientStoppedReading:
            return  # an answer left incomplete: the server closes the connection
