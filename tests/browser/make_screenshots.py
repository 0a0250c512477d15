"""Screenshots for README.md, in docs/screenshots/: the translation view (1600×1000), presentation mode
(1920×1080 and a 1280×720 projector), slide mode at 1280×720, a phone (390×844) and /embed in an 800×450 frame;
and copies of four of the projector budget's screens (README_BUDGET), from the last run of its test:

    BUDGET_SCREENSHOTS=1 .venv/bin/python -m pytest tests/browser/test_projector_budget.py -p no:cacheprovider
    .venv/bin/python -m tests.browser.make_screenshots

Starts the app on a free port, drives Debian's Chromium (Chinese glyphs need fonts-wqy-zenhei), writes the PNGs.
"""

import shutil
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

from tests.browser.harness import ROOT, AppServer, launch_chromium, open_view, settled

OUT = ROOT / "docs" / "screenshots"
BUDGET = OUT / "budget"  # every screen tests/browser/test_projector_budget.py checks (ignored by git)
README_BUDGET = (
    "main-1280x720-present-live.png",
    "main-1024x768-slide-live.png",
    "compare-1280x720-present.png",
    "live-1920x1080-present-live.png",
)
TRANSLATE = {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞", "step": "2"}


def main():
    from app.view.presets import PRESETS

    translate = next((p["params"] for p in PRESETS if p["id"] == "translate"), TRANSLATE)
    OUT.mkdir(parents=True, exist_ok=True)
    server = AppServer().start()
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            present = {**translate, "present": "true"}
            shots = [
                ("translate.png", {"width": 1600, "height": 1000}, translate),
                ("present.png", {"width": 1920, "height": 1080}, {**present, "stage": "2"}),
                ("present-1280x720.png", {"width": 1280, "height": 720}, present),
                ("slide-1280x720.png", {"width": 1280, "height": 720}, {**translate, "stage": "2", "slide": "2"}),
                ("slide-arithmetic-1280x720.png", {"width": 1280, "height": 720}, {**present, "slide": "4"}),
                ("phone-390x844.png", {"width": 390, "height": 844}, {"source": "walk by river bank", "step": "3"}),
                ("embed-800x450.png", {"width": 800, "height": 450}, {**translate, "stage": "2"}),
            ]
            for name, viewport, params in shots:
                context = browser.new_context(base_url=server.base, viewport=viewport, locale="en-US")
                page = context.new_page()
                base = "/embed?" if name.startswith("embed") else "/?"
                open_view(page, base + urlencode(params))
                if name.startswith("phone"):  # the phone's second screen: the step bar and the first heatmap
                    page.evaluate("document.getElementById('stages').scrollIntoView()")
                page.evaluate("() => document.fonts.ready.then(() => true)")  # the fonts Plotly measures with
                settled(page)  # and the redraws they asked for
                page.screenshot(path=str(OUT / name))
                print("wrote", OUT / name)
                context.close()
            browser.close()
    finally:
        server.stop()
    for name in README_BUDGET:
        if not (BUDGET / name).exists():
            print(f"{BUDGET / name} is missing: run tests/browser/test_projector_budget.py first")
            continue
        shutil.copyfile(BUDGET / name, OUT / f"budget-{name}")
        print("wrote", OUT / f"budget-{name}")


if __name__ == "__main__":
    main()
