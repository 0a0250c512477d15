"""History without reloads, every key in the help, and the controls a class follows: the example on
screen named in the Examples list, the current head named beside the step, stale charts marked."""

import re

from playwright.sync_api import expect

from app.view.i18n import STRINGS
from app.view.presets import PRESETS
from tests.browser.harness import current_view, open_view, poll, url_params

MULTI_HEAD = next(p for p in PRESETS if p["id"] == "multi-head")
VISIBLE_PANELS = (
    "() => [...document.querySelectorAll('[data-slide-panel]')].filter((p) => p.offsetParent !== null).map((p) => p.id)"
)


def press(page, key, param, value):
    """Press a view key and wait for the link to carry param=value (None: param left out)."""
    page.keyboard.press(key)
    poll(page, "location.search", lambda _: url_params(page).get(param) == value)


def go(page, direction):
    """Back or Forward, re-rendered in place: the marker set on the window before survives."""
    before = page.url
    page.evaluate("window.__same_document = true")
    (page.go_back if direction == "back" else page.go_forward)(wait_until="commit")
    poll(page, "location.href", lambda href: href != before)
    poll(page, "document.body.dataset.ready === 'true' && window.__same_document === true")


def assert_view(page, *, present, slide, stage, head, step):
    params = url_params(page)
    assert params.get("present") == ("true" if present else None), params
    assert params.get("slide") == slide and params.get("stage") == stage, params
    assert params.get("head") == head and params.get("step") == step, params
    body = page.locator("body")
    expect(body).to_have_class(re.compile(r"\bpresent\b") if present else re.compile(r"^(?!.*\bpresent\b)"))
    expect(body).to_have_class(re.compile(r"\bslides\b") if slide else re.compile(r"^(?!.*\bslides\b)"))
    expect(body).to_have_attribute("data-stage", stage or "1")
    panels = poll(page, VISIBLE_PANELS, lambda shown: (len(shown) == 1) == bool(slide))
    if slide:
        assert panels == [
            ["stage1", "stage2", "stage3", "arithmetic-panel", "bars-panel", "alignment-panel"][int(slide) - 1]
        ]
    label = page.locator("#step-label")  # the current head is named beside the step
    expect(label).to_contain_text(f"Step {int(step or 0) + 1} of ")
    shown = int(head) if head is not None else current_view(page)["focus"]["head"]  # no head: the step's own
    expect(label).to_contain_text(f"Head {shown + 1}")  # counted from 1 on the page


def test_back_and_forward_restore_every_view_field_in_place(tabs):
    page = tabs(viewport={"width": 1366, "height": 768}).new_page()
    open_view(page, MULTI_HEAD["params"])
    arithmetic = page.locator("#arithmetic").inner_text()
    length = page.evaluate("history.length")
    page.locator("#head-grid button").nth(2).click()  # choosing a head is a new view: one history entry
    poll(page, "location.search", lambda search: "head=2" in search)
    poll(page, "document.getElementById('arithmetic').innerText", lambda text: text != arithmetic)
    assert page.evaluate("history.length") == length + 1
    page.locator("#head-grid button").nth(2).blur()
    press(page, "ArrowRight", "step", "7")
    press(page, "3", "stage", "3")
    press(page, "p", "present", "true")
    press(page, "s", "slide", "3")
    assert_view(page, present=True, slide="3", stage="3", head="2", step="7")
    length = page.evaluate("history.length")

    # An edit (here while the form is hidden by slide mode, the way a script would make it) is a new entry.
    page.evaluate(
        """() => { const box = document.getElementById('source');
                  box.value = 'the cat drank the milk because it was thirsty';
                  box.dispatchEvent(new Event('input', { bubbles: true })); }"""
    )
    poll(page, "location.search", lambda search: "thirsty" in search)
    assert page.evaluate("history.length") == length + 1
    press(page, "s", "slide", None)
    press(page, "p", "present", None)
    press(page, "1", "stage", None)
    press(page, "ArrowLeft", "step", "6")
    assert_view(page, present=False, slide=None, stage=None, head="2", step="6")

    go(page, "back")
    assert_view(page, present=True, slide="3", stage="3", head="2", step="7")
    expect(page.locator("#source")).to_have_value(MULTI_HEAD["params"]["source"])
    go(page, "back")
    assert_view(page, present=False, slide=None, stage=None, head=None, step="6")
    go(page, "forward")
    assert_view(page, present=True, slide="3", stage="3", head="2", step="7")
    go(page, "forward")
    assert_view(page, present=False, slide=None, stage=None, head="2", step="6")
    expect(page.locator("#source")).to_have_value("the cat drank the milk because it was thirsty")


def test_back_after_changing_the_language_restores_the_view(page):
    open_view(page, {"source": "walk by river bank", "step": "2", "present": "true"})
    page.locator("#lang-switch").click()  # every word of the page changes: a new page in Chinese
    poll(page, "document.documentElement.lang", lambda lang: lang == "zh-CN")
    page.locator("body[data-ready=true]").wait_for()
    assert url_params(page)["lang"] == "zh" and url_params(page)["present"] == "true"
    page.go_back()
    poll(page, "document.documentElement.lang", lambda lang: lang == "en")
    page.locator("body[data-ready=true]").wait_for()
    assert url_params(page).get("step") == "2" and "lang" not in url_params(page)
    expect(page.locator("body")).to_have_class(re.compile(r"\bpresent\b"))
    expect(page.locator("#step-label")).to_contain_text("Step 3 of 4")


def test_the_help_lists_every_key_the_page_answers(page):
    open_view(page, {"source": "walk by river bank"})
    page.keyboard.press("?")
    help_box = page.locator("#help")
    expect(help_box).to_be_visible()
    keys = help_box.locator("dt").all_inner_texts()
    assert keys == [key for key, _ in STRINGS["en"]["key_list"]]
    listed = " ".join(keys)
    for key in ("←", "→", "Space", "1", "2", "3", "P", "S", "↑", "↓", "PgUp", "PgDn", "F", "Esc", "?"):
        assert re.search(rf"(^|\s){re.escape(key)}(\s|$)", listed), f"the help does not list {key}: {keys}"
    box = help_box.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1400
    page.keyboard.press("Escape")
    expect(help_box).to_be_hidden()
    # Each listed key acts: the ones not covered elsewhere (Space plays, S and the panel keys, Esc leaves).
    page.keyboard.press(" ")
    expect(page.locator("#play")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press(" ")
    expect(page.locator("#play")).to_have_attribute("aria-pressed", "false")
    press(page, "s", "slide", "1")
    press(page, "ArrowDown", "slide", "2")
    press(page, "PageDown", "slide", "3")
    press(page, "ArrowUp", "slide", "2")
    press(page, "PageUp", "slide", "1")
    press(page, "Escape", "slide", None)


def test_the_help_in_chinese_lists_the_same_keys(page):
    open_view(page, {"source": "小猫在河边喝水", "lang": "zh"})
    page.locator("#help-toggle").click()
    keys = page.locator("#help dt").all_inner_texts()
    assert len(keys) == len(STRINGS["en"]["key_list"]) and "空格" in keys and "S" in keys
    for _, what in STRINGS["zh"]["key_list"]:
        assert not re.search(r"[,;:()]", what), f"Chinese text uses full-width punctuation: {what}"


def test_the_examples_list_names_the_view_or_says_your_own(page):
    open_view(page, MULTI_HEAD["params"])
    expect(page.locator("#preset")).to_have_value("multi-head")
    page.locator("#source").fill("the cat drank the milk")
    poll(page, "location.search", lambda search: "milk" in search)
    expect(page.locator("#preset")).to_have_value("")
    expect(page.locator("#preset option:checked")).to_have_text(STRINGS["en"]["your_own"])
    expect(page.locator("#lesson")).to_be_empty()


def test_invalid_input_greys_the_charts_and_says_they_are_the_last_valid_view(page, watch):
    watch.allow(r"status of 422")
    open_view(page, {"source": "walk by river bank"})
    stale = page.locator("#stale")
    expect(stale).to_be_hidden()
    page.locator("#temperature").fill("99")
    expect(stale).to_be_visible()
    expect(stale).to_have_text(STRINGS["en"]["stale"])
    expect(page.locator("body")).to_have_class(re.compile(r"\bstale\b"))
    assert page.evaluate("getComputedStyle(document.getElementById('chart-stage2')).filter") == "grayscale(1)"
    page.locator("#temperature").fill("2")
    expect(stale).to_be_hidden()
    expect(page.locator("body")).not_to_have_class(re.compile(r"\bstale\b"))


def test_the_temperature_slider_and_its_number_move_together(page):
    open_view(page, {"source": "walk by river bank"})
    slider = page.locator("#temperature-slider")
    slider.focus()
    page.keyboard.press("ArrowRight")
    poll(page, "location.search", lambda search: "temperature=" in search)
    expect(page.locator("#temperature")).to_have_value(slider.input_value())
    expect(page.locator("#temperature-value")).to_have_text(slider.input_value())
