"""The numbers the examples and lessons quote, computed by the engine once and kept in examples.json.

The ready-made examples (presets.py), lessons (lessons.py) and comparisons (compare.py) quote numbers
that need the real models: a weight, a cosine, the word a query is.
Computing them in every worker at start-up would load both models (about 500 MB) into a worker that
nobody has asked for a model yet. So each such value is asked through ``remembered(kind, key, compute)``:
it comes from examples.json, written by the engine with

    python -m app.view.make_examples     # recompute every value with the engine, write examples.json

(this module is the file's store; ``make_examples.py``, its generator, builds every example to record their
values), and tests/test_examples.py recomputes every value on the machine that runs the tests and compares
them, with tolerances derived from the float32 arithmetic. A value the file lacks (an example added
since) is computed, as before. Every process, every machine quotes the same numbers: the file's.

The file holds two sections: ``values`` (what the pages quote) and ``e5_without_rounding``, the values
that change when e5 leaves out its 8-bit rounding of matrix inputs, computed that way on the same
machine (``make_examples.compute_without_e5_rounding``): what a test on another machine needs to bound how far its e5
numbers may lie from the file's.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

FILE = Path(__file__).with_name("examples.json")

T = TypeVar("T")

_recording: dict[str, dict[str, Any]] | None = None  # while `recording()`: every value computed and kept here
_lock = threading.Lock()


@functools.cache
def _file() -> dict[str, dict[str, dict[str, Any]]]:
    try:
        return json.loads(FILE.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def stored() -> dict[str, dict[str, Any]]:
    """The values of examples.json as it was committed (empty if it is missing: every value is then computed)."""
    return _file().get("values", {})


def stored_without_e5_rounding() -> dict[str, dict[str, Any]]:
    """The file's ``e5_without_rounding`` section: the e5 values computed without e5's 8-bit rounding."""
    return _file().get("e5_without_rounding", {})


def remembered(kind: str, key: str, compute: Callable[[], T]) -> T:
    """The value `kind`/`key` from examples.json, or `compute()` when the file lacks it (or while recording).

    Values are what JSON keeps exactly: str, int, float (written with repr, read back bit for bit),
    lists and dicts of them.
    """
    if _recording is not None:
        value = compute()
        _recording.setdefault(kind, {})[key] = value
        return value
    found = stored().get(kind, {}).get(key)
    return compute() if found is None else found


@contextmanager
def recording() -> Iterator[dict[str, dict[str, Any]]]:
    """Every `remembered` value computed by the engine (none read from the file) and collected."""
    global _recording
    with _lock:
        _recording = {}
        try:
            yield _recording
        finally:
            _recording = None
