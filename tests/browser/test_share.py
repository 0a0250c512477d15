"""A copied link, opened in a fresh browser context, gives the same view and the same numbers."""

import re

from playwright.sync_api import expect

from app.view.presets import PRESETS
from tests.browser.harness import open_tables, open_view, page_data, poll, put_together, url_params, wait_text_change

MULTI_HEAD = next(p for p in PRESETS if p["id"] == "multi-head")

FORM_STATE = """() => [...document.getElementById('controls').elements]
  .filter((e) => e.id && e.type !== 'hidden' && e.tagName !== 'BUTTON' && e.tagName !== 'FIELDSET')
  .map((e) => [e.id, (e.type === 'checkbox' || e.type === 'radio') ? e.checked : e.value, e.disabled])"""


def view_state(page):
    open_tables(page)
    return {
        "form": page.evaluate(FORM_STATE),
        "mode": page.evaluate("document.querySelector('input[name=_mode]:checked').value"),
        "step_label": page.locator("#step-label").inner_text(),
        "arithmetic": page.locator("#arithmetic").inner_text(),
        "tables": [page.locator(f"#table-stage{n}").inner_text() for n in (1, 2, 3)],
        "pairs": page.locator("#pairs").inner_text(),
        "heads_pressed": page.locator("#head-grid button").evaluate_all(
            "(buttons) => buttons.map((b) => b.getAttribute('aria-pressed'))"
        ),
        "present": page.evaluate("document.body.classList.contains('present')"),
        "lang": page.evaluate("document.documentElement.lang"),
    }


def test_copied_link_reproduces_the_view_in_a_new_context(tabs, fresh_context):
    context = tabs(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    responses = []
    page.on("response", lambda response: responses.append(response) if "/api/attention" in response.url else None)
    open_view(page, MULTI_HEAD["params"])

    arithmetic = page.locator("#arithmetic").inner_text()
    page.locator("#temperature").fill("0.5")
    arithmetic = wait_text_change(page, "#arithmetic", arithmetic)
    page.locator("#causal").check()
    arithmetic = wait_text_change(page, "#arithmetic", arithmetic)
    page.locator("#source").fill("the teacher gave the young student a red book")
    arithmetic = wait_text_change(page, "#arithmetic", arithmetic)
    page.locator("#head-grid button").nth(3).click()
    arithmetic = wait_text_change(page, "#arithmetic", arithmetic)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#step-label")).to_contain_text("5 of 9")
    assert url_params(page) == {
        "source": "the teacher gave the young student a red book",
        "heads": "4",
        "temperature": "0.5",
        "causal": "true",
        "head": "3",
        "step": "4",
    }

    page.locator("#copy-link").click()
    expect(page.locator("#copy-link")).to_have_attribute("data-link", re.compile(r"^http://"))
    link = page.locator("#copy-link").get_attribute("data-link")
    assert link == page.url, "the copied link is not the page's canonical URL"
    expect(page.locator("#status")).to_contain_text(link)
    assert poll(page, "navigator.clipboard.readText()", lambda text: text == link) == link

    original = view_state(page)
    last = responses[-1]
    assert last.ok
    drawn = put_together(page, last.json())  # the numbers the first page drew

    fresh = fresh_context().new_page()
    open_view(fresh, link)
    assert fresh.url == link
    copy = view_state(fresh)
    for key in original:
        assert copy[key] == original[key], f"{key} differs in the new context"
    assert copy["heads_pressed"] == ["false", "false", "false", "true"]

    data = page_data(fresh)["view"]
    for field in ("scores", "weights", "output"):
        assert data["head"][field] == drawn["head"][field], f"head.{field} differs"
    view_fields = ("step", "head", "stage", "lang", "present")
    assert {k: v for k, v in data["params"].items() if k not in view_fields} == {
        k: v for k, v in drawn["params"].items() if k not in view_fields
    }
    assert (data["params"]["step"], data["params"]["head"]) == (4, 3)
    assert data["tokens"] == drawn["tokens"]
