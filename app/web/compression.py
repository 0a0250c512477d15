"""Content-Encoding chosen from the request's Accept-Encoding, with its q-values (RFC 9110, 12.5.3).

    choose_encoding("gzip;q=0.5, br", ["br", "gzip"])  -> "br"
    choose_encoding("gzip;q=0", ["gzip"])              -> "identity"   (q=0 means "not this one")

Used by the static assets (brotli or gzip, compressed once), by the `Compression` layer of the
dynamic answers and by the shared answers' key (gzip or not), so that all of them read the header the
same way; the q-values are read by app.web.headers.accepted, as Accept-Language's are.
"""

import functools
from collections.abc import Sequence

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from app.web import routes
from app.web.headers import accepted, request_header

IDENTITY = "identity"
GZIP_MINIMUM_BYTES = 1000
GZIP_LEVEL = 1  # ~20x smaller JSON at a third of level 5's cost


def choose_encoding(header: str | None, available: Sequence[str]) -> str:
    """The coding of `available` (in the server's order of preference) the client wants most, or "identity".

    No header means identity. A coding not named takes the q of "*" if there is one. Identity
    competes with the q it is given (by name or by "*"); not named, it is the last resort. On a tie
    a compressed coding wins, and among codings the server's order. When the client refuses
    everything, identity is still sent: the server may ignore the header rather than answer 406.
    """
    if not header:
        return IDENTITY
    codings = accepted(header)
    wildcard = codings.get("*", 0.0)
    identity_q = codings.get(IDENTITY, wildcard)
    q, _, coding = max(((codings.get(c, wildcard), -i, c) for i, c in enumerate(available)), default=(0.0, 0, IDENTITY))
    return coding if q > 0 and q >= identity_q else IDENTITY


@functools.lru_cache(maxsize=64)
def accepts_gzip(accept_encoding: bytes) -> bool:
    """Does this Accept-Encoding value accept gzip? `gzip;q=0`, `identity` and an empty value do not; `*` does."""
    return choose_encoding(accept_encoding.decode("latin-1"), ["gzip"]) == "gzip"


def is_asset(scope: Scope) -> bool:
    return scope["path"].startswith(routes.ASSETS + "/")


class Compression(GZipMiddleware):
    """gzip for the dynamic answers when Accept-Encoding accepts it by its q-values; /assets/ untouched.

    Starlette's GZipMiddleware compresses (level 1, bodies of 1000 bytes or more, large bodies in a
    worker thread so the event loop keeps answering), but it tests the header for the substring "gzip",
    so it is first shown what is honoured: `gzip`, or no Accept-Encoding at all. The asset route serves
    its own precompressed bytes (brotli or gzip, chosen by the same `choose_encoding`)."""

    def __init__(self, app: ASGIApp):
        super().__init__(app, minimum_size=GZIP_MINIMUM_BYTES, compresslevel=GZIP_LEVEL)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or is_asset(scope):
            return await self.app(scope, receive, send)
        value = request_header(scope, b"accept-encoding")
        if value and value != b"gzip":
            headers = [(name, field) for name, field in scope["headers"] if name != b"accept-encoding"]
            if accepts_gzip(value):
                headers.append((b"accept-encoding", b"gzip"))
            scope = {**scope, "headers": headers}
        await super().__call__(scope, receive, send)
