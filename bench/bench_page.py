"""Front-end speed, measured in a real Chromium (Playwright), in one run. Not a test: run by hand.

    python -m bench.bench_page

Starts the app (tests.support.live_server.LiveServer: one uvicorn process, 127.0.0.1) and reports, from
the page's own performance marks (`attention-render` after a full draw, `attention-step` after a step):
  1. first full render after navigation (goal: first heatmap within 1 s), cold and warm cache;
  2. an edit of a 16-token sentence, from the input event to the redraw, debounce included (goal 150 ms);
  3. a 64-token, 8-head view: its first render and each step (arrow key) redraw (goal: responsive).
"""

import statistics
import time
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

from tests.support.live_server import LiveServer

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
WORDS = ["the", "teacher", "gave", "the", "student", "a", "book", "about", "the", "river", "and", "the", "sea",
         "in", "the", "old", "school"]  # fmt: skip


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


def main():
    with LiveServer(env={"ACCESS_LOG": "0"}) as server:
        base = server.base
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
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
            print(f"1. first full render after navigation, 16 tokens: cold cache {summary(cold)}; warm {summary(warm)}")

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
                       const t = performance.now();
                       s.dispatchEvent(new Event('input', {bubbles: true})); return t; }""",
                    " ".join(words),
                )
                done = wait_for_mark(page, "attention-render", before + 1)[-1]
                edits.append(done - started)
            print(f"2. edit of a 16-token sentence, input event to redraw (100 ms pause included): {summary(edits)}")
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


if __name__ == "__main__":
    main()
