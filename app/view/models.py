"""The real models as the view layer sees them: their shape, their word pieces, one cached run per sentence.

The engine (app/engine/models) loads, verifies and runs the models; this module is the one place the
view asks it, so validation, compute and the page read the same facts.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from app.engine.models.base import TEXT, EncoderModel, ModelRun
from app.engine.models.registry import MODEL_NAMES, ModelUnavailable, get_model

__all__ = ["MODEL_NAMES", "ModelInfo", "ModelUnavailable", "count_pieces", "count_queries", "get", "info", "run"]

RUNS_KEPT = 2  # a shared link asks for the same sentence again and again; an e5 run at 128 pieces is ~31 MB


@dataclass(frozen=True)
class ModelInfo:
    name: str
    label: str  # shown to people
    languages: str
    weights_note: str | None  # e.g. "4-bit weights"
    n_layers: int
    n_heads: int
    d_model: int
    d_head: int
    max_pieces: int  # the most word pieces a sentence may have, special tokens included


def get(name: str) -> EncoderModel:
    """The loaded model (raises ModelUnavailable, which the web layer answers with 503)."""
    return get_model(name)


def info(name: str) -> ModelInfo:
    model = get(name)
    return ModelInfo(
        name=name,
        label=model.label,
        languages=model.languages,
        weights_note=model.weights_note,
        n_layers=model.n_layers,
        n_heads=model.n_heads,
        d_model=model.d_model,
        d_head=model.d_head,
        max_pieces=model.max_pieces,
    )


def count_pieces(name: str, text: str) -> int:
    """Word pieces of a sentence, special tokens (and a model's prefix) included; tokenizing only."""
    return get(name).count_pieces(text)


def count_queries(name: str, text: str, *, hide_special: bool, units: str) -> int:
    """How many query rows the view of this sentence has."""
    from app.engine.models.words import group_pieces

    encoding = get(name).tokenize(text)
    keep = shown_pieces(encoding.kinds, hide_special)
    if units == "words":
        pick = lambda values: [values[i] for i in keep]  # noqa: E731
        return group_pieces(text, pick(encoding.tokens), pick(encoding.kinds), pick(encoding.offsets)).n_units
    return len(keep)


def shown_pieces(kinds: list[str], hide_special: bool) -> list[int]:
    """The pieces a view shows: all, or with hide_special only the sentence's own (no specials, no prefix)."""
    return [i for i, kind in enumerate(kinds) if not hide_special or kind == TEXT]


@functools.lru_cache(maxsize=RUNS_KEPT)
def run(name: str, text: str) -> ModelRun:
    """All layers of a model for one sentence, computed once; a shared link asks for it repeatedly."""
    return get(name).run(text)
