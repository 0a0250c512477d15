"""The real models as the view layer sees them: their shape, their word pieces, one cached run per sentence.

The engine (app/engine/models) loads, verifies and runs the models; this module is the one place the
view asks it, so validation, compute and the page read the same facts. Validation reads only ``FACTS``,
a table of each model's shape and limits (checked against the loaded models by tests/test_model_facts.py):
validating a link loads no model, reads no file and runs nothing.

Which models: those of the registry ``in_use()``, the one of the app answering (its settings' weights folder:
``create_app`` makes it and sets it for each request it answers, ``using(models)``), or outside any app
(scripts, tests) the registry of the default folder. Runs are cached per registry, never shared between two.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from app.engine.models import e5, minilm, registry
from app.engine.models import translator as mt
from app.engine.models.base import TEXT, EncoderModel, ModelRun
from app.engine.models.registry import MODEL_NAMES, ModelUnavailable, Registry
from app.engine.models.zeroing import value_zeroing

__all__ = [
    "GOLD",
    "OPENING_EXAMPLE",
    "MODEL_NAMES",
    "TRANSLATOR_NAMES",
    "FACTS",
    "ModelInfo",
    "ModelUnavailable",
    "available",
    "count_pieces",
    "count_queries",
    "forget_runs",
    "get",
    "in_use",
    "info",
    "leave_one_out",
    "opening_head",
    "run",
    "translation",
    "translator",
    "using",
    "zeroing",
]

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


# What each translator was trained on, as the model select's note says (the Transformer read people's sentences too)
TRAINED_ON = {"transformer-mt": "trained here on a generated corpus and Tatoeba's sentence pairs"}

# Each model's shape and limits, as its files say (tests/test_model_facts.py checks this table against the
# loaded models, so it fails when a model changes): validation reads these, never the model.
FACTS = {
    card.name: ModelInfo(
        card.name, card.label, card.languages, card.weights_note, n_layers=layers, n_heads=heads, d_model=d_model,
        d_head=d_model // heads, max_pieces=limit,
    )
    for card, layers, heads, d_model, limit in (
        (minilm.CARD, 6, 12, 384, minilm.MAX_TOKENS),
        (e5.CARD, 12, 12, 384, e5.MAX_PIECES),
    )
} | {
    name: ModelInfo(
        name, mt.MODELS[name]["label"], "English → Chinese", TRAINED_ON.get(name, "trained here on a generated corpus"),
        n_layers=layers, n_heads=heads, d_model=d_model, d_head=d_model // heads, max_pieces=mt.MAX_SOURCE_WORDS,
    )
    for name, layers, heads, d_model in (
        ("rnnsearch", 1, 1, 128),  # the decoder state s is d_model wide; one attention, no layers of it
        ("transformer-mt", 2, 4, 128),
        ("rnnencdec", 1, 1, 128),
    )
}  # fmt: skip


# The registry of the app answering this request (a context variable: each request's task has its own, and
# the worker thread that computes its view is given a copy). None: no app set one, the default registry.
_in_use: ContextVar[Registry | None] = ContextVar("models_in_use", default=None)


def in_use() -> Registry:
    """The models the view asks: those of the app answering, else the default registry (scripts, tests)."""
    models = _in_use.get()
    return registry.default() if models is None else models


@contextmanager
def using(models: Registry) -> Iterator[None]:
    """``models`` in use while the block runs (an app's, for each request it answers: app/main.py)."""
    token = _in_use.set(models)
    try:
        yield
    finally:
        _in_use.reset(token)


def get(name: str) -> EncoderModel:
    """The loaded model (raises ModelUnavailable, which the web layer answers with 503)."""
    return in_use().get_model(name)


def info(name: str) -> ModelInfo:
    """A model's facts, from the table below: reading them loads nothing (validating a link does no I/O)."""
    return FACTS[name]


def available(name: str) -> bool:
    """Whether a model loads here: for the page's model select, never for validation. A real model's config
    and file sizes are read (not its weights); a small translator is loaded."""
    try:
        in_use().get_config(name) if name in MODEL_NAMES else translator(name)
    except ModelUnavailable:
        return False
    return True


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


def run(name: str, text: str) -> ModelRun:
    """All layers of a model for one sentence, computed once by the models in use; a shared link asks for it
    repeatedly."""
    return _run(in_use(), name, text)


@functools.lru_cache(maxsize=RUNS_KEPT)
def _run(models: Registry, name: str, text: str) -> ModelRun:
    return models.get_model(name).run(text)


def forget_runs() -> None:
    """Forget the cached runs and what was computed from them (value zeroing): for the examples' generator and
    tests that change a model."""
    _run.cache_clear()
    _zeroing.cache_clear()


def zeroing(name: str, text: str) -> np.ndarray:
    """Value zeroing of every layer of the sentence's run (app/engine/models/zeroing.py), (L, n, n) over every piece.
    Computed only for a view that asks for it (it costs several runs' worth of the feed-forward) and cached beside
    the run, with the same key."""
    return _zeroing(in_use(), name, text)


@functools.lru_cache(maxsize=RUNS_KEPT)
def _zeroing(models: Registry, name: str, text: str) -> np.ndarray:
    found = _run(models, name, text)
    maps = value_zeroing(models.get_model(name).params, found.hidden, found.weights, found.v)  # (L, n, n)
    maps.setflags(write=False)  # shared by every request that asks for this sentence
    return maps


# ---------------------------------------------------------------------------
# The trained English→Chinese translators (app/engine/models/translator.py)
# ---------------------------------------------------------------------------

TRANSLATOR_NAMES = ("rnnsearch", "transformer-mt", "rnnencdec")  # the order the model select offers them
TRANSLATIONS_KEPT = 16  # a translation is a few kB; stepping through one asks for it once per step

# The corpus's own translation and word alignment of the seed text's sentences (tools/translator/corpus.py
# writes these pairs; tests/test_translator_view.py finds each in a generated corpus): lower-case English
# as the models read it -> (Chinese words, the English positions of each Chinese word).
GOLD = {
    "tom chase jerry": (["汤姆", "追逐", "杰瑞"], [[0], [1], [2]]),
    "i put money in the bank": (["我", "把", "钱", "放", "在", "银行", "里"], [[0], [1], [2], [1], [3], [5], [3]]),
    "we sat on the river bank": (["我们", "坐", "在", "河岸", "上"], [[0], [1], [2], [4, 5], [2]]),
    "i read books in the library": (["我", "在", "图书馆", "看", "书"], [[0], [3], [5], [1], [2]]),
    "a rabbit loves that fat man in the garden but tom drank the tea on sunday": (
        [
            "一",
            "只",
            "兔子",
            "在",
            "花园",
            "里",
            "爱",
            "那",
            "个",
            "胖",
            "男人",
            "但是",
            "汤姆",
            "星期天",
            "喝",
            "了",
            "茶",
        ],
        [[0], [0, 1], [1], [6], [8], [6], [2], [3], [3, 5], [4], [5], [9], [10], [15], [11], [11], [13]],
    ),
}


# The sentence a translator opens on, the seed text's (its gold alignment is in GOLD): choosing the Transformer in
# the form opens the layer and head that align best on it (opening_head).
OPENING_EXAMPLE = "tom chase jerry"


@functools.cache
def opening_head(name: str) -> tuple[int, int]:
    """The layer and head a translator opens on: of its cross-attention's heads, the one that agrees best with the gold
    alignment of OPENING_EXAMPLE, the model made to produce the gold Chinese words. Ranked by, in this order:

    1. the share of the Chinese words whose largest weight falls on an English word the corpus aligns them with;
    2. the mean weight those words put on their gold-aligned English words (all of them, summed);
    3. the lower layer, then the lower head.

    A translator of one layer and one head (the RNNs) opens on (0, 0).
    """
    facts = FACTS[name]
    if facts.n_layers * facts.n_heads == 1:
        return 0, 0
    target, links = GOLD[OPENING_EXAMPLE]
    steps = translation(name, OPENING_EXAMPLE, " ".join(target), 1).steps[: len(target)]
    weights = np.stack([step.attention.weights for step in steps], axis=2)  # (layers, heads, n_words, n_source)

    def rank(place: tuple[int, int]) -> tuple[float, float, int, int]:
        rows = weights[place]  # (n_words, n_source)
        hits = np.mean([int(np.argmax(row)) in gold for row, gold in zip(rows, links, strict=True)])
        mass = np.mean([row[gold].sum() for row, gold in zip(rows, links, strict=True)])
        return -hits, -mass, *place

    return min(np.ndindex(weights.shape[:2]), key=rank)


@functools.lru_cache(maxsize=len(TRANSLATOR_NAMES))
def translator(name: str) -> mt.Translator:
    """A trained translator, its files checked against their pins (a missing or changed file: 503)."""
    try:
        return mt.load(name)
    except mt.TranslatorUnavailable as error:
        raise ModelUnavailable(f"{name}: {error.args[0]}.") from None


def source_words(text: str) -> list[str]:
    """The words a translator reads in a typed sentence (lower case, 's apart; a name that is also a word as typed:
    translator.read_words)."""
    return mt.read_words(text)


@functools.lru_cache(maxsize=TRANSLATIONS_KEPT)
def translation(name: str, source: str, target: str | None, beam: int, candidates: bool = True) -> mt.Translation:
    """The model's translation of `source` (target None: greedy or beam search, among the dictionary's candidates
    or not) or its forced decoding of `target`; ``extra["state"]`` is the decoder's last state, whose cached keys
    and values the view shows."""
    model = translator(name)
    if target is not None:
        result = mt.forced(model, source, target)
        result.extra["decoding"] = "forced"
        return result
    result = mt.translate(model, source, beam=beam, candidates=candidates)
    result.extra["decoding"] = "greedy" if beam <= 1 else "beam"
    return result


@functools.lru_cache(maxsize=TRANSLATIONS_KEPT)
def leave_one_out(name: str, source: str, target: str | None, beam: int, candidates: bool = True) -> np.ndarray:
    """(n_steps, n_source): for each step of the translation (its words, then </s>), the drop in that word's
    probability when each English word in turn is read as <unk>, the same words forced (translator.leave_one_out).
    One forced decoding per English word: a 16-word sentence costs the Transformer about 13 times its translation,
    so only a view that asks computes it; cached beside the translation, with the same key."""
    result = translation(name, source, target, beam, candidates)
    drop = mt.leave_one_out(translator(name), source, [step.token_id for step in result.steps])
    drop.setflags(write=False)
    return drop
