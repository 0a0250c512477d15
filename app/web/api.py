"""The JSON API: translates HTTP to app.view (links, state, compute) and back, nothing more.

``GET /api/attention?<link>`` is the JSON twin of the page at ``/?<link>``; ``POST`` takes the same
fields as a JSON object (matrices as lists of rows). ``GET /api/arithmetic?<link>`` is the twin of
the arithmetic panel alone: the page asks it when stepping, instead of the whole view.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from app.view.answer import Answer
from app.view.compare import compare_view
from app.view.compute import compute_view, is_light
from app.view.fixed import answer_apart, settings_of, settings_query, shared_part
from app.view.links import comparison_from_query, state_from_query, state_from_values
from app.view.state import COMPARE_SPECS, PANES, SPECS, Comparison, State
from app.web import routes
from app.web.errors import InvalidInput, invalid_answer, raise_invalid
from app.web.headers import query_text, request_language
from app.web.jsonio import JSONBytes, dumps
from app.web.schema import ArithmeticResponse, CompareResponse, ErrorResponse, FixedResponse
from app.web.shared import IMMUTABLE_SECONDS, cached

router = APIRouter()

TEXT_ERROR = {"content": {"text/plain": {"schema": {"type": "string"}}}}
ERRORS = {
    413: {**TEXT_ERROR, "description": "The body is over 64 KiB."},
    414: {**TEXT_ERROR, "description": "The URL is over 48 KiB."},
    422: {"model": ErrorResponse, "description": "Bad input: the message names the field and the limit."},
    503: {"model": ErrorResponse, "description": "A real model is not installed or failed its check."},
}


def query_parameters() -> list[dict]:
    """OpenAPI's description of the query string, from the parameter declarations (app/view/state.py)."""
    schema = State.model_json_schema()["properties"]
    parameters = []
    for name, spec in SPECS.items():
        field = dict(schema[name])
        if spec.type in ("matrix", "labels"):
            field = {"type": "string", "description": field.get("description", "")}
        parameters.append(
            {"name": name, "in": "query", "required": False, "description": spec.description, "schema": field}
        )
    return parameters


def compare_parameters() -> list[dict]:
    """OpenAPI's description of /api/compare's query string, from the same declarations: the comparison's
    own parameters, then each pane's, named with the pane's prefix (`a.source`, `b.temperature`, ...)."""
    schema = Comparison.model_json_schema()["properties"]
    own = [
        {"name": name, "in": "query", "required": False, "description": spec.description, "schema": schema[name]}
        for name, spec in COMPARE_SPECS.items()
        if name not in PANES
    ]
    panes = [
        {**parameter, "name": f"{pane}.{parameter['name']}", "description": f"Pane {pane}: {parameter['description']}"}
        for pane in PANES
        for parameter in query_parameters()
    ]
    return own + panes


def view_json(state: State) -> bytes:
    return dumps(answer_apart(compute_view(state), fixed_href(state)))


def fixed_href(state: State) -> str | None:
    """The URL of what every sentence at this view's settings shares (None: a view without a fixed part)."""
    query = settings_query(state)
    if query is None:
        return None
    path = routes.API_FIXED.format(digest=fixed_resource(query)[1])
    return f"{path}?{query}" if query else path


@functools.lru_cache(maxsize=64)
def fixed_resource(query: str) -> tuple[bytes, str]:
    """(the JSON bytes of the settings' fixed part, the sha256 digest of them that its URL carries), once per
    settings (raises ValidationError for a query that names no settings)."""
    body = dumps(shared_part(settings_of(query)))
    return body, hashlib.sha256(body).hexdigest()[:32]


def arithmetic_json(state: State) -> bytes:
    view = compute_view(state)
    return dumps({"share_path": view["share_path"], "arithmetic": view["arithmetic"]})


async def computed(state: State, answer: Callable[[State], bytes], where: str = "query") -> bytes:
    """A light view in line (handing it to a worker thread would cost more than computing it); a real model
    or a long sentence in a worker thread, THREADS at once, so the event loop keeps answering. A limit only the
    model knows (its word pieces) is the same 422 as any other."""
    try:
        if is_light(state):
            return answer(state)
        return await run_in_threadpool(answer, state)
    except ValidationError as error:
        raise_invalid(error, where)


def state_of(request: Request) -> State:
    try:
        return state_from_query(query_text(request.scope))
    except ValidationError as error:
        raise_invalid(error, "query")


@router.get(
    routes.API_ATTENTION,
    response_model=Answer,
    responses=ERRORS,
    summary="One view, as JSON",
    openapi_extra={"parameters": query_parameters()},
)
async def get_attention(request: Request) -> Response:
    """The three stages for the view a share link describes: the page's query string works here unchanged.

    Responses are deterministic, so they carry an ETag and may be cached; If-None-Match gives 304.
    """
    return cached(await computed(state_of(request), view_json), "application/json", max_age=3600)


class LightViews:
    """The API's most asked answer on a short path: GET /api/attention for a view computed in line (`is_light`: a
    typed sentence or an exercise), answered before FastAPI's routing, dependency and exception layers, which cost
    this answer about as much as its arithmetic. The same bytes and headers as `get_attention`'s (its `cached`).

    Everything else goes to the routes (`app`, the FastAPI app) as before: other paths and methods (HEAD too), a
    real model or translator, a long sentence, and an unexpected failure. So `get_attention` stays the route that
    /openapi.json declares and that answers every such case; a bad link's 422 is written here as its handler
    writes it (errors.on_invalid_input)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"] == routes.API_ATTENTION:
            answer = light_answer(scope)
            if answer is not None:
                return await answer(scope, receive, send)
        await self.app(scope, receive, send)


def light_answer(scope: Scope) -> Response | None:
    """get_attention's answer to a link whose view is light, or the 422 that names what is wrong with it, as
    on_invalid_input writes it; None when the routes answer (a view for a worker thread, or an unexpected failure:
    the routes fail again, and their outermost layer writes the 500 and logs it)."""
    try:
        state = state_from_query(query_text(scope))
        if not is_light(state):
            return None
        return cached(view_json(state), "application/json", max_age=3600)
    except ValidationError as error:
        return invalid_answer(error.errors(include_url=False), "query", request_language(Request(scope)))
    except Exception:  # the routes answer it again, as they answer every failure
        return None


@router.get(
    routes.API_ARITHMETIC,
    response_model=ArithmeticResponse,
    responses=ERRORS,
    summary="The arithmetic of one step, as JSON",
    openapi_extra={"parameters": query_parameters()},
)
async def get_arithmetic(request: Request) -> Response:
    """Every number of the current step (`step`) of the head in focus: what the page's arithmetic panel shows."""
    return cached(await computed(state_of(request), arithmetic_json), "application/json", max_age=3600)


@router.get(
    routes.API_FIXED,
    response_model=FixedResponse,
    responses=ERRORS,
    summary="What every sentence at some settings shares, as JSON",
)
def get_fixed(request: Request, digest: str) -> Response:
    """Every head's matrices and names at the settings the query names: the resource a sentence view's
    `fixed.href` names, immutable (the URL carries the sha256 of its bytes). The answer's `features`, `names`,
    `named_head`, `head_note`, `parameters` and `head.parameters` are then null: they are this resource's
    `features`, `parameters` and `heads[focus.head]` (its `names`, `name` and `question`, `note`, `parameters`).
    Another digest (an answer kept from before a release that changed these numbers) gets today's resource,
    not to be kept (`no-cache`), as an old asset's digest does."""
    try:
        body, current = fixed_resource(query_text(request.scope))
    except ValidationError as error:
        raise_invalid(error, "query")
    if digest != current:
        return Response(body, media_type="application/json", headers={"Cache-Control": "no-cache"})
    return cached(body, "application/json", max_age=IMMUTABLE_SECONDS, immutable=True)


@router.get(
    routes.API_COMPARE,
    response_model=CompareResponse,
    responses=ERRORS,
    summary="Two views side by side, as JSON",
    openapi_extra={"parameters": compare_parameters()},
)
def get_compare(request: Request) -> Response:
    """The compare page's twin: pane `a` and pane `b` are full views whose parameters carry the prefixes `a.` and
    `b.` (`a.source=...&b.source=...`); `focus` names the word compared (default: the first content word both
    sentences share). Both panes step to that word; the answer compares its weights, top keys and outputs."""
    try:
        comparison = comparison_from_query(query_text(request.scope))
        body = compare_view(comparison)
    except ValidationError as error:
        raise_invalid(error, "query")
    return cached(dumps(body), "application/json", max_age=3600)


BODY_SCHEMA = {"content": {"application/json": {"schema": State.model_json_schema()}}, "required": True}


@router.post(
    routes.API_ATTENTION,
    response_model=Answer,
    responses=ERRORS,
    summary="One view, from a JSON body",
    openapi_extra={"requestBody": BODY_SCHEMA},
)
async def post_attention(request: Request) -> Response:
    """The same fields as GET, as a JSON object. With `q`, `k`, `v` (lists of rows): the exercise on typed matrices."""
    values = json_object(await request.body())
    try:
        state = state_from_values(values)
    except ValidationError as error:
        raise_invalid(error, "body")
    return JSONBytes(await computed(state, view_json, "body"))


def json_object(raw: bytes) -> dict:
    """The body as a JSON object, or a 422 that says what a body must be.

    Python's json module reads NaN, Infinity and 1e400 as floats, so validation can name the field that
    holds them ("q: must be a finite number") instead of blaming the whole body.
    """
    try:
        values = json.loads(raw)
    except (ValueError, RecursionError):
        raise InvalidInput([{"type": "json_invalid", "loc": ("body",), "msg": "invalid JSON"}], "body") from None
    if not isinstance(values, dict):
        raise InvalidInput([{"type": "dict_type", "loc": ("body",), "msg": "not an object"}], "body")
    return values


@router.get(routes.HEALTHZ, summary="Liveness")
async def healthz() -> Response:
    """A trivial JSON answer: the server is up. Also the baseline of the benchmarks."""
    return JSONBytes(b'{"status":"ok"}')
