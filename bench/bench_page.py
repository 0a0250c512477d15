"""Front-end speed, measured in a real Chromium (Playwright), in one run. Not a test: run by hand.

    .venv/bin/python -m bench.bench_page

Starts the app (one uvicorn worker, 127.0.0.1, through tests.support.live_server) and reports, from the
page's own performance marks (`attention-render` after a full draw, `attention-step` after a step is
drawn), each beside a trivial page measured in the same run (the machine is shared and noisy: read the
ratios as much as the milliseconds):
  0. the bytes a cold first visit of the translation view transfers (goal: at most 700 KB);
  1. the first full render after navigation, cold and warm cache (goals: 1.0 s and 0.3 s), beside the
     load of a trivial page (/healthz) in the same kind of context;
  2. an edit of a 16-token sentence, from the input event to the redraw, typing pause included (goal:
     150 ms p50), beside a fetch of /healthz from the same page;
  3. a 64-token, 8-head view: its first render and each step (arrow key) redraw (goal: 30 ms p50);
  4. a 128-piece real-model (MiniLM) view: its first render (goal: 1.5 s), cold and warm cache.

    .venv/bin/python -m bench.bench_page --transfer-only                   # only 0.
    .venv/bin/python -m bench.bench_page --app-dir /tmp/before             # another checkout (before/after)
"""

import argparse
import statistics
import time
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

from tests.support.live_server import ROOT, LiveServer

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
VIEWPORT = {"width": 1600, "height": 1000}
SENTENCE = "the teacher gave the student a book about the river and the sea in the old school"
WORDS = SENTENCE.split()
TRANSLATE = {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞"}
# 126 words that MiniLM reads as one word piece each: with [CLS] and [SEP], 128 pieces (its longest view here).
MODEL_SENTENCE = "the old man walked by the river bank in the morning and the children played near the water"
MODEL_WORDS = MODEL_SENTENCE.split() * 7
RUNS = 5


def marks(page, name):
    return page.evaluate(f"performance.getEntriesByName('{name}').map(e => e.startTime)")


def wait_for_mark(page, name, count, timeout=30.0):
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


def p50(values):
    return statistics.median(values)


def first_visit_bytes(browser, url):
    """A cold first visit (new context): every response's bytes on the wire as Chromium's network log
    counts them (encodedDataLength: headers plus the body as sent, compressed or not)."""
    context = browser.new_context(viewport=VIEWPORT)
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


def loaded_at(page):
    """When the page's load event ended, in ms since its navigation started."""
    return page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")


def first_renders(browser, url, trivial_url, runs=RUNS, timeout=30.0):
    """(cold, warm, trivial cold, trivial warm) in ms: `url`'s first full render in a new context and again
    in the same context; the trivial page's load event the same way, alternating, in the same run."""
    cold, warm, trivial_cold, trivial_warm = [], [], [], []
    for _ in range(runs):
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        for bucket in (cold, warm):
            page.goto(url)
            bucket.append(wait_for_mark(page, "attention-render", 1, timeout)[0])
        context.close()
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        for bucket in (trivial_cold, trivial_warm):
            page.goto(trivial_url, wait_until="load")
            bucket.append(loaded_at(page))
        context.close()
    return cold, warm, trivial_cold, trivial_warm


def edits(browser, url, count=20):
    """Input event to redraw for `count` one-word edits of a 16-token sentence, and as many fetches of /healthz
    from the same page (the trivial round trip)."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(url)
    wait_for_mark(page, "attention-render", 1)
    times, fetches, drawing = [], [], []
    for i in range(count):
        words = list(WORDS[:16])
        words[i % 16] = ["river", "bank", "money", "cat"][i % 4] + str(i)  # a new link every time
        before = len(marks(page, "attention-render"))
        answered = len(marks(page, "attention-answer"))
        started = page.evaluate(
            """(text) => { const s = document.getElementById('source'); s.value = text;
               const t = performance.now(); s.dispatchEvent(new Event('input', {bubbles: true}));
               return t; }""",
            " ".join(words),
        )
        rendered = wait_for_mark(page, "attention-render", before + 1)[-1]
        times.append(rendered - started)
        answers = marks(page, "attention-answer")  # (not in checkouts before it was added)
        if len(answers) > answered:
            drawing.append(rendered - answers[-1])
        page.wait_for_timeout(150)  # let the arithmetic's request finish
        fetches.append(
            page.evaluate(
                "async () => { const t = performance.now(); await (await fetch('/healthz')).text(); "
                "return performance.now() - t; }"
            )  # fmt: skip
        )
    context.close()
    return times, fetches, drawing


def steps(browser, url, count=20):
    """(first render, step redraws) of a view: arrow key to the step's mark."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(url)
    first = wait_for_mark(page, "attention-render", 1)[0]
    times = []
    for _ in range(count):
        before = len(marks(page, "attention-step"))
        started = page.evaluate("performance.now()")
        page.keyboard.press("ArrowRight")
        times.append(wait_for_mark(page, "attention-step", before + 1)[-1] - started)
    context.close()
    return first, times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--transfer-only", action="store_true", help="only the cold first visit's bytes")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="the checkout whose app to serve")
    options = parser.parse_args()
    with LiveServer(env={"ACCESS_LOG": "0"}, app_dir=options.app_dir.resolve()) as server, sync_playwright() as p:
        base = server.base
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        report_transfer(browser, base)
        if options.transfer_only:
            browser.close()
            return
        trivial = f"{base}/healthz"
        url16 = f"{base}/?" + urlencode({"source": " ".join(WORDS[:16])})
        cold, warm, trivial_cold, trivial_warm = first_renders(browser, url16, trivial)
        print(f"1. first full render, 16 tokens: cold cache {summary(cold)}; warm cache {summary(warm)}")
        print(f"   trivial page (/healthz, load event): cold {summary(trivial_cold)}; warm {summary(trivial_warm)}")
        print(f"   ratio to the trivial page: cold {p50(cold) / p50(trivial_cold):.1f}x, "
              f"warm {p50(warm) / p50(trivial_warm):.1f}x")  # fmt: skip

        times, fetches, drawing = edits(browser, url16)
        print(f"2. edit of a 16-token sentence, input event to redraw (typing pause included): {summary(times)}")
        print(f"   of which drawing (the server's answer in to the redraw): {summary(drawing) if drawing else 'n/a'}")
        print(f"   trivial round trip (fetch /healthz from the page): {summary(fetches)}; "
              f"ratio {p50(times) / p50(fetches):.1f}x")  # fmt: skip

        long_sentence = " ".join((WORDS * 5)[:64])
        first, step_times = steps(browser, f"{base}/?" + urlencode({"source": long_sentence, "heads": 8}))
        print(f"3. 64 tokens, 8 heads: first full render {first:.0f} ms (cold); step redraw {summary(step_times)}")

        model_url = f"{base}/?" + urlencode({"source": " ".join(MODEL_WORDS), "model": "minilm", "step": 60})
        m_cold, m_warm, _, _ = first_renders(browser, model_url, trivial, runs=3, timeout=60.0)
        print(f"4. real model, 128 word pieces: first full render cold cache {summary(m_cold)}; warm {summary(m_warm)}")
        browser.close()


if __name__ == "__main__":
    main()
