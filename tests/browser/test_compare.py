"""The compare page in a real browser: the link round-trips, both panes share one colour scale, keys work."""

from urllib.parse import urlsplit

from playwright.sync_api import expect

from tests.browser.harness import poll

BANKS = "/compare?a.source=I+sat+by+the+river+bank&b.source=I+put+money+in+the+bank"


def open_compare(page, path):
    page.goto(path)
    page.locator("body[data-ready=true]").wait_for(state="attached")


def colour_range(page, pane):
    return page.evaluate(
        f"(() => {{ const d = document.getElementById('chart-{pane}').data[0]; return [d.zmin, d.zmax]; }})()"
    )


def test_compare_link_round_trips_and_shares_one_colour_scale(page):
    open_compare(page, BANKS + "&a.temperature=0.50&focus=bank")
    parts = urlsplit(page.url)
    here = parts.path + "?" + parts.query
    answer = page.request.get("/api/compare?" + parts.query).json()
    assert answer["share_path"] == here, "the address bar is the canonical link"
    assert colour_range(page, "a") == colour_range(page, "b") == [0, answer["weights_max"]]
    expect(page.locator("#top-a")).to_contain_text("(river,")
    expect(page.locator("#top-b")).to_contain_text("(money,")
    other = page.context.new_page()
    open_compare(other, here)
    assert other.locator("#top-a").inner_text() == page.locator("#top-a").inner_text()
    other.close()


def test_keys_move_the_focus_and_switch_the_pane(page):
    open_compare(page, BANKS)
    assert page.locator("#focus").input_value() == "bank"
    page.keyboard.press("ArrowLeft")
    poll(page, "new URLSearchParams(location.search).get('focus')", lambda focus: focus == "the")
    page.locator("body[data-ready=true]").wait_for(state="attached")
    expect(page.locator("#focus")).to_have_value("the")
    page.keyboard.press("Tab")
    poll(page, "new URLSearchParams(location.search).get('pane')", lambda pane: pane == "b")
    expect(page.locator("#pane-b")).to_have_class("pane active")
    page.go_back()
    poll(page, "new URLSearchParams(location.search).get('focus')", lambda focus: focus is None)
    expect(page.locator("#focus")).to_have_value("bank")


def chart_fit(page, pane):
    """(the chart's drawn width, its box's width) in CSS pixels."""
    return page.evaluate(
        f"(() => {{ const c = document.getElementById('chart-{pane}'); "
        "return [c._fullLayout.width, c.clientWidth]; })()"
    )


def test_the_charts_follow_their_boxes_when_the_window_changes_width(page):
    page.set_viewport_size({"width": 1920, "height": 1080})
    open_compare(page, BANKS)
    wide = chart_fit(page, "a")
    assert abs(wide[0] - wide[1]) <= 2, wide
    page.set_viewport_size({"width": 1280, "height": 720})
    fits = poll(page, "document.getElementById('chart-a')._fullLayout.width", lambda width: width < wide[0])
    for pane in ("a", "b"):
        drawn, box = chart_fit(page, pane)
        assert abs(drawn - box) <= 2 and drawn <= fits + 2, (pane, drawn, box)
