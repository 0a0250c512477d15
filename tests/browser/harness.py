"""Shared by conftest.py and make_screenshots.py: start the app, launch Debian's Chromium, wait for a view.

Plain Python Playwright (sync API), no pytest-playwright. No page.wait_for_function anywhere: the app sends
a strict Content-Security-Policy, so waiting is done with locators, `expect` or by polling page.evaluate.
"""

import json
import time
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import Error as PlaywrightError

from app.view.fixed import whole_view
from tests.support.live_server import AppServer

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
# Two of the flags below, by name (bench.bench_browser_tabs measures the harness with and without them).
NO_SCRIPT_STREAMING = "--disable-features=ScriptStreaming"
NO_NETWORK = "--proxy-server=http://127.0.0.1:9"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Every tab of one site in a context shares one renderer process (conftest.ContextPool keeps one open),
    # so a test's new tab finds Plotly's bundle already compiled. Pages behave the same; only the process
    # model changes.
    "--process-per-site",
    # ...but only without script streaming: a streamed script is parsed again on a background thread at every
    # load, before V8 looks in its cache (a trace shows Plotly's bundle parsed at each load). Without it the
    # renderer takes the compiled bundle from its cache: 4-8 % less Chromium CPU a page load, measured
    # alternating (bench/README.md). Scripts run the same; only when they are parsed changes.
    NO_SCRIPT_STREAMING,
    # No test reaches the network: a request to any other host goes to a proxy that is not there and fails at once
    # (Chromium never sends loopback requests, the app's, through a proxy), and conftest's Watch fails the test that
    # made it. Blocking them with a route instead made Playwright turn off the HTTP cache: every tab fetched the
    # page's scripts again (6-10 % more Chromium CPU a load, and nearly twice the server's).
    NO_NETWORK,
]
AXE_JS = HERE / "node_modules" / "axe-core" / "axe.min.js"
# A hang guard for every wait on the page (Playwright's actions and `expect`, whose own default is 5 s, and poll
# below): long enough for a busy two-core machine drawing Plotly's charts, never a speed requirement.
WAIT_MS = 20_000

__all__ = ["AppServer"]  # the app served in this process (tests/support/live_server.py); conftest's live_server


def query_path(params=None, base="/"):
    """'/?' + urlencode(params); a str is taken as a ready-made path."""
    if isinstance(params, str):
        return params
    return base + ("?" + urlencode(params) if params else "")


def wait_ready(page, timeout=WAIT_MS):
    page.locator("body[data-ready=true]").wait_for(state="attached", timeout=timeout)


def open_view(page, params=None, timeout=WAIT_MS):
    """Navigate to the page for `params` (dict or path) and wait until the JS has drawn it."""
    response = page.goto(query_path(params), timeout=timeout)
    assert response is not None and response.status == 200, (
        f"GET {query_path(params)} -> {response and response.status}"
    )
    wait_ready(page, timeout)
    return response


# What page.evaluate raises while a document is being replaced or is not yet built.
TRANSIENT_ERRORS = ("context was destroyed", "navigat", "Cannot read properties of null")


def poll(page, expression, predicate=bool, timeout=WAIT_MS / 1000, interval=0.05):
    """Evaluate `expression` until predicate(value) holds; returns the value (no eval-based waiting in the page)."""
    deadline = time.monotonic() + timeout
    value = None
    while time.monotonic() < deadline:
        try:
            value = page.evaluate(expression)
        except PlaywrightError as error:
            # A navigation replaced the document mid-poll, or the new one has no <html>, <body> or
            # element yet ("Cannot read properties of null"): not yet, ask again.
            if not any(transient in str(error) for transient in TRANSIENT_ERRORS):
                raise
            value = f"(not yet: {str(error).splitlines()[0]})"
        else:
            if predicate(value):
                return value
        time.sleep(interval)  # between two looks at the page
    raise AssertionError(f"timed out after {timeout} s waiting on {expression!r}; last value: {value!r}")


def wait_text_change(page, selector, old, timeout=WAIT_MS / 1000):
    """Wait until the text of `selector` differs from `old`; returns the new text."""
    deadline = time.monotonic() + timeout
    text = old
    while time.monotonic() < deadline:
        text = page.locator(selector).inner_text()
        if text != old:
            return text
        time.sleep(0.05)  # between two looks at the page
    raise AssertionError(f"{selector} still reads {old[:120]!r} after {timeout} s")


def page_data(page):
    return json.loads(page.locator("#page-data").text_content())


def current_view(page):
    """The JSON twin of the page's current URL: the view shown now (with no head in the link, the head in
    focus follows the step, so the page's first view may show another head), put together as the page does."""
    answer = page.evaluate("() => fetch('/api/attention' + location.search.replace(/^\\?$/, '')).then((r) => r.json())")
    return put_together(page, answer)


def put_together(page, answer):
    """An /api/attention answer with the resource it names (`fixed.href`, app/view/fixed.py) fetched and put back
    in, as the page does: the view, number for number."""
    href = (answer.get("fixed") or {}).get("href")
    return whole_view(answer, page.request.get(href).json() if href else None)


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


# Counts Plotly.react calls per chart id in window.__draws: installed before the page's scripts run (the page's own
# init script, not the context's), it wraps Plotly's functions as the bundle sets window.Plotly.
COUNT_DRAWS = """(() => {
  let plotly;
  window.__draws = {};
  Object.defineProperty(window, 'Plotly', { configurable: true, get: () => plotly, set: (value) => {
    plotly = value;
    const react = value.react;
    value.react = function (el, ...rest) {
      const id = typeof el === 'string' ? el : el.id;
      window.__draws[id] = (window.__draws[id] || 0) + 1;
      return react.call(this, el, ...rest);
    };
  } });
})();"""


def count_draws(page):
    """From the next navigation on, count each chart's Plotly draws; read them with `draws(page)`."""
    page.add_init_script(COUNT_DRAWS)


def draws(page):
    """{chart id: times Plotly drew it} since the page loaded (`count_draws` first)."""
    return page.evaluate("window.__draws")


# ------------------------------------------------------------------ reading the drawn page


def url_params(page):
    """The page URL's query as a dict (one value per name)."""
    from urllib.parse import parse_qs, urlsplit

    return {name: values[-1] for name, values in parse_qs(urlsplit(page.url).query, keep_blank_values=True).items()}


def arithmetic_rows(page):
    """The arithmetic table's body as a list of {column header: cell text} (the row header under 'key')."""
    return page.evaluate(
        """() => {
          const table = document.querySelector('#arithmetic table');
          const heads = [...table.tHead.rows[0].cells].map((c) => c.textContent);
          return [...table.tBodies[0].rows].map((row) =>
            Object.fromEntries([...row.cells].map((cell, i) => [i === 0 ? 'key' : heads[i], cell.textContent])));
        }"""
    )


def tick_texts(page, chart, axis):
    """Text of the tick labels of `axis` ('x' or 'y') of a Plotly chart, in drawing order."""
    return page.evaluate(
        "([chart, axis]) => [...document.querySelectorAll(`#${chart} .${axis}tick text`)].map((e) => e.textContent)",
        [chart, axis],
    )


def highlight_y0(page, chart="chart-stage2"):
    """Top edge, in row units (step - 0.5), of the current-step outline laid over the chart's plot area."""
    return page.evaluate(
        """(id) => {
            const el = document.getElementById(id);
            const box = el.parentElement.querySelector('.outline');
            if (box.hidden) return null;
            const size = el._fullLayout._size;
            const rowHeight = size.h / el.data[0].y.length;
            return Math.round((parseFloat(box.style.top) + 3 - size.t) / rowHeight) - 0.5;
        }""",
        chart,
    )


def tick_labels(page, chart, axis):
    """{row or column index: label} of the tick labels a Plotly chart drew on `axis` ('x' or 'y')."""
    pairs = page.evaluate(
        "([chart, axis]) => [...document.querySelectorAll(`#${chart} .${axis}tick`)]"
        ".map((g) => [g.__data__.x, g.textContent])",
        [chart, axis],
    )
    return {int(index): text for index, text in pairs}


def chart_z(page, chart):
    return page.evaluate("(id) => JSON.stringify(document.getElementById(id).data[0].z)", chart)


def table_header(page, slot):
    """Column headers of a data table (without the corner cell)."""
    return page.evaluate(
        "(id) => [...document.querySelectorAll(`#${id} table thead th`)].slice(1).map((e) => e.textContent)", slot
    )


def snapshot(page):
    """What a view shows: URL, step label, arithmetic, the three heatmaps' numbers and the data tables."""
    return {
        "url": page.url,
        "step_label": page.locator("#step-label").inner_text(),
        "arithmetic": page.locator("#arithmetic").inner_text(),
        "z": [chart_z(page, f"chart-stage{n}") for n in (1, 2, 3)],
        "tables": [page.locator(f"#table-stage{n}").text_content() for n in (1, 2, 3)],
    }


def open_tables(page):
    """Open the three stages' data tables (they are filled when opened)."""
    for n in (1, 2, 3):
        details = page.locator(f"#stage{n} details.table")
        if not details.evaluate("(d) => d.open"):
            details.locator("summary").click()
        page.locator(f"#table-stage{n} table").wait_for(state="attached")


# ------------------------------------------------------------------ waiting for what a page does later


def settled(page):
    """Return once the work the page has queued has run: two animation frames (a redraw scheduled for the next
    frame, and what that redraw schedules, such as the outlines and values drawn after a chart) and then a task
    (a setTimeout(0), an error or load event already queued). A look at the page's own queue, not a guessed time."""
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0))))"
    )


# Records the view of every message a live class's stream brings (window.__liveViews). An EventSource's listeners
# all run in the one task that dispatches a message, so once a view is recorded the page's own handler has run too.
RECORD_LIVE_VIEWS = """(() => {
  window.__liveViews = [];
  const Original = window.EventSource;
  window.EventSource = class extends Original {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => window.__liveViews.push(JSON.parse(event.data).view));
    }
  };
})();"""


def record_live_views(page):
    """From the next navigation on, record the views the page's live stream receives; read them with
    poll(page, "window.__liveViews", ...)."""
    page.add_init_script(RECORD_LIVE_VIEWS)
