"""Stepping through the queries: arrow keys and the Previous/Next buttons move the label, the URL's
`step`, the arithmetic and the outlined row of every heatmap."""

import pytest
from playwright.sync_api import expect

from app.view.presets import PRESETS
from tests.browser.harness import (
    arithmetic_rows,
    current_view,
    highlight_y0,
    open_view,
    page_data,
    url_params,
    wait_text_change,
)

PRONOUN = next(p for p in PRESETS if p["id"] == "pronoun")


def assert_at_step(page, view, step):
    queries = view["tokens"]["queries"]
    expect(page.locator("#step-label")).to_contain_text(f"{step + 1} of {len(queries)}")
    assert f"“{queries[step]}”" in page.locator("#step-label").inner_text()
    assert url_params(page).get("step", "0") == str(step), page.url
    for n in (1, 2, 3):
        assert highlight_y0(page, f"chart-stage{n}") == step - 0.5, f"chart-stage{n}"
    # the arithmetic of a step is its own small answer (/api/arithmetic): it arrives after the label
    expect(page.locator("#arithmetic p.formula").first).to_contain_text(f"“{queries[step]}”")
    weights = current_view(page)["head"]["weights"][step]  # the head shown at this step
    shown = [float(row["weight"].split(" ")[0]) for row in arithmetic_rows(page)]
    assert shown == pytest.approx(weights, rel=1e-3, abs=5e-5), "the arithmetic shows another step's weights"
    expect(page.locator("#alignment .align-word.current")).to_have_text(queries[step])


def test_arrow_keys_move_the_step(page):
    open_view(page, PRONOUN["params"])
    view = page_data(page)["view"]
    assert_at_step(page, view, 6)
    arithmetic = page.locator("#arithmetic").inner_text()
    history_length = page.evaluate("history.length")

    page.keyboard.press("ArrowRight")
    wait_text_change(page, "#arithmetic", arithmetic)
    assert_at_step(page, view, 7)

    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert_at_step(page, view, 5)
    assert page.evaluate("history.length") == history_length, "view changes rewrite the URL, only edits add history"


def test_buttons_move_the_step_and_stop_at_the_ends(page):
    open_view(page, {"source": "walk by river bank", "step": "1"})
    view = page_data(page)["view"]
    arithmetic = page.locator("#arithmetic").inner_text()

    page.locator("#next").click()
    wait_text_change(page, "#arithmetic", arithmetic)
    assert_at_step(page, view, 2)
    page.locator("#prev").click()
    page.locator("#prev").click()
    assert_at_step(page, view, 0)
    expect(page.locator("#prev")).to_be_disabled()
    assert "step" not in url_params(page), "step 0 is the default and is left out of the canonical link"

    page.keyboard.press("ArrowLeft")
    assert_at_step(page, view, 0)
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert_at_step(page, view, 3)
    expect(page.locator("#next")).to_be_disabled()
