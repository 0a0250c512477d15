"""What opening the page costs the browser tests, three ways, in one run: a tab of a new context (each test
had one), a new tab of a context that keeps one tab of the app open (tests/browser/conftest.py's ContextPool,
with Chromium's --process-per-site from tests/browser/harness.py), and a navigation of a tab already open.
Not a test: run by hand (the app in this process on a loopback port, Debian's Chromium).

    .venv/bin/python -m bench.bench_browser_tabs [--loads 8]

Each figure is the median wall time from asking for the page to the page's data-ready mark. The machine is
shared: compare the three within one run, never with another run's.

    .venv/bin/python -m bench.bench_browser_tabs --settings [--rounds 5]

The CPU of Chromium's processes (and Playwright's driver) for a load in a new tab of the kept context, with the
harness's settings now and as they were: script streaming on (the bundle parsed again at each load) and foreign
requests blocked by a Playwright route (which turns off the HTTP cache), alternating fresh browsers, 8 loads a round.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time
import urllib.request
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as in the test run

from playwright.sync_api import sync_playwright  # noqa: E402

from app.settings import Settings  # noqa: E402
from bench.common import cpu_seconds, machine  # noqa: E402
from tests.browser.harness import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    NO_NETWORK,
    NO_SCRIPT_STREAMING,
    launch_chromium,
    open_view,
)
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


def browser_cpu() -> float:
    """CPU seconds so far of every Chromium process and Playwright's driver (node) on the machine (a process that
    ends while they are read counts nothing)."""
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"chromium" in command or b"playwright" in command:
                total += cpu_seconds([int(pid)])
    return total


SETTINGS = {
    "now": (CHROMIUM_ARGS, False),
    "streaming on": ([a for a in CHROMIUM_ARGS if a != NO_SCRIPT_STREAMING], False),
    "streaming on and a route (before)": (
        [a for a in CHROMIUM_ARGS if a not in (NO_SCRIPT_STREAMING, NO_NETWORK)],
        True,
    ),
}


def settings_cpu(server, rounds: int, loads: int = 8) -> dict[str, list[float]]:
    """Chromium's CPU per load in a new tab of a kept context, for each of SETTINGS, alternating fresh browsers."""
    found: dict[str, list[float]] = {name: [] for name in SETTINGS}
    with sync_playwright() as playwright:
        for round_ in range(rounds):
            names = list(SETTINGS) if round_ % 2 else list(reversed(SETTINGS))
            for name in names:
                args, route = SETTINGS[name]
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
                context = browser.new_context(base_url=server.base, viewport=VIEWPORT, locale="en-US")
                if route:  # as conftest's Watch blocked foreign requests before
                    context.route(lambda url: server.host not in url, lambda route: route.abort())
                context.new_page().goto("/healthz")
                for _ in range(2):  # warm: the renderer compiles the scripts, the cache fills
                    tab = context.new_page()
                    open_view(tab, VIEW)
                    tab.close()
                started = browser_cpu()
                for _ in range(loads):
                    tab = context.new_page()
                    open_view(tab, VIEW)
                    tab.close()
                found[name].append((browser_cpu() - started) / loads)
                browser.close()
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loads", type=int, default=8, help="page loads of each kind")
    ap.add_argument("--settings", action="store_true", help="Chromium's CPU a load: the harness now and before")
    ap.add_argument("--rounds", type=int, default=5, help="with --settings: alternating rounds")
    args = ap.parse_args()
    m = machine()
    if args.settings:
        with AppServer(Settings(access_log=False)) as server:
            found = settings_cpu(server, args.rounds)
        print(f"{m['date']}, {m['cpu']}, {m['nproc']} cores, load average {m['loadavg_before'][0]} before")
        now = statistics.median(found["now"])
        for name, cpu in found.items():
            median = statistics.median(cpu)
            spread = f"{min(cpu):.3f}-{max(cpu):.3f}"
            print(f"{name:36s} CPU a load: median {median:.3f} s ({spread}), {median / now:.2f}x now")
        return
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
