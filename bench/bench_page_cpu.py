"""What the page's own work costs the browser, in a real Chromium: this checkout against another, alternating.

    .venv/bin/python -m bench.bench_page_cpu --before /tmp/lens-before [--rounds 6]

For each view below, a new tab of a kept context (as a student's second link, and as the browser tests open
pages) loads the page; Chromium's own counters (CDP `Performance.getMetrics`) give the renderer's main-thread
task time, script time and layouts of the load, then of four arrow-key steps. Both apps run at once on loopback
ports and their loads alternate, so a busy spell on this shared machine hits both. Reports the medians and the
ratio (this checkout / before); read the ratio, not the milliseconds. The first round warms both and is left out.

With no head in the link (the first two views), each step is a new view from the server: the head in focus
follows the word, so a step redraws every chart of the new head.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench.bench_page import ARGS
from bench.common import machine
from tests.browser.harness import CHROMIUM, query_path
from tests.support.live_server import ROOT, LiveServer

VIEWS = {
    "a typed sentence": {"source": "the boy fell because he was tired"},
    "presentation mode": {"source": "walk by river bank", "present": "1"},
    "a translation, slide 2": {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞", "slide": "2"},
    # its head's matrices are 19,200 cells, far below the first screen
    "a 64-dimensional head": {"source": "walk by river bank", "embedding": "hash", "dim": "64", "projection": "random"},
}
VIEWPORT = {"width": 1280, "height": 720}
STEPS = 4
COUNTERS = {"TaskDuration": 1000, "ScriptDuration": 1000, "LayoutCount": 1}  # name -> factor (s -> ms)


def metrics(cdp) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def load_and_step(context, url: str) -> dict[str, float]:
    """One load of `url` in a new tab, then STEPS arrow keys: the counters of each, per load and per step."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.goto(url)
    page.locator("body[data-ready=true]").wait_for(state="attached")
    page.wait_for_timeout(400)  # the input vectors and the arithmetic come a task or a fetch later
    loaded = metrics(cdp)
    for i in range(STEPS):
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        page.wait_for_timeout(200)  # a new head's view: its answer and its drawing
    stepped = metrics(cdp)
    page.close()
    figures = {f"load {name}": loaded[name] * factor for name, factor in COUNTERS.items()}
    figures |= {f"step {name}": (stepped[name] - loaded[name]) * factor / STEPS for name, factor in COUNTERS.items()}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the other checkout")
    parser.add_argument("--rounds", type=int, default=6)
    options = parser.parse_args()
    m = machine()
    env = {"ACCESS_LOG": "0"}
    found: dict[str, dict[str, dict[str, list[float]]]] = {"now": {}, "before": {}}
    with (
        LiveServer(env=env, app_dir=ROOT) as now,
        LiveServer(env=env, app_dir=options.before.resolve()) as before,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        contexts = {}
        for side, server in {"now": now, "before": before}.items():
            context = browser.new_context(viewport=VIEWPORT, locale="en-US")
            context.new_page().goto(server.base + "/healthz")  # kept open, as the tests' ContextPool does
            contexts[side] = (context, server)
        for round_ in range(options.rounds + 1):
            for name, view in VIEWS.items():
                for side in ("now", "before") if round_ % 2 else ("before", "now"):
                    context, server = contexts[side]
                    figures = load_and_step(context, server.base + query_path(view))
                    if round_:
                        for key, value in figures.items():
                            found[side].setdefault(name, {}).setdefault(key, []).append(value)
        browser.close()
    load = m["loadavg_before"][0]
    print(f"{m['date']}, {m['cpu']}, {m['nproc']} cores, load average {load} before, {options.rounds} rounds")
    print(f"this checkout: {ROOT}; before: {options.before}")
    for name in VIEWS:
        print(f"\n{name} ({query_path(VIEWS[name])})")
        for key in found["now"][name]:
            a, b = statistics.median(found["before"][name][key]), statistics.median(found["now"][name][key])
            unit = "" if "Count" in key else " ms"
            ratio = f"{b / a:.2f}" if a else "-"
            print(f"  {key:20s} before {a:8.1f}{unit:3s}  now {b:8.1f}{unit:3s}  ratio {ratio}")


if __name__ == "__main__":
    main()
