"""The main views log no console error (a missing favicon counts), throw nothing, and load everything
(Plotly included) from the app itself: no request to any other host."""

from app.view.presets import PRESETS
from tests.browser.harness import open_view, settled

VIEWS = [
    {"source": "the cat sat", "present": "true", "lang": "zh"},
    next(p for p in PRESETS if p["id"] == "translate")["params"],
    "/embed?source=Tom+chase+Jerry&target=%E6%B1%A4%E5%A7%86+%E8%BF%BD%E9%80%90+%E6%9D%B0%E7%91%9E",
    "/learn",
]


def test_no_console_errors_on_main_views(fresh_context, watch):
    page = fresh_context().new_page()  # a context of its own: a first visit, nothing cached
    for view in VIEWS:
        # Chromium asks for the favicon after the load, the last request a view makes: its answer (a 404 would be
        # a console error) is in, and so is any error of the page's own start
        with page.expect_request_finished(lambda request: "favicon" in request.url):
            if view == "/learn":
                response = page.goto(view)
                assert response.status == 200
            else:
                open_view(page, view)
        settled(page)
    assert watch.console_errors == [], f"console errors: {watch.console_errors}"
    assert watch.page_errors == [], f"uncaught errors: {watch.page_errors}"


def test_every_request_goes_to_the_app(fresh_context, watch, app_server):
    page = fresh_context().new_page()  # nothing cached: every file the page needs is requested
    open_view(page, VIEWS[1])
    page.locator("#next").click() if page.locator("#next").is_enabled() else page.locator("#prev").click()
    with page.expect_request(lambda request: "temperature=2" in request.url):  # the edit, after the typing pause
        page.locator("#temperature").fill("2")
    assert any(url.endswith("/plotly.min.js") for url in watch.requests), "Plotly was not loaded from the app"
    assert any("/api/attention?" in url for url in watch.requests), "the edit did not reach the API"
    foreign = [url for url in watch.requests if not watch.is_local(url)]
    assert foreign == [], f"requests to other hosts: {foreign}"
    assert all(url.startswith(app_server.base) or url.startswith(("data:", "blob:")) for url in watch.requests)


def test_a_request_to_another_host_never_reaches_the_network_and_is_named(page, watch):
    """The harness's guard: a request elsewhere (a name, an address, a CDN) fails at once, without an answer from
    anywhere, and the test's Watch names it (it would fail the test at teardown)."""
    foreign = ["https://example.com/x", "http://93.184.215.14/y", "https://cdn.plot.ly/plotly-latest.min.js"]
    # from a blank tab: the app's pages would not even ask (their Content-Security-Policy allows only the app)
    ask = "(urls) => Promise.all(urls.map((u) => fetch(u, { mode: 'no-cors' }).then(() => 'answered', () => 'failed')))"
    failures = []
    page.on("requestfailed", lambda request: failures.append(request.failure))
    outcomes = page.evaluate(ask, foreign)
    assert outcomes == ["failed"] * 3
    assert failures == ["net::ERR_PROXY_CONNECTION_FAILED"] * 3  # no connection to any of them was tried
    assert watch.foreign == foreign
    watch.foreign.clear()  # seen: this test made them on purpose
    watch.allow(r"ERR_PROXY_CONNECTION_FAILED|Failed to load resource")
