"""The JSON API: translates HTTP to app.view.state / app.view.compute and back, nothing more."""

from typing import Annotated

from fastapi import APIRouter, Query, Request

from app.view.compute import compute_view
from app.view.state import AttentionBody, AttentionQuery, make_state
from app.web import routes
from app.web.conditional import cached
from app.web.jsonio import JSONBytes, dumps
from app.web.schema import AttentionResponse, ErrorResponse

router = APIRouter()

TEXT_ERROR = {"content": {"text/plain": {"schema": {"type": "string"}}}}
ERRORS = {
    413: {**TEXT_ERROR, "description": "The body is over 64 KiB."},
    414: {**TEXT_ERROR, "description": "The URL is over 48 KiB."},
    422: {"model": ErrorResponse, "description": "Bad input: the message names the field and the limit."},
    503: {"model": ErrorResponse, "description": "The real model (model=minilm) is not installed or failed its check."},
}


def attention_body(params):
    return dumps(compute_view(make_state(params)))


@router.get(routes.API_ATTENTION, response_model=AttentionResponse, responses=ERRORS, summary="One view, as JSON")
def get_attention(request: Request, params: Annotated[AttentionQuery, Query()]):
    """The three stages for the view a share link describes: the page's query string works here unchanged.

    Responses are deterministic, so they carry an ETag and may be cached; If-None-Match gives 304.
    """
    return cached(attention_body(params), "application/json", max_age=3600)


@router.post(
    routes.API_ATTENTION, response_model=AttentionResponse, responses=ERRORS, summary="One view, from a JSON body"
)
def post_attention(params: AttentionBody):
    """The same fields as GET, as JSON. With `q`, `k`, `v` (lists of rows): exercise mode on hand-typed matrices."""
    return JSONBytes(attention_body(params))


@router.get(routes.HEALTHZ, summary="Liveness")
async def healthz():
    """A trivial JSON answer: the server is up. Also the baseline of the benchmarks."""
    return JSONBytes(b'{"status":"ok"}')
