"""The real models as the view layer sees them: their shape, their word pieces, one cached run per sentence.

The engine (app/engine/models) loads, verifies and runs the models; this module is the one place the
view asks it, so validation, compute and the page read the same facts.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from app.engine.models import minilm

MODEL_NAMES = ("minilm",)


@dataclass(frozen=True)
class ModelInfo:
    name: str
    label: str  # shown to people
    n_layers: int
    n_heads: int
    d_model: int
    d_head: int
    max_pieces: int  # the most word pieces a sentence may have, special tokens included
    special_tokens: frozenset[str]


def get(name: str) -> minilm.MiniLM:
    """The loaded model (raises ModelUnavailable, which the web layer answers with 503)."""
    if name == "minilm":
        return minilm.get_model()
    raise KeyError(name)


def info(name: str) -> ModelInfo:
    model = get(name)
    return ModelInfo(
        name=name,
        label="all-MiniLM-L6-v2",
        n_layers=model.n_layers,
        n_heads=model.n_heads,
        d_model=model.d_model,
        d_head=model.d_head,
        max_pieces=minilm.MAX_TOKENS,
        special_tokens=frozenset(minilm.SPECIAL_TOKENS),
    )


def count_pieces(name: str, text: str) -> int:
    """Word pieces of a sentence, special tokens included (cheap: tokenizing only)."""
    encoding = get(name)._tokenizer.encode(text)
    return len(encoding.ids) + sum(len(extra.ids) - 2 for extra in encoding.overflowing)


def count_queries(name: str, text: str, *, hide_special: bool) -> int:
    tokens = get(name).tokenize(text).tokens
    special = info(name).special_tokens
    return sum(1 for token in tokens if not (hide_special and token in special))


@functools.lru_cache(maxsize=4)
def run(name: str, text: str) -> minilm.ModelRun:
    """All layers of a model for one sentence, computed once; a shared link asks for it repeatedly."""
    return get(name).run(text)
