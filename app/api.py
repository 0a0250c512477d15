"""The JSON API: translates HTTP to app.params / app.compute and back, nothing more."""

from typing import Annotated

from fastapi import APIRouter, Query, Request

from app.compute import compute_view
from app.jsonio import JSONBytes, dumps
from app.params import AttentionBody, AttentionQuery, make_state
from app.schema import AttentionResponse, ErrorResponse

router = APIRouter()

ERRORS = {
    422: {"model": ErrorResponse, "description": "Bad input: the message names the field and the limit."},
    503: {"model": ErrorResponse, "description": "The real model (model=minilm) is not installed or failed its check."},
}


def attention_json(params):
    return JSONBytes(dumps(compute_view(make_state(params))))


@router.get("/api/attention", response_model=AttentionResponse, responses=ERRORS, summary="One view, as JSON")
def get_attention(params: Annotated[AttentionQuery, Query()]):
    """The three stages for the view a share link describes: the page's query string works here unchanged."""
    return attention_json(params)


@router.post("/api/attention", response_model=AttentionResponse, responses=ERRORS, summary="One view, from a JSON body")
def post_attention(params: AttentionBody):
    """The same fields as GET, as JSON. With `q`, `k`, `v` (lists of rows): exercise mode on hand-typed matrices."""
    return attention_json(params)


@router.get("/healthz", summary="Liveness")
def healthz():
    """A trivial JSON answer: the server is up. Also the baseline of the benchmarks."""
    return JSONBytes(b'{"status":"ok"}')
