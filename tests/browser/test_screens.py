"""Every screen a class meets: a projector (1280×720), laptops (1366×768, 1920×1080) and a phone
(390×844), plain and in presentation mode, after resizing, in slide mode and in /embed.

What each screen must show, measured in the drawn page: no sideways scrolling; every chart inside its
card and filling at least 55% of the card's width; the current step's outline exactly on its row of
the heatmap as drawn (Plotly's own cell image, not our geometry); and where a room must read it from
a projector, a whole heatmap with the step label and its query word on the first screen.
"""

import re

import pytest
from playwright.sync_api import expect

from app.view.presets import PRESETS
from tests.browser.harness import count_draws, draws, open_view, page_data, poll, url_params

TRANSLATE = next(p for p in PRESETS if p["id"] == "translate")
PROJECTOR = {"width": 1280, "height": 720}
LAPTOP = {"width": 1366, "height": 768}
FULL_HD = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
SCREENS = {"1280x720": PROJECTOR, "1366x768": LAPTOP, "1920x1080": FULL_HD, "390x844": PHONE}

# The drawn page, read in one go. A chart counts when it is displayed and Plotly has drawn it.
LAYOUT = """() => {
  const rect = (e) => {
    const r = e.getBoundingClientRect();
    return { l: r.left, r: r.right, t: r.top, b: r.bottom, w: r.width, h: r.height };
  };
  const doc = document.documentElement;
  const charts = [...document.querySelectorAll('.chart')]
    .filter((c) => c.offsetParent !== null && c.querySelector('.main-svg'));
  return {
    pending: document.querySelectorAll('[data-pending]').length,  // redraws main.js's watchSizes has scheduled
    scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, innerWidth, innerHeight, scrollY,
    stepLabel: rect(document.getElementById('step-label')),
    stepper: rect(document.querySelector('.stepper')),
    charts: charts.map((c) => {
      // a chart's card: its stage or panel, or the geometry panel's column (its table may sit beside it)
      const card = c.closest('.geometry-body > .chart-wrap, .stage, .panel');
      const style = getComputedStyle(card);
      const inner = card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const cells = c.querySelector('.heatmaplayer image');
      const outline = c.parentElement.querySelector('.outline');
      return {
        id: c.id, drawnWidth: parseFloat(c.querySelector('.main-svg').getAttribute('width')), width: c.clientWidth,
        svg: rect(c.querySelector('.main-svg')), card: rect(card), cardInner: inner,
        cells: cells ? rect(cells) : null, rows: c.data[0].y.length,
        hasOutline: Boolean(outline), outline: outline && !outline.hidden ? rect(outline) : null,
      };
    }),
  };
}"""


def drawn_at_their_width(found):
    return found["charts"] and all(abs(c["drawnWidth"] - c["width"]) <= 1 for c in found["charts"])


def layout(page):
    """The layout once the page has settled: every displayed chart drawn at its box's current width, no redraw
    scheduled, and two reads a poll apart (more than a frame) the same. A box that changes size after the first
    draw (e.g. a line above the chart that wraps) is redrawn on the next frame (main.js's watchSizes); read in
    between, the chart hangs out of its card by the difference, as it did once in /embed (9 px)."""
    previous = []

    def settled(found):
        same = previous == [found]
        previous[:] = [found]
        return same and not found["pending"] and drawn_at_their_width(found)

    try:
        return poll(page, LAYOUT, settled)
    except AssertionError:
        found = page.evaluate(LAYOUT)
        stale = [(c["id"], c["drawnWidth"], c["width"]) for c in found["charts"]]
        raise AssertionError(
            f"the page did not settle in 10 s: {found['pending']} redraws pending; charts (id, drawn width, box "
            f"width): {stale}"
        ) from None


def assert_fits(page, where):
    found = layout(page)
    step = int(url_params(page).get("step", "0"))
    assert found["scrollWidth"] <= found["clientWidth"], (
        f"{where}: the page scrolls sideways ({found['scrollWidth']} px)"
    )
    for chart in found["charts"]:
        svg, card = chart["svg"], chart["card"]
        name = f"{where}: {chart['id']}"
        assert card["l"] - 0.5 <= svg["l"] and svg["r"] <= card["r"] + 0.5, f"{name} hangs out of its card: {chart}"
        assert card["t"] - 0.5 <= svg["t"] and svg["b"] <= card["b"] + 0.5, f"{name} hangs out of its card: {chart}"
        assert svg["w"] >= 0.55 * chart["cardInner"], f"{name} fills {svg['w']:.0f} of {chart['cardInner']:.0f} px"
        if chart["hasOutline"]:
            assert_outline_on_row(chart, step, name)
    return found


def assert_outline_on_row(chart, step, name):
    """The outline (a 4-6 px border, 3 px outside the row) frames row `step` of the drawn cells."""
    cells, box = chart["cells"], chart["outline"]
    assert box, f"{name}: no outline at step {step}"
    row = cells["h"] / chart["rows"]
    top, bottom = cells["t"] + step * row, cells["t"] + (step + 1) * row
    assert abs(box["t"] + 3 - top) <= 2 and abs(box["b"] - 3 - bottom) <= 2, (
        f"{name}: outline {box} off row {top}-{bottom}"
    )
    assert abs(box["l"] + 3 - cells["l"]) <= 2 and abs(box["r"] - 3 - cells["r"]) <= 2, (
        f"{name}: outline {box} off {cells}"
    )


def whole_heatmaps_on_first_screen(found):
    screen = found["innerHeight"]
    return [c["id"] for c in found["charts"] if c["svg"]["t"] >= 0 and c["svg"]["b"] <= screen and c["cells"]]


def assert_first_screen(page, found, where):
    assert found["scrollY"] == 0
    whole = whole_heatmaps_on_first_screen(found)
    assert whole, f"{where}: no heatmap is whole on the first screen: {[(c['id'], c['svg']) for c in found['charts']]}"
    label = found["stepLabel"]
    assert label["t"] >= 0 and label["b"] <= found["innerHeight"], f"{where}: the step label is off the first screen"
    query = page_data(page)["view"]["tokens"]["queries"][int(url_params(page).get("step", "0"))]
    assert f"“{query}”" in page.locator("#step-label").inner_text(), f"{where}: the step label does not name the query"


def press_present(page):
    page.keyboard.press("p")
    expect(page.locator("body")).to_have_class(re.compile(r"\bpresent\b"))


@pytest.mark.parametrize("screen", list(SCREENS))
def test_every_screen_plain_and_in_presentation_mode(tabs, screen):
    viewport = SCREENS[screen]
    page = tabs(viewport=viewport).new_page()
    open_view(page, TRANSLATE["params"])
    assert_fits(page, f"{screen} plain")
    press_present(page)
    found = assert_fits(page, f"{screen} after P")
    if viewport == PROJECTOR:
        assert_first_screen(page, found, f"{screen} after P")
        assert found["stepper"]["t"] > 0 and page.locator("header.top").bounding_box()["height"] < 60, (
            "presentation mode's header is one line"
        )


def test_resizing_a_laptop_window_to_full_hd(tabs):
    page = tabs(viewport=LAPTOP).new_page()
    open_view(page, {"source": "walk by river bank", "step": "2"})
    assert_fits(page, "1366x768")
    page.set_viewport_size(FULL_HD)
    found = assert_fits(page, "1366x768 resized to 1920x1080")
    assert all(c["width"] > 450 for c in found["charts"]), "the charts grew with the window"


def test_presentation_at_full_hd_then_a_projector(tabs):
    page = tabs(viewport=FULL_HD).new_page()
    open_view(page, {**TRANSLATE["params"], "present": "true"})
    assert_fits(page, "1920x1080 presentation")
    page.set_viewport_size(PROJECTOR)
    found = assert_fits(page, "presentation resized to 1280x720")
    assert_first_screen(page, found, "presentation resized to 1280x720")


def test_the_outline_follows_the_step_after_a_resize(tabs):
    page = tabs(viewport=LAPTOP).new_page()
    open_view(page, {"source": "the cat sat on the mat", "step": "4"})
    page.keyboard.press("ArrowLeft")
    poll(page, "location.search", lambda search: "step=3" in search)
    page.set_viewport_size(PHONE)
    assert_fits(page, "stepped, then resized to a phone")
    page.keyboard.press("ArrowRight")
    poll(page, "location.search", lambda search: "step=4" in search)
    assert_fits(page, "a step on the phone")


VISIBLE_PANELS = (
    "() => [...document.querySelectorAll('[data-slide-panel]')].filter((p) => p.offsetParent !== null).map((p) => p.id)"
)
PANEL_BOTTOM = "(id) => document.getElementById(id).getBoundingClientRect().bottom"


def assert_one_panel(page, panel, where):
    """Only `panel` is shown, and it ends within the screen (sized to it, not scrolled to)."""
    assert poll(page, VISIBLE_PANELS, lambda shown: shown == [panel]) == [panel], where
    bottom = page.evaluate(PANEL_BOTTOM, panel)
    assert bottom <= page.viewport_size["height"] + 0.5, f"{where}: {panel} ends at {bottom} px, below the screen"


def press_until(page, key, param, value):
    page.keyboard.press(key)
    poll(page, "location.search", lambda search: url_params(page).get(param) == value)


def test_slide_mode_one_panel_at_a_time(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, TRANSLATE["params"])
    press_until(page, "s", "slide", "1")
    expect(page.locator("body")).to_have_class(re.compile(r"\bslides\b"))
    assert_one_panel(page, "stage1", "slide 1")
    found = assert_fits(page, "slide 1")
    assert_first_screen(page, found, "slide 1")
    assert found["charts"][0]["svg"]["w"] > 0.9 * PROJECTOR["width"], "the slide's heatmap is as wide as the screen"

    press_until(page, "ArrowDown", "slide", "2")
    assert url_params(page).get("stage") == "2", "a stage's panel is the stage in focus"
    assert_one_panel(page, "stage2", "slide 2")
    assert_first_screen(page, assert_fits(page, "slide 2"), "slide 2")
    press_until(page, "PageDown", "slide", "3")
    assert_one_panel(page, "stage3", "slide 3")
    assert_fits(page, "slide 3")
    for slide, panel in (("4", "arithmetic-panel"), ("5", "bars-panel"), ("6", "alignment-panel")):
        press_until(page, "ArrowDown", "slide", slide)
        assert_one_panel(page, panel, f"slide {slide}")
    press_until(page, "ArrowLeft", "step", "1")  # steps move in every panel
    expect(page.locator("#alignment .align-word.current")).to_have_text(page_data(page)["view"]["tokens"]["queries"][1])
    press_until(page, "ArrowDown", "slide", "7")
    assert_one_panel(page, "geometry-panel", "slide 7")
    assert_fits(page, "slide 7")
    page.keyboard.press("PageDown")  # the last panel stays
    assert url_params(page)["slide"] == "7"
    expect(page.locator("#panel-next")).to_be_disabled()
    press_until(page, "PageUp", "slide", "6")
    press_until(page, "PageUp", "slide", "5")
    press_until(page, "2", "slide", "2")
    assert_one_panel(page, "stage2", "key 2 in slide mode")
    page.keyboard.press("Escape")
    poll(page, "location.search", lambda search: "slide" not in search)
    expect(page.locator("body")).not_to_have_class(re.compile(r"\bslides\b"))
    assert len(page.evaluate(VISIBLE_PANELS)) == 7  # every panel again, the geometry panel last
    assert_fits(page, "after slide mode")


def test_slide_mode_from_a_link_in_presentation_mode(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    count_draws(page)
    open_view(page, {"source": "walk by river bank", "present": "true", "slide": "1", "step": "2"})
    assert_one_panel(page, "stage1", "slide 1 with present=true")
    found = assert_fits(page, "slide 1 with present=true")
    assert draws(page) == {"chart-stage1": 1}, "the slide's heatmap is drawn once, at its panel's size"
    assert_first_screen(page, found, "slide 1 with present=true")
    sizes = page.evaluate(
        "[...document.querySelectorAll('#chart-stage1 .ytick text')]"
        ".map((e) => parseFloat(getComputedStyle(e).fontSize))"
    )
    assert min(sizes) >= 28, f"large type on a 1280x720 slide: {sizes}"
    page.locator("#panel-next").click()
    poll(page, "location.search", lambda search: "slide=2" in search)
    assert_one_panel(page, "stage2", "slide 2 by its button")
    page.locator("#slide-exit").click()
    poll(page, "location.search", lambda search: "slide" not in search and "present=true" in search)


EMBED_FRAME = {"width": 800, "height": 450}


@pytest.mark.parametrize("present", [False, True], ids=["plain", "present"])
def test_embed_shows_the_chosen_stage_whole(tabs, present):
    page = tabs(viewport=EMBED_FRAME).new_page()
    count_draws(page)
    query = "source=walk+by+river+bank&stage=2&step=1" + ("&present=true" if present else "")
    open_view(page, f"/embed?{query}")
    assert_one_panel(page, "stage2", "/embed stage=2")
    found = assert_fits(page, "/embed stage=2")
    assert_first_screen(page, found, "/embed stage=2")
    assert [c["id"] for c in found["charts"]] == ["chart-stage2"]
    # drawn once, at the size the panel leaves it: not drawn, then shrunk when the step's words appear above it
    assert draws(page) == {"chart-stage2": 1}
    page.keyboard.press("3")
    poll(page, "location.search", lambda search: "stage=3" in search)
    assert_one_panel(page, "stage3", "/embed after key 3")
    assert_first_screen(page, assert_fits(page, "/embed stage=3"), "/embed stage=3")
    assert page.url.split("?")[0].endswith("/embed")


def test_phone_one_column_and_a_small_step_bar(tabs):
    page = tabs(viewport=PHONE).new_page()
    open_view(page, TRANSLATE["params"])
    found = assert_fits(page, "phone")
    lefts = page.evaluate(
        "[...document.querySelectorAll('.stage, .panel')]"
        ".filter((p) => p.offsetParent).map((p) => p.getBoundingClientRect().left)"
    )
    assert max(lefts) - min(lefts) < 1, f"one column: cards start at {lefts}"
    for chart in found["charts"]:
        assert chart["svg"]["w"] >= 0.85 * PHONE["width"], f"{chart['id']} is {chart['svg']['w']} px wide on a phone"
    first = min(chart["svg"]["t"] for chart in found["charts"])
    assert first < 2 * PHONE["height"], f"the first chart starts {first} px down: beyond two screens"
    page.locator("#arithmetic-panel").scroll_into_view_if_needed()
    bar = page.locator(".stepper").bounding_box()
    assert bar["y"] <= 1 and bar["height"] <= PHONE["height"] / 10, f"the sticky step bar: {bar}"
    press_present(page)
    assert_fits(page, "phone after P")
    bar = page.locator(".stepper").bounding_box()
    assert bar["height"] <= PHONE["height"] / 10, f"the step bar after P: {bar}"


def test_a_real_model_on_a_phone(tabs):
    """Every layer and head (12 × 12 maps, the statistics table, the rollout) scrolls inside its panel."""
    page = tabs(viewport=PHONE).new_page()
    open_view(page, {"source": "the bank of the river", "model": "e5", "layer": "3"})
    assert_fits(page, "e5 on a phone")
    press_present(page)
    assert_fits(page, "e5 on a phone after P")
