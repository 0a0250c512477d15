"""The page's URL after any change is a fixed point: the API, given it, writes the same link back.

The server writes every link; the page appends view fields (step, stage, head, presentation, language)
in the declared order. These tests change things the way a teacher would, in every mode, and check the
address bar against the API after each change.
"""

from urllib.parse import urlsplit

from playwright.sync_api import expect

from tests.browser.harness import open_view, poll, wait_text_change


def assert_fixed_point(page):
    parts = urlsplit(page.url)
    here = parts.path + (f"?{parts.query}" if parts.query else "")
    answer = page.request.get("/api/attention" + (f"?{parts.query}" if parts.query else ""))
    assert answer.status == 200, answer.text()
    assert answer.json()["share_path"] == here
    return here


def press(page, key, *, until):
    before = page.url
    page.evaluate("document.activeElement && document.activeElement.blur()")  # keys act on the view
    page.keyboard.press(key)
    poll(page, "location.href", lambda href: href != before and until(href))
    return assert_fixed_point(page)


def test_self_and_cross_attention_with_every_view_field(page):
    open_view(page, {"source": "我们 在 河边 散步 ， 然后 去 银行", "heads": "2"})
    assert_fixed_point(page)
    press(page, "ArrowRight", until=lambda href: "step=1" in href)
    press(page, "3", until=lambda href: "stage=3" in href)
    press(page, "p", until=lambda href: "present=true" in href)
    arithmetic = page.locator("#arithmetic").inner_text()
    page.locator("#head-grid button").nth(1).click()
    wait_text_change(page, "#arithmetic", arithmetic)
    poll(page, "location.search", lambda search: "head=1" in search)
    assert_fixed_point(page)

    page.locator("input[name=_mode][value=cross]").check()  # now encoder-decoder attention
    page.locator("#target").fill("we walk by the river")
    poll(page, "location.search", lambda search: "target=" in search)
    here = assert_fixed_point(page)
    assert "present=true" in here and "stage=3" in here, "view fields survive an edit"
    press(page, "ArrowRight", until=lambda href: "step=" in href)


def test_exercise_values_are_written_by_the_server(page, watch):
    watch.allow(r"status of 422")
    open_view(page, {"q": "1,0", "k": "1,0;0,1", "v": "1;2"})
    page.locator("#q").fill("1e-7 0.50\n-0.0 1")
    poll(page, "location.search", lambda search: "q=" in search and "0.5" in search)
    here = assert_fixed_point(page)
    assert "q=1e-07,0.5;-0,1" in here, here  # Python's shortest form, whatever the page was typed with
    page.locator("#q").fill("1e21 0\n0 1")  # over the exercise's bound: refused, and the link stays as it was
    expect(page.locator("#q-error")).to_contain_text("1e+06")
    assert assert_fixed_point(page) == here
    page.locator("#q").fill("1e-7 0.50\n-0.0 1")
    page.locator("#key_labels").fill("甲, 乙")
    poll(page, "location.search", lambda search: "key_labels=" in search)
    assert_fixed_point(page)
    press(page, "ArrowRight", until=lambda href: "step=1" in href)


def test_real_model_views(page):
    open_view(page, {"source": "the bank of the river", "model": "minilm", "layer": "2"})
    assert_fixed_point(page)
    arithmetic = page.locator("#arithmetic").inner_text()
    page.locator("#head-grid button[aria-label='Layer 3, Head 7']").click()
    wait_text_change(page, "#arithmetic", arithmetic)
    poll(page, "location.search", lambda search: "layer=3" in search and "head=7" in search)
    assert_fixed_point(page)
    page.locator("#hide_special").check()
    poll(page, "location.search", lambda search: "hide_special=true" in search)
    assert_fixed_point(page)
    page.locator("#hide_special").blur()  # keys act on the view, not on a focused control
    press(page, "ArrowRight", until=lambda href: "step=1" in href)


def test_language_and_back_forward_keep_the_link(page):
    open_view(page, {"source": "walk by river bank", "lang": "zh", "step": "2"})
    assert_fixed_point(page)
    page.locator("#temperature").fill("0.5")
    poll(page, "location.search", lambda search: "temperature=0.5" in search)
    assert_fixed_point(page)
    page.go_back(wait_until="commit")
    poll(page, "location.search", lambda search: "temperature" not in search)
    expect(page.locator("#temperature")).to_have_value("1")
    assert_fixed_point(page)
