"""Conditional GET (RFC 9110, section 13.1.2): a client that has the answer already gets 304 Not Modified.

The routes of deterministic answers mark them with `cached()`: an ETag made from their bytes and a
Cache-Control. `ConditionalGet` then compares the ETag of every 200 answer to a GET (or HEAD) with the
request's If-None-Match, by the weak comparison the RFC prescribes for it: W/"x" and "x" match each
other, and `*` matches any answer that exists. The parsing is Werkzeug's.
"""

import hashlib

from fastapi.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from werkzeug.http import parse_etags, unquote_etag

from app.web.headers import request_header, response_header

# A 304 carries the answer's validators and caching headers (ETag, Cache-Control, Vary), not its body's.
NOT_FOR_304 = (b"content-length", b"content-type", b"content-encoding")


def cached(body: bytes, media_type: str, *, max_age: int, vary: str | None = None) -> Response:
    """A response the same parameters always reproduce: a weak ETag from its bytes, public for max_age seconds."""
    etag = 'W/"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": f"public, max-age={max_age}"}
    if vary:
        headers["Vary"] = vary
    return Response(body, media_type=media_type, headers=headers)


def none_match(if_none_match: str, etag: str) -> bool:
    """False when If-None-Match names this ETag (weak comparison) or is `*`: the client has the answer."""
    tags = parse_etags(if_none_match)
    opaque, _weak = unquote_etag(etag)
    return not tags.contains_weak(opaque)


class ConditionalGet:
    """Turns a 200 answer to a GET whose ETag the client already has into a 304 without a body."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            return await self.app(scope, receive, send)
        if_none_match = request_header(scope, b"if-none-match")
        if not if_none_match:
            return await self.app(scope, receive, send)
        if_none_match = if_none_match.decode("latin-1")
        not_modified = False

        async def answer(message: Message) -> None:
            nonlocal not_modified
            if message["type"] == "http.response.start":
                etag = response_header(message, b"etag")
                if message["status"] == 200 and etag and not none_match(if_none_match, etag.decode("latin-1")):
                    not_modified = True
                    headers = [(name, value) for name, value in message.get("headers", []) if name not in NOT_FOR_304]
                    message = {**message, "status": 304, "headers": headers}
            elif not_modified and message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the body of the 200 is dropped
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        await self.app(scope, receive, answer)
