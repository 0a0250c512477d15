"""The numbers the examples and lessons quote, computed by the engine once and kept in examples.json.

The ready-made examples (presets.py), lessons (lessons.py) and comparisons (compare.py) quote numbers
that need the real models: a weight, a cosine, the word a query is.
Computing them in every worker at start-up would load both models (about 500 MB) into a worker that
nobody has asked for a model yet. So each such value is asked through ``remembered(kind, key, compute)``:
it comes from examples.json, written by the engine with

    python -m app.view.examples          # recompute every value with the engine, write examples.json

and tests/test_examples.py recomputes every value on the machine that runs the tests and compares
them, with tolerances derived from the float32 arithmetic. A value the file lacks (an example added
since) is computed, as before. Every process, every machine quotes the same numbers: the file's.
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
def stored() -> dict[str, dict[str, Any]]:
    """examples.json as it was committed (empty if it is missing: every value is then computed)."""
    try:
        return json.loads(FILE.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


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


def clear_caches() -> None:
    """Forget every cached example, lesson and comparison (and their numbers), so they are built again."""
    from app.view import compare, lessons, presets

    for cached in (
        presets.preset_state,
        presets.preset_numbers,
        presets.presets_for,
        lessons.lessons_for,
        lessons.translator_block,
        compare.compare_preset_numbers,
        compare.compare_presets_for,
    ):
        cached.cache_clear()


def compute_all() -> dict[str, dict[str, Any]]:
    """Every remembered value, computed by the engine in this process (sorted, as written to the file)."""
    from app.view.compare import compare_presets_for
    from app.view.i18n import STRINGS
    from app.view.lessons import lessons_for
    from app.view.presets import presets_for

    clear_caches()
    try:
        with recording() as found:
            for lang in STRINGS:
                presets_for(lang)
                lessons_for(lang)
                compare_presets_for(lang)
    finally:
        clear_caches()
    return {kind: dict(sorted(values.items())) for kind, values in sorted(found.items())}


def main() -> None:
    values = compute_all()
    FILE.write_text(json.dumps(values, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FILE} ({sum(len(v) for v in values.values())} values)")


if __name__ == "__main__":
    from app.view import examples  # this file run as __main__ is another module than the one the views ask

    examples.main()
