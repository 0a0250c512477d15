"""examples.json (the numbers the examples, lessons and comparisons quote) against the engine, recomputed here.

The file was written on one machine (``python -m app.view.make_examples``); this machine's float32 kernels may
sum in another order. So every value is recomputed here and compared: words, counts and links exactly,
numbers within what two correct evaluations can differ by:

* the teaching engine computes in float64 (a few hundred terms at most): 1e-12 is far above its
  rounding (about 1e-16 per operation) and far below any change a bug would make;
* a float32 model: tests/test_minilm.py holds every run to within 1e-4 of the numbers' scale of the
  exact (float64) result; a softmax weight has scale 1, a cosine takes two such vectors (2e-4 for
  it). The file's machine and this one each lie within that: 2 x 2e-4;
* e5 rounds every matrix input to 8 bits (tests/test_e5.py): a sum that lands within its float32
  error of a rounding boundary can go to the other step on another CPU, and the step travels through
  the later layers, so two machines' rounded numbers may differ by far more than float32 rounding.
  Their unrounded numbers (float32 throughout) differ by the float32 term only. The file keeps, beside
  each e5 value, the same value without rounding from the machine that wrote it; so with r = |rounded
  - unrounded| on each machine, the triangle inequality gives
  |here - file| <= r_here + |unrounded here - unrounded file| + r_file <= r_here + float32 + r_file.

A number printed in a text with 2 decimals ("(river, 0.45)") is within 0.005 of its value: two printed
numbers may differ by the tolerance plus 0.01.
"""

from __future__ import annotations

import contextlib
import json
import re

import pytest

from app.engine.models import registry
from app.view import examples, make_examples, models
from app.view.compare import COMPARE_QUERIES, comparison_from_query
from app.view.lessons import LESSONS
from app.view.presets import PRESETS, preset_state

FLOAT64 = 1e-12
FLOAT32 = 2 * 2e-4  # two machines, each within 2e-4 (see above)
NUMBER = re.compile(r"-?\d+\.\d+")


@pytest.fixture(scope="module")
def recomputed():
    return make_examples.compute_all()


@pytest.fixture(scope="module")
def unrounded(recomputed):
    """The values that change when e5 leaves out its 8-bit rounding of matrix inputs, computed that way here."""
    return make_examples.compute_without_e5_rounding(recomputed)


def models_of(kind: str, key: str) -> set[str]:
    """The models whose numbers the value `kind`/`key` comes from ("toy" for the teaching engine)."""
    if kind == "claims":
        return {preset_state(key.split("?")[0]).model}
    if kind == "compare":
        comparison = comparison_from_query(COMPARE_QUERIES[key.split("?")[0]])
        return {comparison.a.model, comparison.b.model}
    assert kind == "query_words", kind
    return {value for name, value in re.findall(r"[?&](model)=([^&#]+)", key)} or {"toy"}


def numbers_in(value) -> list[float]:
    """Every number in a value, in order (a float, or a number printed in a text)."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, float):
        return [value]
    if isinstance(value, str):
        return [float(x) for x in NUMBER.findall(value)]
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in numbers_in(value[k])]
    if isinstance(value, list):
        return [x for item in value for x in numbers_in(item)]
    return []


def skeleton(value):
    """The value with every number taken out: what must be equal exactly."""
    if isinstance(value, float):
        return "<number>"
    if isinstance(value, str):
        return NUMBER.sub("<number>", value)
    if isinstance(value, dict):
        return {k: skeleton(v) for k, v in value.items()}
    if isinstance(value, list):
        return [skeleton(item) for item in value]
    return value


def printed(value) -> list[bool]:
    """For each number of numbers_in(value): was it printed in a text (2 decimals)?"""
    if isinstance(value, float):
        return [False]
    if isinstance(value, str):
        return [True] * len(NUMBER.findall(value))
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in printed(value[k])]
    if isinstance(value, list):
        return [x for item in value for x in printed(item)]
    return []


def test_the_file_is_what_the_generator_writes():
    text = examples.FILE.read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), ensure_ascii=False, indent=1) + "\n"


def test_the_file_holds_exactly_the_values_the_engine_computes(recomputed, unrounded):
    stored = examples.stored()
    assert {kind: sorted(values) for kind, values in stored.items()} == {
        kind: sorted(values) for kind, values in recomputed.items()
    }, "run: python -m app.view.make_examples"
    assert {"claims", "compare", "query_words"} <= stored.keys()
    assert {p["id"] for p in PRESETS} == {key.split("?")[0] for key in stored["claims"]}, "every example's numbers"
    compared = {key.split("?")[0] for key in stored["compare"]}
    assert {lesson["compare"] for lesson in LESSONS if "compare" in lesson} <= compared
    # the unrounded twins: of e5 values only
    for values in (examples.stored_without_e5_rounding(), unrounded):
        assert values, "e5's rounding changes some value"
        for kind, found in values.items():
            assert all("e5" in models_of(kind, key) and key in stored[kind] for key in found), (kind, sorted(found))


def test_every_value_matches_the_engine_within_its_arithmetic(recomputed, unrounded):
    stored, stored_unrounded = examples.stored(), examples.stored_without_e5_rounding()
    checked = {"toy": 0, "float32": 0, "e5": 0}
    for kind, values in recomputed.items():
        for key, here in values.items():
            there = stored[kind][key]
            assert skeleton(there) == skeleton(here), (kind, key, there, here)
            ours, theirs = numbers_in(here), numbers_in(there)
            # a value e5's rounding leaves unchanged has no twin: it is its own unrounded value
            twin_here = unrounded.get(kind, {}).get(key, here)
            twin_there = stored_unrounded.get(kind, {}).get(key, there)
            # the same words without the rounding: a word that the rounding alone decides is no example to quote
            assert skeleton(twin_here) == skeleton(here) == skeleton(twin_there), (kind, key, twin_here, twin_there)
            plain_here, plain_there = numbers_in(twin_here), numbers_in(twin_there)
            names = models_of(kind, key)
            for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
                if names <= {"toy"}:
                    tol, which = FLOAT64, "toy"
                elif "e5" in names:
                    # the middle term of the triangle inequality, checked: the two unrounded numbers
                    assert abs(plain_here[index] - plain_there[index]) <= FLOAT32, (kind, key, index, "unrounded")
                    tol, which = FLOAT32 + abs(a - plain_here[index]) + abs(b - plain_there[index]), "e5"
                else:
                    tol, which = FLOAT32, "float32"
                if printed(here)[index]:
                    tol += 0.01
                assert abs(a - b) <= tol, (kind, key, index, a, b, tol)
                checked[which] += 1
    assert min(checked.values()) > 0, checked  # each kind of arithmetic is exercised


def test_a_worker_quotes_the_file_without_loading_a_model(monkeypatch):
    """The examples' texts come from the file: with every model's loader broken, they are all still there."""

    def refuse(cache_dir):
        raise AssertionError("a model was loaded to quote an example")

    from app.view.compare import compare_presets_for
    from app.view.lessons import lessons_for
    from app.view.presets import presets_for

    for name in registry.MODEL_NAMES:
        monkeypatch.setitem(registry._LOADERS, name, (refuse, "none"))
    models.forget_runs()
    make_examples.clear_caches()
    with contextlib.ExitStack() as slots:
        for name in registry.MODEL_NAMES:
            slots.enter_context(registry.substituted(name, None))
        slots.callback(make_examples.clear_caches)  # last in, first out: before the models come back
        registry.reset_for_tests()
        offered = {p["id"] for p in presets_for("en")}
        assert offered == {p["id"] for p in PRESETS}
        assert len(lessons_for("zh")) == len(LESSONS)
        assert {c["id"] for c in compare_presets_for("en")} == set(COMPARE_QUERIES)
        assert all(registry.model_status(name) == "not loaded" for name in registry.MODEL_NAMES)
