"""What opening the page costs the browser tests, three ways, in one run: a tab of a new context (each test
had one), a new tab of a context that keeps one tab of the app open (tests/browser/conftest.py's ContextPool,
with Chromium's --process-per-site from tests/browser/harness.py), and a navigation of a tab already open.
Not a test: run by hand (the app in this process on a loopback port, Debian's Chromium).

    .venv/bin/python -m bench.bench_browser_tabs [--loads 8]

Each figure is the median wall time from asking for the page to the page's data-ready mark. The machine is
shared: compare the three within one run, never with another run's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import urllib.request

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as in the test run

from playwright.sync_api import sync_playwright  # noqa: E402

from app.settings import Settings  # noqa: E402
from bench.common import machine  # noqa: E402
from tests.browser.harness import launch_chromium, open_view  # noqa: E402
from tests.support.live_server import AppServer  # noqa: E402

VIEW = {"source": "walk by river bank"}
VIEWPORT = {"width": 1400, "height": 900}


def timed(load, n: int) -> list[float]:
    times = []
    for _ in range(n):
        started = time.monotonic()
        load()
        times.append(time.monotonic() - started)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loads", type=int, default=8, help="page loads of each kind")
    args = ap.parse_args()
    m = machine()
    with AppServer(Settings(access_log=False)) as server:
        urllib.request.urlopen(server.base + "/", timeout=600).read()
        playwright = sync_playwright().start()
        browser = launch_chromium(playwright)

        def new_context():
            context = browser.new_context(base_url=server.base, viewport=VIEWPORT, locale="en-US")
            open_view(context.new_page(), VIEW)
            context.close()

        kept = browser.new_context(base_url=server.base, viewport=VIEWPORT, locale="en-US")
        kept.new_page().goto("/healthz")  # the tab that holds the app's renderer
        open_view(kept.new_page(), VIEW)  # once, so the renderer has compiled the page's scripts

        def new_tab():
            tab = kept.new_page()
            open_view(tab, VIEW)
            tab.close()

        open_tab = kept.new_page()
        figures = {
            "a tab of a new context": timed(new_context, args.loads),
            "a new tab of the kept context": timed(new_tab, args.loads),
            "the same tab, navigated": timed(lambda: open_view(open_tab, VIEW), args.loads),
        }
        browser.close()
        playwright.stop()
    load = f"load average {m['loadavg_before'][0]} before, {os.getloadavg()[0]:.1f} after"
    print(f"{m['cpu']}, {m['nproc']} cores, {load}")
    first = statistics.median(figures["a tab of a new context"])
    for name, times in figures.items():
        median = statistics.median(times)
        print(f"{name:32s} median {median:.2f} s ({min(times):.2f}-{max(times):.2f}), {first / median:.2f}x the first")


if __name__ == "__main__":
    main()
