"""Several heads (choose one from the small multiples) and exercise mode (Q, K, V typed by hand)."""

import math
import re

import pytest
from playwright.sync_api import expect

from app.view.presets import PRESETS
from tests.browser.harness import (
    arithmetic_rows,
    open_view,
    page_data,
    poll,
    put_together,
    tick_texts,
    url_params,
    wait_text_change,
)

MULTI_HEAD = next(p for p in PRESETS if p["id"] == "multi-head")


def test_choosing_a_head_from_the_grid(page):
    open_view(page, MULTI_HEAD["params"])
    buttons = page.locator("#head-grid button")
    expect(buttons).to_have_count(4)
    view = page_data(page)["view"]
    shown = view["focus"]["head"]  # no head in the link: the head the step's word asks ("it": the pronoun head)
    assert shown == 1
    assert buttons.evaluate_all("(bs) => bs.map((b) => b.getAttribute('aria-pressed'))") == [
        "true" if h == shown else "false" for h in range(4)
    ]
    step = int(MULTI_HEAD["params"]["step"])
    arithmetic = page.locator("#arithmetic").inner_text()

    buttons.nth(2).click()
    wait_text_change(page, "#arithmetic", arithmetic)
    assert buttons.evaluate_all("(bs) => bs.map((b) => b.getAttribute('aria-pressed'))") == [
        "false",
        "false",
        "true",
        "false",
    ]
    assert url_params(page)["head"] == "2"
    head2 = put_together(page, page.request.get("/api/attention?" + page.url.split("?", 1)[1]).json())["head"]
    assert head2["weights"] != view["head"]["weights"], "head 2 differs from head 0"
    shown = [float(row["weight"].split(" ")[0]) for row in arithmetic_rows(page)]
    assert shown == pytest.approx(head2["weights"][step], rel=1e-3, abs=5e-5), "the arithmetic is not head 2's"
    weights = page.evaluate("document.getElementById('chart-stage2').data[0].z")
    assert weights == head2["weights"], "the weights heatmap is not head 2's"


def test_exercise_mode_matches_hand_computed_weights(page):
    open_view(page, {"source": "walk by river bank"})
    page.locator("input[name=_mode][value=exercise]").check()
    expect(page.locator("body")).to_have_class(re.compile(r"\bmode-exercise\b"))
    expect(page.locator("#q")).to_be_visible()
    poll(page, "location.search", lambda search: "q=" in search)  # the example loaded and computed

    # Every intermediate state stays valid, so no edit is rejected on the way.
    page.locator("#query_labels").fill("")
    page.locator("#q").fill("1 0")
    page.locator("#k").fill("1 0\n0 1\n1 1")
    page.locator("#v").fill("2 0\n0 2\n1 1")
    page.locator("#key_labels").fill("a,b,c")
    page.locator("#score").select_option("dot")
    expect(page.locator("#step-label")).to_contain_text("1 of 1")
    poll(page, "location.search", lambda search: "v=2,0;0,2;1,1" in search)
    assert {k: url_params(page)[k] for k in ("q", "k", "v", "score", "key_labels")} == {
        "q": "1,0",
        "k": "1,0;0,1;1,1",
        "v": "2,0;0,2;1,1",
        "score": "dot",
        "key_labels": "a,b,c",
    }

    e = math.e
    expected = [e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)]
    rows = arithmetic_rows(page)
    assert [row["key"] for row in rows] == ["a", "b", "c"]
    assert [float(row["weight"]) for row in rows] == pytest.approx(expected, abs=5e-5)
    assert [float(row["q·k"]) for row in rows] == [1, 0, 1]
    assert [float(row["s"]) for row in rows] == [1, 0, 1]
    exp_column = next(name for name in rows[0] if name.startswith("e^"))
    assert [float(row[exp_column]) for row in rows] == pytest.approx([e, 1, e], abs=5e-4)
    output = [sum(w * v for w, v in zip(expected, column, strict=True)) for column in ([2, 0, 1], [0, 2, 1])]
    footer = page.locator("#arithmetic tfoot").inner_text()
    assert f"[{output[0]:.3g}, {output[1]:.3g}]" in footer, footer
    assert tick_texts(page, "chart-stage2", "x") == ["a", "b", "c"]
    assert tick_texts(page, "chart-stage2", "y") == ["q1"]


REAL_MODEL = next(p for p in PRESETS if p["id"] == "real-model")


def test_real_model_hides_cls_and_sep_openly_and_in_the_link(page):
    open_view(page, REAL_MODEL["params"])
    expect(page.locator("#head-grid table.model-grid button")).to_have_count(6 * 12)
    pressed = page.locator("#head-grid button[aria-pressed=true]")
    expect(pressed).to_have_attribute("aria-label", re.compile(r"5\D+11$"))
    assert "[CLS]" in tick_texts(page, "chart-stage2", "x")
    label = page.locator("#step-label").inner_text()

    page.locator("#hide_special").check()
    wait_text_change(page, "#step-label", label)
    assert url_params(page).get("hide_special") == "true"
    assert "renormalised" in page.locator("#step-label").inner_text(), "renormalising must be said, never silent"
    keys = tick_texts(page, "chart-stage2", "x")
    assert "[CLS]" not in keys and "[SEP]" not in keys and "animal" in keys
    row = page.evaluate(f"document.getElementById('chart-stage2').data[0].z[{REAL_MODEL['params']['step']}]")
    assert math.isclose(sum(row), 1.0, rel_tol=1e-6), "the remaining weights are renormalised to sum to 1 (float32)"

    link = page.url  # the same view opens from the link
    other = page.context.browser.new_context().new_page()
    other.goto(link)
    other.locator("body[data-ready=true]").wait_for()
    expect(other.locator("#hide_special")).to_be_checked()
    assert "renormalised" in other.locator("#step-label").inner_text()
    other.context.close()
