"""What every sentence at the same settings shares, apart from the answer: sent once, cached for good.

A sentence view of the teaching engine (self- or cross-attention) carries numbers that no word of the
sentence changes: every head's W_Q, W_K and W_V (and a score function's own W; W₁, W₂, v), W_O, the names
of the columns, the named heads' questions. At the default settings they were a quarter of every answer.
The JSON answer (`answer_apart`) leaves them out, as null, and names one resource that holds them all, for
every head: `fixed.href`, a URL that carries the sha256 of the resource's bytes, so a browser (or any
client) fetches it once and keeps it (immutable).

The answer also leaves out what it would otherwise say twice: the keys' vectors when they are the
queries' (self-attention), the head's values when they are the keys' vectors (W_V is the identity: the
named heads), the head's weights when every head's are in `focus.rows`, and, in the arithmetic of the
step, the head's own rows at that step (q, k, the mask, the scores, the weights, the output) and each
weight times its value (one multiplication each); the same rows and q·k in the geometry's lines.

`whole_view` puts an answer and its resource together again, the view itself: the page's scripts
(static/js/state.js) do the same, and tests/test_fixed.py checks that the result is the view, number for
number.

The resource's URL (app/web/api.py) names the settings it is computed from (`settings_query`), with the
link's own names (`heads`, `projection`, `score`, `seed`, `embedding`, `dim`, `positional`; only those not at
their defaults) and `kind=cross` for encoder-decoder attention: `/api/fixed/<digest>` at the default
settings. Any worker computes it from its URL alone (`settings_of`, `shared_part`), the same bytes in every
process.
"""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import quote_plus, urlencode

import numpy as np

from app.engine.attention import multi_head_attention
from app.engine.attention.named_heads import named_heads
from app.engine.text.embed import LEXICON_DIM, column_names
from app.view.compute import head_names, head_note
from app.view.links import invalid, query_values
from app.view.state import SPECS, State, link_text

FIXED_FIELDS = ("heads", "projection", "score", "seed", "embedding", "dim", "positional")  # as the link names them
KINDS = ("self", "cross")  # the views that have a fixed part: the teaching engine's sentences
PLACEHOLDER = "x"  # the settings' State needs a sentence: any will do, none reaches the resource
# What the answer leaves out (null) when it names the resource: the view's own fields, and its head's.
VIEW_FIELDS = ("features", "names", "named_head", "head_note", "parameters")
HEAD_FIELDS = ("parameters",)
# The arithmetic's numbers that are the head's own rows at the step, and those computed from them.
STEP_ROWS = ("q", "mask", "scores", "weights", "output")
FROM_THE_HEAD = ("k", *STEP_ROWS, "weighted_values")
LINE_ROWS = ("scores", "weights", "mask")  # the geometry's lines to the keys: the head's rows at the step


def settings_of(query: str) -> State:
    """The settings a resource's query string names (raises ValidationError naming a field it may not have)."""
    values: dict[str, Any] = query_values(query)
    kind = values.pop("kind", "self")
    if kind not in KINDS:
        raise invalid("kind", "self or cross", "kind")
    for name in values:
        if name not in FIXED_FIELDS:
            raise invalid("unknown_parameter", "unknown parameter", name)
    values["source"] = PLACEHOLDER
    if kind == "cross":
        values["target"] = PLACEHOLDER
    return State.model_validate(values, context={"link": True})


def shared_part(settings: State) -> dict:
    """Every head's matrices and names at these settings: what any sentence view of them carries, from a
    one-word sentence of ones (the parameters are drawn or written without looking at the words)."""
    dim = LEXICON_DIM if settings.embedding == "lexicon" else settings.dim
    inputs = column_names(embedding=settings.embedding, dim=dim, positional=settings.positional)
    x = np.ones((1, len(inputs)))  # (1, d_model)
    result = multi_head_attention(
        x,
        x,
        n_heads=settings.n_heads,
        projection=settings.projection,
        score=settings.score,
        seed=settings.seed,
        inputs=inputs,
        kind=settings.mode,
    )
    named = named_heads(settings.mode, settings.n_heads) if settings.projection == "named" else ()
    return {
        "kind": settings.mode,
        "features": list(inputs) if settings.embedding == "lexicon" else None,
        "parameters": {} if named else result.parameters,
        "heads": [
            {
                "name": named[h].name if named else None,
                "question": named[h].question if named else None,
                "note": head_note(settings, h),
                "names": head_names(settings, inputs, head, h),
                "parameters": head.parameters,
            }
            for h, head in enumerate(result.heads)
        ],
    }


def settings_query(state: State) -> str | None:
    """The query string of the resource of this view's settings (None: a view without a fixed part)."""
    if state.mode not in KINDS:
        return None
    return query_of(tuple(getattr(state, name) for name in FIXED_FIELDS), state.mode)


@functools.lru_cache(maxsize=256)
def query_of(settings: tuple, mode: str) -> str:
    """The settings (the FIXED_FIELDS' values, the mode) as the resource's query string: once per settings."""
    values = dict(zip(FIXED_FIELDS, settings, strict=True))
    pairs = [(name, link_text(value)) for name, value in values.items() if value != SPECS[name].default]
    return urlencode(pairs + ([("kind", "cross")] if mode == "cross" else []), quote_via=quote_plus)


def answer_apart(view: dict, href: str | None) -> dict:
    """The JSON answer of a view: a sentence view without what its settings share, which `fixed` names, and
    without what it would say twice (null: `whole_view` says where each is)."""
    if href is None:
        return view
    apart = {**view, **dict.fromkeys(VIEW_FIELDS), "fixed": {"href": href}}
    embeddings, head = dict(view["embeddings"]), {**view["head"], **dict.fromkeys(HEAD_FIELDS)}
    if np.array_equal(embeddings["keys"], embeddings["queries"]):
        embeddings["keys"] = None  # self-attention: the keys are the queries' vectors
    if np.array_equal(head["v"], view["embeddings"]["keys"]):
        head["v"] = None  # W_V is the identity: the values are the keys' vectors
    if view["focus"]["rows"] is not None:
        head["weights"] = None  # every head's weights are in focus.rows
    apart["embeddings"], apart["head"] = embeddings, head
    apart["arithmetic"] = {**view["arithmetic"], **dict.fromkeys(FROM_THE_HEAD)}
    geometry = view["geometry"]  # its lines are the arithmetic's q·k and the head's rows, at the same step
    lines = {**geometry["lines"], **dict.fromkeys(LINE_ROWS)}
    if np.array_equal(geometry["lines"]["dots"], view["arithmetic"].get("dots")):
        lines["dots"] = None
    apart["geometry"] = {**geometry, "lines": lines}
    return apart


def whole_view(answer: dict, fixed: dict | None) -> dict:
    """An answer (as JSON objects) and the resource it names (None when it names none), put together: the
    view again, number for number."""
    view = {**answer, "fixed": None}  # the view itself names no resource (the page's data, a comparison's panes)
    if answer["fixed"] is None:
        return view
    shared = fixed["heads"][answer["focus"]["head"]]
    embeddings = answer["embeddings"]
    keys = embeddings["keys"] if embeddings["keys"] is not None else embeddings["queries"]
    head = answer["head"]
    head = {
        **head,
        "v": head["v"] if head["v"] is not None else keys,
        "weights": head["weights"] if head["weights"] is not None else answer["focus"]["rows"][answer["focus"]["head"]],
        "parameters": shared["parameters"],
    }
    step = answer["arithmetic"]["step"]
    rows = {name: head[name][step] for name in STEP_ROWS}
    weighted = [[weight * x for x in value] for weight, value in zip(rows["weights"], head["v"], strict=True)]
    view |= {
        "features": fixed["features"],
        "names": shared["names"],
        "named_head": {"name": shared["name"], "question": shared["question"]} if shared["name"] else None,
        "head_note": shared["note"],
        "parameters": fixed["parameters"],
        "embeddings": {**embeddings, "keys": keys},
        "head": head,
        "arithmetic": {**answer["arithmetic"], **rows, "k": head["k"], "weighted_values": weighted},
    }
    lines = answer["geometry"]["lines"]
    dots = lines["dots"] if lines["dots"] is not None else answer["arithmetic"].get("dots")
    lines = {**lines, "dots": dots, **{name: head[name][lines["step"]] for name in LINE_ROWS}}
    view["geometry"] = {**answer["geometry"], "lines": lines}
    return view
