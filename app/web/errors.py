"""Bad input becomes a 422 whose message names the field and the limit, in the reader's language; never a 500.

Validation errors (pydantic's and our own, app/view/state.py) are translated here into
``{"detail": [{"loc", "msg", "type", "field"}], "message": "field: what is wrong"}``. ``loc`` and
``type`` are the same in every language; ``msg`` and ``message`` follow ``lang`` (the request's
parameter, else Accept-Language).
"""

from __future__ import annotations

from fastapi import Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.engine.models.registry import ModelUnavailable
from app.view.links import KNOWN, field_of, short
from app.view.messages import render
from app.web.headers import request_language
from app.web.jsonio import JSONBytes, dumps


class InvalidInput(Exception):
    """Validation failed for the query ("query") or the JSON body ("body") of a request."""

    def __init__(self, errors: list[dict], where: str):
        super().__init__(errors)
        self.errors = errors
        self.where = where


def error_items(errors: list[dict], where: str, lang: str) -> list[dict]:
    """pydantic's error dicts -> the API's items, with the field named and the message in `lang`."""
    items = []
    for error in errors:
        context = dict(error.get("ctx") or {})
        field = short(field_of(error))
        if error.get("type") == "extra_forbidden":
            context["known"] = list(KNOWN)
        positions = [part for part in error.get("loc", ()) if isinstance(part, int)]
        items.append(
            {
                "loc": [where, field, *positions],
                "msg": render(str(error.get("type")), context, lang, fallback=str(error.get("msg", "invalid"))),
                "type": str(error.get("type", "value_error")),
                "field": field,
            }
        )
    return items


def error_body(items: list[dict]) -> dict:
    first = items[0]
    where = "".join(f"[{part}]" for part in first["loc"][2:] if isinstance(part, int))
    return {"detail": items, "message": f"{first['field']}{where}: {first['msg']}"}


def invalid_answer(errors: list[dict], where: str, lang: str) -> JSONBytes:
    return JSONBytes(dumps(error_body(error_items(errors, where, lang))), status_code=422)


async def on_invalid_input(request: Request, error: InvalidInput) -> JSONBytes:
    return invalid_answer(error.errors, error.where, request_language(request))


async def on_validation_error(request: Request, error: RequestValidationError) -> JSONBytes:
    """FastAPI's own validation (routes with declared parameters, e.g. /learn?lang=, or a JSON body): each
    item keeps where it was found, `query` or `body`."""
    lang = request_language(request)
    items = []
    for item in error.errors():
        location = list(item.get("loc", ()))
        where = location[0] if location[:1] in (["query"], ["body"]) else "query"
        named = {**item, "loc": tuple(location[1:]) if location[:1] in (["query"], ["body"]) else location}
        items += error_items([named], where, lang)
    return JSONBytes(dumps(error_body(items)), status_code=422)


async def on_model_unavailable(request: Request, error: ModelUnavailable) -> JSONBytes:
    message = str(error.args[0]) if error.args else "the model is unavailable"
    return JSONBytes(dumps({"detail": message, "message": f"model: {message}"}), status_code=503)


async def on_http_error(request: Request, error: StarletteHTTPException) -> Response:
    """FastAPI's 400 for a body it cannot parse (bad UTF-8, absurd nesting) becomes the usual 422 about the body;
    a 405's Allow names every method of the path, not only the first route's (GET has a HEAD twin)."""
    if error.status_code == 400 and error.detail == "There was an error parsing the body":
        item = {"type": "json_invalid", "loc": ("body",), "msg": "invalid JSON"}
        return invalid_answer([item], "body", request_language(request))
    if error.status_code == 405:
        error = StarletteHTTPException(405, error.detail, headers={"Allow": ", ".join(allowed_methods(request))})
    return await http_exception_handler(request, error)


def allowed_methods(request: Request) -> list[str]:
    """The methods of every route whose path is the request's (RFC 9110, 15.5.6): app.state.route_methods."""
    path = request.scope["path"]  # not request.url, which fails on a path of bytes that are not UTF-8
    return sorted(
        {method for pattern, methods in request.app.state.route_methods if pattern.match(path) for method in methods}
    )


def raise_invalid(error: ValidationError, where: str) -> None:
    raise InvalidInput(error.errors(include_url=False), where) from None
