"""Classroom projection: presentation mode, its keys, large type at 1920x1080, keyboard-only control."""

import re

from playwright.sync_api import expect

from app.view.presets import PRESETS
from tests.browser.harness import open_view, poll, url_params, wait_text_change

TRANSLATE = next(p for p in PRESETS if p["id"] == "translate")
FULL_HD = {"width": 1920, "height": 1080}

FONT_SIZES = """(sel) => [...document.querySelectorAll(sel)].map((e) => parseFloat(getComputedStyle(e).fontSize))"""


def assert_large_labels(page):
    for n in (1, 2, 3):
        sizes = page.evaluate(FONT_SIZES, f"#chart-stage{n} .xtick text, #chart-stage{n} .ytick text")
        assert sizes, f"chart-stage{n} has no tick labels"
        assert min(sizes) >= 28, f"chart-stage{n}: tick labels of {min(sizes)} px in presentation mode"
    words = page.evaluate(FONT_SIZES, "#alignment .align-word")
    assert words and min(words) >= 28, f"alignment words of {words} px"


def test_presentation_mode_keys(tabs):
    page = tabs(viewport=FULL_HD).new_page()
    open_view(page, TRANSLATE["params"])
    assert "present" not in url_params(page)
    small = page.evaluate(FONT_SIZES, "#chart-stage2 .ytick text")
    assert max(small) < 28

    page.keyboard.press("p")
    expect(page.locator("body")).to_have_class(re.compile(r"\bpresent\b"))
    assert url_params(page).get("present") == "true"
    expect(page.locator("#present-toggle")).to_have_attribute("aria-pressed", "true")
    poll(
        page,
        "parseFloat(getComputedStyle(document.querySelector('#chart-stage2 .ytick text')).fontSize)",
        lambda s: s >= 28,
    )
    assert_large_labels(page)
    layout = page.evaluate(
        "(() => { const el = document.getElementById('chart-stage2'); "
        "return [el.layout.paper_bgcolor, el.parentElement.querySelector('.outline').hidden]; })()"
    )
    assert layout == ["#000000", False], "presentation mode: high-contrast theme and the step outline"
    cells = page.locator("#stage2 .cell-values text").all_text_contents()  # laid over the cells
    assert len([c for c in cells if re.fullmatch(r"[0-9.]+(e[-+]?\d+)?", c)]) == 9, (
        "values are written in the cells (no hover needed)"
    )

    for key in ("2", "3", "1"):
        page.keyboard.press(key)
        expect(page.locator("body")).to_have_attribute("data-stage", key)
        assert url_params(page).get("stage", "1") == key

    help_box = page.locator("#help")
    expect(help_box).to_be_hidden()
    page.keyboard.press("?")
    expect(help_box).to_be_visible()
    expect(page.locator("#help-toggle")).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Escape")
    expect(help_box).to_be_hidden()

    page.keyboard.press("f")
    poll(page, "Boolean(document.fullscreenElement)")
    page.keyboard.press("f")
    poll(page, "document.fullscreenElement === null")

    label = page.locator("#step-label").inner_text()
    page.keyboard.press("ArrowLeft")
    wait_text_change(page, "#step-label", label)
    assert url_params(page)["step"] == "1"

    page.keyboard.press("P")
    expect(page.locator("body")).not_to_have_class(re.compile(r"\bpresent\b"))
    assert "present" not in url_params(page)


def test_presentation_mode_from_the_link(tabs):
    page = tabs(viewport=FULL_HD).new_page()
    open_view(page, {**TRANSLATE["params"], "present": "true", "stage": "2"})
    expect(page.locator("body")).to_have_class(re.compile(r"\bpresent\b"))
    expect(page.locator("body")).to_have_attribute("data-stage", "2")
    assert_large_labels(page)


def test_keyboard_only_reaches_and_drives_the_controls(page):
    open_view(page, {"source": "walk by river bank"})
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.id"))
        if reached[-1] == "next":
            break
    for control in (
        "lang-switch",
        "present-toggle",
        "copy-link",
        "help-toggle",
        "preset",
        "source",
        "temperature",
        "submit",
        "next",
    ):
        assert control in reached, f"Tab never reaches #{control} (reached {reached})"

    label = page.locator("#step-label").inner_text()
    page.keyboard.press("Enter")  # on #next
    wait_text_change(page, "#step-label", label)
    assert url_params(page)["step"] == "1"

    for _ in range(40):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement.id") == "source":
            break
    assert page.evaluate("document.activeElement.id") == "source", "Shift+Tab does not lead back to #source"
    page.keyboard.press("Control+A")
    page.keyboard.type("the river bank")
    expect(page.locator("#step-label")).to_contain_text("of 3")
    assert url_params(page)["source"] == "the river bank"


def test_embed_view_shows_the_stage_in_focus_without_the_controls(page):
    open_view(page, "/embed?source=walk+by+river+bank&step=3")
    expect(page.locator("#controls")).to_be_hidden()
    expect(page.locator("header.top")).to_be_hidden()
    expect(page.locator("#chart-stage1 .main-svg").first).to_be_visible()  # stage 1, the default stage
    expect(page.locator("#stage2")).to_be_hidden()
    label = page.locator("#step-label").inner_text()
    page.keyboard.press("ArrowLeft")  # still steps, and the link stays an /embed link
    wait_text_change(page, "#step-label", label)
    assert page.url.split("?")[0].endswith("/embed") and url_params(page)["step"] == "2"
