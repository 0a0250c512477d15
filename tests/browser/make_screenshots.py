"""Screenshots for README.md: docs/screenshots/translate.png and docs/screenshots/present.png.

    .venv/bin/python -m tests.browser.make_screenshots

Starts the app on a free port, drives Debian's Chromium (Chinese glyphs need fonts-wqy-zenhei), writes the PNGs.
"""

from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

from tests.browser.harness import ROOT, AppServer, launch_chromium, open_view

OUT = ROOT / "docs" / "screenshots"
TRANSLATE = {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞", "step": "2"}


def main():
    from app.view.presets import PRESETS

    translate = next((p["params"] for p in PRESETS if p["id"] == "translate"), TRANSLATE)
    OUT.mkdir(parents=True, exist_ok=True)
    server = AppServer().start()
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            shots = [
                ("translate.png", {"width": 1600, "height": 1000}, translate),
                ("present.png", {"width": 1920, "height": 1080}, {**translate, "present": "true", "stage": "2"}),
            ]
            for name, viewport, params in shots:
                context = browser.new_context(base_url=server.base, viewport=viewport, locale="en-US")
                page = context.new_page()
                open_view(page, "/?" + urlencode(params))
                page.wait_for_timeout(500)  # let Plotly settle its fonts
                page.screenshot(path=str(OUT / name))
                print("wrote", OUT / name)
                context.close()
            browser.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
