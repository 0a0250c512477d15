"""Edits: typing is debounced, re-renders, pushes a history entry that Back/Forward walk through.
Bad input shows the API's message next to the field, keeps the previous view and what was typed."""

import re
from urllib.parse import urlencode

from playwright.sync_api import expect

from tests.browser.harness import open_view, poll, snapshot, url_params, wait_text_change


def api_message(page, params):
    """The API's message about the first bad field: shown beside that field's box, without the field's name."""
    response = page.request.get("/api/attention?" + urlencode(params))
    assert response.status == 422, f"the API accepted {params}"
    return response.json()["detail"][0]["msg"]


def go_history(page, direction):
    """Back/Forward re-render the view in place (no reload: the marker set before survives)."""
    before = page.url
    page.evaluate("window.__before_history = true")
    (page.go_back if direction == "back" else page.go_forward)(wait_until="commit")
    poll(page, "location.href", lambda href: href != before)
    poll(page, "document.body.dataset.ready === 'true' && window.__before_history === true")


def test_edits_rerender_push_history_and_back_forward_restore(page):
    open_view(page, {"source": "walk by river bank", "step": "3"})
    length = page.evaluate("history.length")
    label = page.locator("#step-label").inner_text()

    page.locator("#source").fill("the cat sat on the mat")  # one input event: one edit
    wait_text_change(page, "#step-label", label)
    expect(page.locator("#step-label")).to_contain_text("of 6")
    assert url_params(page)["source"] == "the cat sat on the mat"
    assert page.evaluate("history.length") == length + 1, "an edit pushes one history entry"
    assert [row.strip() for row in page.locator("#arithmetic tbody th").all_inner_texts()] == [
        "the",
        "cat",
        "sat",
        "on",
        "the",
        "mat",
    ]

    page.locator("#temperature").fill("2")
    expect(page.locator("#temperature-value")).to_have_text("2")
    poll(page, "location.search", lambda search: "temperature=2" in search)
    assert page.evaluate("history.length") == length + 2

    go_history(page, "back")
    expect(page.locator("#source")).to_have_value("the cat sat on the mat")
    expect(page.locator("#temperature")).to_have_value(re.compile(r"^1(\.0)?$"))
    assert "temperature" not in url_params(page)

    go_history(page, "back")
    expect(page.locator("#source")).to_have_value("walk by river bank")
    expect(page.locator("#step-label")).to_contain_text("4 of 4")
    assert [row.strip() for row in page.locator("#arithmetic tbody th").all_inner_texts()] == [
        "walk",
        "by",
        "river",
        "bank",
    ]

    go_history(page, "forward")
    expect(page.locator("#source")).to_have_value("the cat sat on the mat")
    expect(page.locator("#step-label")).to_contain_text("of 6")


def test_typing_is_debounced(page):
    open_view(page, {"source": "walk by river bank"})
    api_calls = []
    page.on("request", lambda request: api_calls.append(request.url) if "/api/attention" in request.url else None)
    text = "the little dog ran home"
    source = page.locator("#source")
    source.click()
    page.keyboard.press("Control+A")
    source.press_sequentially(text)
    poll(page, "new URLSearchParams(location.search).get('source')", lambda value: value == text)
    expect(page.locator("#step-label")).to_contain_text("of 5")
    assert len(api_calls) <= len(text) // 2, f"typing {len(text)} keys sent {len(api_calls)} requests: no debounce"


def test_bad_temperature_shows_api_message_and_keeps_the_view(page, watch):
    watch.allow(r"status of 422")  # Chromium logs every non-2xx fetch; the 422 is the expected answer here
    params = {"source": "walk by river bank", "step": "3"}
    open_view(page, params)
    before = snapshot(page)

    page.locator("#temperature").fill("50")
    error = page.locator("#temperature-error")
    expect(error).not_to_be_empty()
    assert error.inner_text() == api_message(page, {**params, "temperature": "50"})
    assert "20" in error.inner_text()
    expect(page.locator("#temperature")).to_have_value("50")
    expect(page.locator("#temperature")).to_have_attribute("aria-invalid", "true")
    assert snapshot(page) == before, "a rejected edit changed the view or the URL"

    page.locator("#temperature").fill("0.5")
    wait_text_change(page, "#arithmetic", before["arithmetic"])
    expect(error).to_be_empty()
    expect(page.locator("#temperature")).not_to_have_attribute("aria-invalid", "true")
    assert url_params(page)["temperature"] == "0.5"


def test_bad_source_shows_api_message_and_keeps_what_was_typed(page, watch):
    watch.allow(r"status of 422")
    open_view(page, {"source": "walk by river bank", "step": "2"})
    before = snapshot(page)
    error = page.locator("#source-error")

    too_many_tokens = "a " * 128 + "b"  # 129 tokens, 257 characters
    page.locator("#source").fill(too_many_tokens)
    expect(error).not_to_be_empty()
    assert error.inner_text() == api_message(page, {"source": too_many_tokens})
    expect(page.locator("#source")).to_have_value(too_many_tokens)
    assert snapshot(page) == before

    # 1000 characters are fine; 1001 are refused with a message below (a paste is never cut off silently)
    page.locator("#source").fill("x" * 1000)
    expect(page.locator("#source")).to_have_value("x" * 1000)
    expect(error).to_be_empty()  # 1000 characters are fine: the edit went through
    wait_text_change(page, "#step-label", before["step_label"])
    after_valid = snapshot(page)
    page.locator("#source").evaluate(
        "(e) => { e.value = 'y'.repeat(1001); e.dispatchEvent(new Event('input', { bubbles: true })); }"
    )
    expect(error).not_to_be_empty()
    assert error.inner_text() == api_message(page, {"source": "y" * 1001})
    assert "1000" in error.inner_text()
    assert page.locator("#source").input_value() == "y" * 1001
    assert snapshot(page) == after_valid


def test_too_long_source_in_a_link_opens_the_default_view_with_a_notice(page):
    response = open_view(page, {"source": "z" * 1001, "step": "1"})
    assert response.status == 200
    notice = page.locator(".notice.ignored")
    expect(notice).to_have_count(1)
    expect(notice).to_contain_text("source")
    expect(notice).to_contain_text("1000")
    expect(page.locator("#source")).to_have_value("walk by river bank")
    expect(page.locator("#step-label")).to_contain_text("2 of 4")
