"""Bad input becomes a 422 whose message names the field and the limit; never a 500."""

from fastapi import Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.view.state import InputError
from app.web.jsonio import JSONBytes, dumps


def field_of(location):
    """('query', 'temperature') -> 'temperature'; ('body', 'q', 3, 1) -> 'q'; ('body', 9) -> 'body'.

    A number straight after 'body' is a position in malformed JSON text, so the body is at fault.
    """
    rest = list(location[1:]) if location and location[0] in ("query", "body") else list(location)
    if not rest or not isinstance(rest[0], str):
        return location[0] if location and location[0] == "body" else "request"
    return rest[0]


def clean_message(message):
    return message.removeprefix("Value error, ")


def validation_items(errors):
    items = []
    for error in errors:
        location = list(error.get("loc", ()))
        items.append(
            {
                "loc": location,
                "msg": clean_message(str(error.get("msg", "invalid"))),
                "type": str(error.get("type", "value_error")),
                "field": field_of(location),
            }
        )
    return items


def error_body(items):
    first = items[0]
    where = "".join(f"[{part}]" for part in first["loc"][2:] if isinstance(part, int))
    return {"detail": items, "message": f"{first['field']}{where}: {first['msg']}"}


async def on_validation_error(request: Request, error: RequestValidationError):
    return JSONBytes(dumps(error_body(validation_items(error.errors()))), status_code=422)


async def on_input_error(request: Request, error: InputError):
    where = "body" if request.method == "POST" else "query"
    item = {"loc": [where, error.field], "msg": error.message, "type": "value_error", "field": error.field}
    return JSONBytes(dumps(error_body([item])), status_code=422)


async def on_model_unavailable(request: Request, error: Exception):
    message = str(error.args[0]) if error.args else "the model is unavailable"
    return JSONBytes(dumps({"detail": message, "message": f"model: {message}"}), status_code=503)


async def on_http_error(request: Request, error: StarletteHTTPException):
    """FastAPI's 400 for a body it cannot parse (bad UTF-8, absurd nesting or numbers) becomes our 422."""
    if error.status_code == 400 and error.detail == "There was an error parsing the body":
        item = {
            "loc": ["body"],
            "msg": "not readable as JSON: UTF-8 text, sensible nesting and numbers",
            "type": "json_invalid",
            "field": "body",
        }
        return JSONBytes(dumps(error_body([item])), status_code=422)
    return await http_exception_handler(request, error)
