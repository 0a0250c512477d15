"""Front-end speed, measured in a real Chromium (Playwright), in one run. Not a test: run by hand.

    .venv/bin/python bench/bench_page.py

Starts the app (one uvicorn worker, 127.0.0.1) and reports, from the page's own performance marks
(`attention-render` after a full draw, `attention-step` after a step is drawn):
  1. first full render after navigation (goal: first heatmap within 1 s), cold and warm cache;
  2. an edit of a 16-token sentence, from the input event to the redraw, debounce included (goal 150 ms);
  3. a 64-token, 8-head view: its first render and each step (arrow key) redraw (goal: responsive);
  0. first, the bytes a cold first visit of the translation view transfers (goal: at most 700 KB), as
     Chromium's network log counts them (headers and compressed bodies), per resource.

    .venv/bin/python bench/bench_page.py --transfer-only                  # only 0.
    .venv/bin/python bench/bench_page.py --transfer-only --app-dir ../main # 0. for another checkout (before/after)
"""

import argparse
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
WORDS = [
    "the",
    "teacher",
    "gave",
    "the",
    "student",
    "a",
    "book",
    "about",
    "the",
    "river",
    "and",
    "the",
    "sea",
    "in",
    "the",
    "old",
    "school",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port, app_dir=ROOT):
    env = {"ACCESS_LOG": "0", "PATH": "/usr/bin:/bin"}
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "app.main:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-access-log",
    ]
    process = subprocess.Popen(command, cwd=app_dir, env=env)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return process
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def marks(page, name):
    return page.evaluate(f"performance.getEntriesByName('{name}').map(e => e.startTime)")


def wait_for_mark(page, name, count, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = marks(page, name)
        if len(found) >= count:
            return found
        time.sleep(0.005)
    raise TimeoutError(name)


def summary(values):
    values = sorted(values)
    return f"p50 {statistics.median(values):.0f} ms, max {values[-1]:.0f} ms (n={len(values)})"


TRANSLATE = {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞"}


def first_visit_bytes(browser, url):
    """A cold first visit (new context): every response's bytes on the wire as Chromium's network log
    counts them (encodedDataLength: headers plus the body as sent, compressed or not)."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    urls, encodings, sizes = {}, {}, {}
    cdp.on("Network.requestWillBeSent", lambda e: urls.setdefault(e["requestId"], e["request"]["url"]))
    cdp.on(
        "Network.responseReceived",
        lambda e: encodings.__setitem__(
            e["requestId"], {k.lower(): v for k, v in e["response"]["headers"].items()}.get("content-encoding", "-")
        ),
    )
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
    page.goto(url)
    wait_for_mark(page, "attention-render", 1)
    page.wait_for_load_state("networkidle")
    context.close()
    network = [r for r in sizes if urls.get(r, "").startswith("http")]  # not data: URLs (Plotly's images)
    rows = sorted(((sizes[r], encodings.get(r, "-"), urls[r].split("?")[0]) for r in network), reverse=True)
    return sum(size for size, _, _ in rows), rows


def report_transfer(browser, base):
    total, rows = first_visit_bytes(browser, f"{base}/?" + urlencode(TRANSLATE))
    print(f"0. cold first visit of /?{urlencode(TRANSLATE)}: {total / 1000:,.1f} KB in {len(rows)} requests")
    for size, encoding, url in rows:
        print(f"   {size / 1000:9,.1f} KB  {encoding:5}  {url.removeprefix(base)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--transfer-only", action="store_true", help="only the cold first visit's bytes")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="the checkout whose app to serve")
    options = parser.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(port, options.app_dir.resolve())
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            report_transfer(browser, base)
            if options.transfer_only:
                browser.close()
                return
            sentence16 = " ".join(WORDS[:16])
            url16 = f"{base}/?" + urlencode({"source": sentence16})

            cold, warm = [], []
            for _ in range(5):
                context = browser.new_context(viewport={"width": 1600, "height": 1000})
                page = context.new_page()
                for bucket in (cold, warm):
                    page.goto(url16)
                    bucket.append(wait_for_mark(page, "attention-render", 1)[0])
                context.close()
            print(
                f"1. first full render after navigation, 16 tokens: cold cache {summary(cold)}; "
                f"warm cache {summary(warm)}"
            )

            context = browser.new_context(viewport={"width": 1600, "height": 1000})
            page = context.new_page()
            page.goto(url16)
            wait_for_mark(page, "attention-render", 1)
            edits = []
            for i in range(20):
                words = list(WORDS[:16])
                words[i % 16] = ["river", "bank", "money", "cat"][i % 4]
                before = len(marks(page, "attention-render"))
                started = page.evaluate(
                    """(text) => { const s = document.getElementById('source'); s.value = text;
                       const t = performance.now(); s.dispatchEvent(new Event('input', {bubbles: true}));
                       return t; }""",
                    " ".join(words),
                )
                done = wait_for_mark(page, "attention-render", before + 1)[-1]
                edits.append(done - started)
            print(
                "2. edit of a 16-token sentence, input event to redraw (100 ms typing pause included): "
                + summary(edits)
            )
            context.close()

            long_sentence = " ".join((WORDS * 5)[:64])
            context = browser.new_context(viewport={"width": 1600, "height": 1000})
            page = context.new_page()
            page.goto(f"{base}/?" + urlencode({"source": long_sentence, "heads": 8}))
            first = wait_for_mark(page, "attention-render", 1)[0]
            steps = []
            for _ in range(20):
                before = len(marks(page, "attention-step"))
                started = page.evaluate("performance.now()")
                page.keyboard.press("ArrowRight")
                steps.append(wait_for_mark(page, "attention-step", before + 1)[-1] - started)
            print(f"3. 64 tokens, 8 heads: first full render {first:.0f} ms; step redraw {summary(steps)}")
            context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
