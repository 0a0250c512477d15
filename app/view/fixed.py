"""What every sentence at the same settings shares, apart from the answer: sent once, cached for good.

A sentence view of the teaching engine (self- or cross-attention) carries numbers that no word of the
sentence changes: every head's W_Q, W_K and W_V (and a score function's own W; W₁, W₂, v), W_O, the names
of the columns, the named heads' questions. At the default settings they were a quarter of every answer.
The JSON answer (`answer_apart`) leaves them out, as null, and names one resource that holds them all, for
every head: `fixed.href`, a URL that carries the sha256 of the resource's bytes, so a browser (or any
client) fetches it once and keeps it (immutable). `whole_view` puts the two together again: the page's
scripts (static/js/state.js) do the same, and a test checks that the result is the view itself.

The resource's URL names the settings it is computed from, with the link's own names (`heads`,
`projection`, `score`, `seed`, `embedding`, `dim`, `positional`; only those not at their defaults) and
`kind=cross` for encoder-decoder attention: `/api/fixed/<digest>` at the default settings. Any worker
computes it from its URL alone, the same bytes in every process.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any
from urllib.parse import quote_plus, urlencode

import numpy as np

from app.engine.attention import multi_head_attention
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


def settings_query(state: State) -> str:
    """The resource's query string: the settings that shape it, as the canonical link writes them."""
    pairs = [
        (name, link_text(getattr(state, name))) for name in FIXED_FIELDS if getattr(state, name) != SPECS[name].default
    ]
    if state.mode == "cross":
        pairs.append(("kind", "cross"))
    return urlencode(pairs, quote_via=quote_plus)


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


@functools.lru_cache(maxsize=64)
def resource(query: str) -> tuple[bytes, str]:
    """(the resource's JSON bytes, the sha256 digest of them that its URL carries), once per settings."""
    from app.web.jsonio import dumps  # noqa: PLC0415 (the view layer writes no JSON elsewhere)

    body = dumps(shared_part(settings_of(query)))
    return body, hashlib.sha256(body).hexdigest()[:32]


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
    from app.engine.attention.named_heads import named_heads  # noqa: PLC0415

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


def href(state: State) -> str:
    """The resource's URL for this view's settings."""
    from app.web import routes  # noqa: PLC0415

    query = settings_query(state)
    _, digest = resource(query)
    path = routes.API_FIXED.format(digest=digest)
    return f"{path}?{query}" if query else path


def answer_apart(state: State, view: dict) -> dict:
    """The JSON answer of a view: a sentence view without what its settings share, which `fixed` names."""
    if view["mode"] not in KINDS:
        return view
    apart = {**view, **dict.fromkeys(VIEW_FIELDS), "fixed": {"href": href(state)}}
    apart["head"] = {**view["head"], **dict.fromkeys(HEAD_FIELDS)}
    return apart


def whole_view(answer: dict, fixed: dict | None) -> dict:
    """An answer and the resource it names (None when it names none), put together: the view again."""
    view = {**answer, "fixed": None}  # the view itself names no resource (the page's data, a comparison's panes)
    if answer["fixed"] is None:
        return view
    head = fixed["heads"][answer["focus"]["head"]]
    view |= {
        "features": fixed["features"],
        "names": head["names"],
        "named_head": {"name": head["name"], "question": head["question"]} if head["name"] else None,
        "head_note": head["note"],
        "parameters": fixed["parameters"],
        "head": {**answer["head"], "parameters": head["parameters"]},
    }
    return view
