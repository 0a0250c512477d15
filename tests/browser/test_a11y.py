"""axe-core (npm, tests only) finds no serious or critical violation on the main views.

The app's Content-Security-Policy blocks inline <script> (so page.add_script_tag(content=...) is refused);
axe's source is evaluated through the DevTools protocol instead, which CSP does not govern.
"""

import pytest

from app.view.presets import PRESETS
from tests.browser.harness import open_view

TRANSLATE = next(p for p in PRESETS if p["id"] == "translate")

VIEWS = {
    "default": ({}, {"width": 1400, "height": 900}),
    "cross-attention": (TRANSLATE["params"], {"width": 1400, "height": 900}),
    "presentation": ({**TRANSLATE["params"], "present": "true"}, {"width": 1920, "height": 1080}),
}

RUN_AXE = """async () => {
  const result = await axe.run(document, { resultTypes: ['violations'] });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
  }));
}"""


@pytest.mark.parametrize("name", list(VIEWS))
def test_no_serious_accessibility_violations(tabs, axe_source, name):
    params, viewport = VIEWS[name]
    page = tabs(viewport=viewport).new_page()
    open_view(page, params)
    page.evaluate(axe_source)
    assert page.evaluate("typeof axe") == "object", "axe-core did not load"
    for details in page.locator("details").all():  # audit the folded parts too
        if details.is_visible():
            details.evaluate("(d) => { d.open = true; }")
    page.locator("#table-stage2 table").wait_for(state="attached")  # filled on the toggle event
    violations = page.evaluate(RUN_AXE)
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    assert not serious, "\n".join(f"{v['impact']} {v['id']}: {v['help']} at {v['nodes']}" for v in serious)
