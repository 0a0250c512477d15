"""The geometry panel's speed, in one run. Not a test: run by hand.

    .venv/bin/python -m bench.bench_geometry

1. the engine: the plane of one view (app.view.compute.geometry_of) for 16, 64 and 128 tokens, named heads and a
   PCA, beside the whole view's computation in the same run;
2. the page, in a real Chromium (Playwright): a step (arrow key) of a 64-token, 8-head view to the panel's
   `attention-geometry` mark (goal: 50 ms), with the head fixed (head=0: the step needs no new view) and
   following the word (no head: a step whose word asks another head is then fetched and drawn again; the first
   mark after the key is the step's own drawing), at 1600×1000 and as slide 7 at 1280×720;
3. with --before DIR: the whole step (every panel) here and in another checkout, alternating in one run, then
   the geometry panel's own drawing of a step, the same way.

    .venv/bin/python -m bench.bench_geometry --page-only
    .venv/bin/python -m bench.bench_geometry --before /tmp/before   # git archive <commit> | tar -x -C /tmp/before
"""

import statistics
import time
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

from bench.bench_page import ARGS, WORDS, marks, summary, wait_for_mark
from tests.support.live_server import LiveServer

STEPS = 24


def engine():
    from app.view.compute import compute_view, geometry_of, sentence_view
    from app.view.state import State

    for n, projection in ((16, "named"), (64, "named"), (128, "named"), (64, "random"), (128, "random")):
        state = State(source=" ".join((WORDS * 9)[:n]), projection=projection, step=n // 2)
        body = sentence_view(state)
        plane, whole = [], []
        for _ in range(30):
            started = time.perf_counter()
            geometry_of(state, body)
            plane.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            compute_view(state)
            whole.append((time.perf_counter() - started) * 1000)
        print(
            f"1. {n:3} tokens, {projection:6}: the plane {statistics.median(plane):.2f} ms p50 "
            f"(max {max(plane):.2f}); the whole view {statistics.median(whole):.2f} ms p50 "
            f"({100 * statistics.median(plane) / statistics.median(whole):.0f}%)"
        )


def opened(browser, url, viewport, mark):
    """A new page at `url`, settled once `mark` is set, with no control in focus (the arrow keys step)."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(url)
    wait_for_mark(page, mark, 1, timeout=120)
    page.wait_for_timeout(500)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    return context, page


def steps(browser, url, viewport, count=STEPS):
    """Arrow key to the geometry panel's next mark, `count` times (ms)."""
    context, page = opened(browser, url, viewport, "attention-geometry")
    times, own, rest = [], [], []
    for _ in range(count):
        before = len(marks(page, "attention-geometry"))
        steps_before = len(marks(page, "attention-step"))
        started = page.evaluate("performance.now()")
        page.keyboard.press("ArrowRight")
        drawn = wait_for_mark(page, "attention-geometry", before + 1)[before]
        times.append(drawn - started)
        own.append(drawn - marks(page, "geometry-start")[before])
        rest.append(wait_for_mark(page, "attention-step", steps_before + 1)[steps_before] - started)
        page.wait_for_timeout(250)  # a fetched view (another head) is drawn before the next key
    context.close()
    return times, own, rest


def step_times(browser, url, viewport, count=STEPS):
    """Arrow key to the end of the step's synchronous drawing (`attention-step`, every checkout has it), in ms."""
    context, page = opened(browser, url, viewport, "attention-render")
    times = []
    for _ in range(count):
        before = len(marks(page, "attention-step"))
        started = page.evaluate("performance.now()")
        page.keyboard.press("ArrowRight")
        times.append(wait_for_mark(page, "attention-step", before + 1)[before] - started)
        page.wait_for_timeout(250)
    context.close()
    return times


def before_and_after(before_dir):
    """The whole step (every panel) of the 64-token view, head=0, in this checkout and in `before_dir`, alternating;
    then the geometry panel's own drawing of a step (its start to drawn: the lines and the words placed), the same."""
    source = " ".join((WORDS * 5)[:64])
    query = urlencode({"source": source, "head": 0})
    found = {"before": [], "after": []}
    panel = {"before": [], "after": []}
    with (
        LiveServer(env={"ACCESS_LOG": "0"}, app_dir=before_dir) as old,
        LiveServer(env={"ACCESS_LOG": "0"}) as new,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for server in (old, new):
            page = browser.new_page()
            page.goto(f"{server.base}/?{query}")
            wait_for_mark(page, "attention-render", 1, timeout=300)
            page.close()
        for _ in range(3):
            for name, server in (("before", old), ("after", new)):
                found[name] += step_times(browser, f"{server.base}/?{query}", {"width": 1600, "height": 1000}, 8)
        for _ in range(3):
            for name, server in (("before", old), ("after", new)):
                panel[name] += steps(browser, f"{server.base}/?{query}", {"width": 1600, "height": 1000}, 8)[1]
        browser.close()
    for name, times in found.items():
        print(f"3. 64 tokens, 8 heads, head=0, 1600x1000, {name}: arrow key to the step drawn {summary(times)}")
    for name, times in panel.items():
        print(f"   {name}: the geometry panel's own drawing of the step {summary(times)}")


def main():
    import sys

    if "--before" in sys.argv:  # another checkout (e.g. git archive of the commit before the panel)
        before_and_after(Path(sys.argv[sys.argv.index("--before") + 1]).resolve())
        return
    if "--page-only" not in sys.argv:
        engine()
    with LiveServer(env={"ACCESS_LOG": "0"}) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        source = " ".join((WORDS * 5)[:64])
        base = f"{server.base}/?"
        page = browser.new_page()
        page.goto(base + urlencode({"source": source}))  # the server computes the examples once
        wait_for_mark(page, "attention-geometry", 1, timeout=300)
        page.close()
        cases = {
            "64 tokens, 8 heads, head=0, 1600x1000": (
                {"source": source, "head": 0},
                {"width": 1600, "height": 1000},
            ),
            "64 tokens, 8 heads, head follows the word, 1600x1000": (
                {"source": source},
                {"width": 1600, "height": 1000},
            ),
            "64 tokens, head=0, slide 7 at 1280x720, presentation": (
                {"source": source, "head": 0, "present": "true", "slide": 7},
                {"width": 1280, "height": 720},
            ),
        }
        for name, (params, viewport) in cases.items():
            times, own, rest = steps(browser, base + urlencode(params), viewport)
            print(f"2. {name}: arrow key to the panel drawn {summary(times)}")
            print(f"   of which the panel itself (its start to drawn) {summary(own)}")
            print(f"   the whole step's synchronous part, every panel (arrow key to attention-step) {summary(rest)}")
        browser.close()


if __name__ == "__main__":
    main()
