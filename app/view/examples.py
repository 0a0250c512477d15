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

The file holds two sections: ``values`` (what the pages quote) and ``e5_without_rounding``, the values
that change when e5 leaves out its 8-bit rounding of matrix inputs, computed that way on the same
machine (``compute_without_e5_rounding``): what a test on another machine needs to bound how far its e5
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


def compute_without_e5_rounding(values: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Of ``values`` (``compute_all()``), those that change when e5 rounds none of its matrix inputs to 8 bits,
    computed that way in this process (float32 throughout).

    e5 rounds the input of every matrix product to 8 bits, as its C engine does. A float32 sum that lands within
    its rounding error of a rounding boundary goes the other way on a CPU that sums in another order, and the
    step travels through the later layers: two machines' e5 numbers may differ by far more than float32
    rounding. Without the rounding there are no such steps, and two machines differ by float32 rounding only.
    So ``rounded - unrounded`` measured on each machine bounds the difference of two machines' rounded numbers
    (the triangle inequality; tests/test_examples.py).
    """
    from app.engine.models import registry  # noqa: PLC0415 (only the generator and the tests load the models)
    from app.view import models  # noqa: PLC0415

    plain = registry.get_model("e5").without_rounding()
    models.run.cache_clear()
    try:
        with registry.substituted("e5", plain):
            unrounded = compute_all()
    finally:
        models.run.cache_clear()
    changed = {
        kind: {key: value for key, value in found.items() if value != values[kind][key]}
        for kind, found in unrounded.items()
    }
    return {kind: found for kind, found in changed.items() if found}


def main() -> None:
    values = compute_all()
    document = {"values": values, "e5_without_rounding": compute_without_e5_rounding(values)}
    FILE.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FILE} ({sum(len(v) for v in values.values())} values)")


if __name__ == "__main__":
    from app.view import examples  # this file run as __main__ is another module than the one the views ask

    examples.main()
