"""HTTP concerns shared by every route: security headers and request limits.

Pure ASGI middleware (no per-request task switching), so it costs next to nothing per request. The
other layers each have a module of their own (app.main lists them in order): the access log
(accesslog.py), answers sent in pieces (backpressure.py), HEAD (head.py), 304s (conditional.py),
gzip (compress.py), the response cache (cache.py) and single flight (coalesce.py).
"""

from fastapi.responses import Response
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web import routes

MAX_BODY_BYTES = 64 * 1024
MAX_URL_BYTES = 48 * 1024  # a 32x32 exercise with q, k and v written out fits comfortably
MAX_HEADER_BYTES = 16 * 1024  # all header fields together, as sent ("name: value\r\n" each)
BODY_TOO_LARGE = f"body: at most {MAX_BODY_BYTES} bytes (64 KiB)"
HEADERS_TOO_LARGE = f"request headers: at most {MAX_HEADER_BYTES} bytes (16 KiB) in all"

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


class Hardening:
    """Adds the security headers to every response; refuses oversized URLs (414), header fields (431)
    and bodies (413)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        extra = security_headers(scope["path"])

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        if len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") > MAX_URL_BYTES:
            response = plain_error(414, f"URL: at most {MAX_URL_BYTES} bytes")
            return await response(scope, receive, send_with_headers)
        if header_bytes(scope) > MAX_HEADER_BYTES:
            response = plain_error(431, HEADERS_TOO_LARGE)
            return await response(scope, receive, send_with_headers)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
            response = plain_error(413, BODY_TOO_LARGE)
            return await response(scope, receive, send_with_headers)

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
            await self.app(scope, limited_receive, send_with_headers)
        except BodyTooLarge:
            response = plain_error(413, BODY_TOO_LARGE)
            await response(scope, receive, send_with_headers)


class BodyTooLarge(HTTPException):
    """Raised while the body streams in; an HTTPException so FastAPI's body reader passes it on as 413."""

    def __init__(self):
        super().__init__(413, BODY_TOO_LARGE)
