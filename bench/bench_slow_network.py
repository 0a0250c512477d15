"""A first visit on a slow classroom network, in a real Chromium: this checkout against another, alternating.

    .venv/bin/python -m bench.bench_slow_network --before /tmp/lens-before [--rounds 6] [--latency 150]

Each visit is a new context (an empty cache, as a student's first click on the teacher's link), with
Chromium's network emulation (`Network.emulateNetworkConditions`: the round trip `--latency` ms, 20 Mbit/s
down, 5 up), from the navigation to the page's `attention-render` mark (the whole view drawn). Both apps run
at once on loopback ports; their visits alternate, so a busy spell on this shared machine hits both. Reports
the medians and the ratio; read the ratio, not the milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

from bench.bench_page import ARGS, VIEWPORT, wait_for_mark
from bench.common import machine
from tests.browser.harness import CHROMIUM
from tests.support.live_server import ROOT, LiveServer

VIEW = {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞"}


def first_visit(browser, url: str, latency_ms: float) -> tuple[float, int]:
    """(ms to the first full render, requests made) of a cold visit over the emulated network."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": latency_ms, "downloadThroughput": 20e6 / 8, "uploadThroughput": 5e6 / 8},
    )
    requests = []
    cdp.on("Network.requestWillBeSent", lambda event: requests.append(event["request"]["url"]))
    page.goto(url)
    rendered = wait_for_mark(page, "attention-render", 1, timeout=60)[0]
    context.close()
    return rendered, len(requests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the other checkout")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--latency", type=float, default=150.0, help="round trip, ms")
    options = parser.parse_args()
    env = {"ACCESS_LOG": "0"}
    with (
        LiveServer(env=env, app_dir=ROOT) as now,
        LiveServer(env=env, app_dir=options.before.resolve()) as before,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        servers = {"this checkout": now, "before": before}
        times: dict[str, list[float]] = {name: [] for name in servers}
        counts: dict[str, int] = {}
        for server in servers.values():  # warm-up: each server's first page computes its caches
            first_visit(browser, f"{server.base}/?{urlencode(VIEW)}", 0)
        for _ in range(options.rounds):
            for name, server in servers.items():
                ms, counts[name] = first_visit(browser, f"{server.base}/?{urlencode(VIEW)}", options.latency)
                times[name].append(ms)
        browser.close()
    m = machine()
    print(f"{m['cpu']}, {m['nproc']} cores; round trip {options.latency:.0f} ms, 20 Mbit/s; /?{urlencode(VIEW)}")
    for name, values in times.items():
        print(
            f"{name:14} first full render p50 {statistics.median(values):6.0f} ms "
            f"({min(values):.0f}-{max(values):.0f}), {counts[name]} requests"
        )
    ratio = statistics.median(times["this checkout"]) / statistics.median(times["before"])
    print(f"this checkout / before: {ratio:.2f}")


if __name__ == "__main__":
    main()
