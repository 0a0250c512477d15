"""examples.json written again: every value the examples, lessons and comparisons quote, computed by the engine.

    python -m app.view.make_examples     # recompute every value with the engine, write examples.json

It builds every example, lesson and comparison in every language while ``examples.recording()`` collects
what they ask ``examples.remembered``, and once more with e5 without its 8-bit rounding (the file's
``e5_without_rounding`` section, what tests/test_examples.py needs to bound another machine's numbers).
Apart from the store (examples.py), which the examples import: the generator imports them.
"""

from __future__ import annotations

import json
from typing import Any

from app.view import compare, examples, lessons, models, presets
from app.view.i18n import STRINGS


def clear_caches() -> None:
    """Forget every cached example, lesson and comparison (and their numbers), so they are built again."""
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
    clear_caches()
    try:
        with examples.recording() as found:
            for lang in STRINGS:
                presets.presets_for(lang)
                lessons.lessons_for(lang)
                compare.compare_presets_for(lang)
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
    used = models.in_use()  # the registry the examples ask (outside an app: the default one)
    plain = used.get_model("e5").without_rounding()
    models.forget_runs()
    try:
        with used.substituted("e5", plain):
            unrounded = compute_all()
    finally:
        models.forget_runs()
    changed = {
        kind: {key: value for key, value in found.items() if value != values[kind][key]}
        for kind, found in unrounded.items()
    }
    return {kind: found for kind, found in changed.items() if found}


def main() -> None:
    values = compute_all()
    document = {"values": values, "e5_without_rounding": compute_without_e5_rounding(values)}
    examples.FILE.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {examples.FILE} ({sum(len(v) for v in values.values())} values)")


if __name__ == "__main__":
    main()
