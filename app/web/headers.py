"""Reading one header of an ASGI request scope or response-start message; the q-values of Accept-Encoding and
Accept-Language, read by one parser; the request's language."""

import functools

from starlette.requests import Request
from starlette.types import Message, Scope
from werkzeug.http import parse_accept_header

from app.view.i18n import STRINGS


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


@functools.lru_cache(maxsize=256)
def accepted(header: str) -> dict[str, float]:
    """An Accept-Encoding or Accept-Language value as {name in lower case: q}, the most wanted first (a tie in the
    header's order, "*" last), read by Werkzeug's parser of Accept headers (RFC 9110, 12.4.2).

        accepted("gzip;q=0.5, br")          -> {"br": 1, "gzip": 0.5}
        accepted("zh-CN, zh;q=0.9, en;Q=0") -> {"zh-cn": 1, "zh": 0.9, "en": 0.0}

    Spaces around ";" and "," do not matter, nor the case of a name or of "q"; an item without q has q=1; q=0
    means "not this one"; an item whose q is not a number from 0 to 1 (q=abc, q=1.5, q=.5) is ignored, as if not
    sent; "q = 0.5" (spaces around "=") is not a q parameter, so the item has q=1. A name given twice keeps its
    highest q. Do not change the returned dict: it is cached.
    """
    qualities: dict[str, float] = {}
    for value, quality in parse_accept_header(header):
        name = value.split(";", 1)[0].strip().lower()  # neither header defines a parameter other than q
        qualities.setdefault(name, float(quality))
    return qualities


def pick_language(explicit: str | None, accept_language: str | None) -> str:
    """The `lang` parameter if given, else the en or zh that Accept-Language wants most (an en-* or zh-* tag counts
    for its language; on a tie the first named), else en."""
    if explicit:
        return explicit
    for tag, quality in accepted(accept_language or "").items():
        language = tag.split("-", 1)[0]
        if quality > 0 and language in STRINGS:
            return language
    return "en"
