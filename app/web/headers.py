"""Reading one header of an ASGI request scope or response-start message, and the request's language."""

from starlette.requests import Request
from starlette.types import Message, Scope

from app.view.i18n import STRINGS, pick_language


def request_header(scope: Scope, name: bytes) -> bytes:
    """The first value of a request header, b"" if absent: the value Starlette's `request.headers.get` gives."""
    for key, value in scope.get("headers") or ():
        if key == name:
            return value
    return b""


def response_header(message: Message, name: bytes) -> bytes:
    """The first value of a header of an http.response.start message, b"" if absent."""
    for key, value in message.get("headers") or ():
        if key.lower() == name:
            return value
    return b""


def query_text(scope: Scope) -> str:
    """The request's query string as text. A link is percent-encoded UTF-8; raw bytes that are not UTF-8
    become U+FFFD, so the field they are in is refused by name (or, on a page, dropped) instead of the
    request failing (Starlette's `request.url` would raise)."""
    return scope.get("query_string", b"").decode("utf-8", errors="replace")


def request_language(request: Request) -> str:
    """The language of a request's answer: its `lang` parameter (en or zh), else Accept-Language."""
    explicit = request.query_params.get("lang")
    return pick_language(explicit if explicit in STRINGS else None, request.headers.get("accept-language"))
