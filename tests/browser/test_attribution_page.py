"""Value zeroing and the translators' leave-one-out on the page: attribution=zeroing draws the layer's value-zeroing
map on stage 2 instead of the head's weights and says it is one map per layer, with its rollout beside the
attention rollout; attribution=leave-one-out gives the alignment table its column; without them neither shows."""

import json
import urllib.request

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.harness import chart_z, current_view, open_view, page_data, poll

SENTENCE = "walk by the river bank"


@pytest.fixture(scope="module", autouse=True)
def warm_pages(app_server):
    """The zeroing view computes every layer's zeroed copies once: a busy machine may take longer than a goto."""
    for query in (f"source={SENTENCE.replace(' ', '+')}&model=minilm&attribution=zeroing&layer=2",
                  "source=Tom+chase+Jerry&model=rnnsearch&attribution=leave-one-out"):  # fmt: skip
        with urllib.request.urlopen(f"{app_server.base}/api/attention?{query}", timeout=300) as answer:
            assert answer.status == 200


def test_zeroing_takes_stage_two_and_its_rollout_sits_beside_attention(page):
    open_view(page, {"source": SENTENCE, "model": "minilm", "layer": "2"})
    expect(page.locator("#zeroing-note")).to_be_hidden()
    expect(page.locator("#zeroing-rollout")).to_be_hidden()
    weights = page_data(page)["view"]["head"]["weights"]
    np.testing.assert_allclose(json.loads(chart_z(page, "chart-stage2")), weights, atol=1e-9)

    page.select_option("#attribution", "zeroing")
    poll(page, "() => new URL(location.href).searchParams.get('attribution') === 'zeroing'")
    expect(page.locator("#zeroing-note")).to_be_visible()
    expect(page.locator("#zeroing-note")).to_contain_text("layer 2")
    expect(page.locator("#zeroing-note")).to_contain_text("not per head")
    poll(page, "() => document.getElementById('chart-zeroing-rollout').data !== undefined")
    zeroing = current_view(page)["value_zeroing"]  # the JSON twin of the view the page shows now
    np.testing.assert_allclose(json.loads(chart_z(page, "chart-stage2")), zeroing["layer_map"], atol=1e-9)
    np.testing.assert_allclose(json.loads(chart_z(page, "chart-zeroing-rollout")), zeroing["rollout"], atol=1e-9)
    expect(page.locator("#chart-rollout")).to_be_visible()
    button = page.locator('#attribution-toggle button[data-attribution="zeroing"]')  # the switch under stage 2
    expect(button).to_be_visible()
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#stage2-title")).to_have_text("Stage 2 · Value zeroing of the layer")
    page.locator('#attribution-toggle button[data-attribution="weights"]').click()
    poll(page, "() => new URL(location.href).searchParams.get('attribution') === null")
    expect(page.locator("#zeroing-note")).to_be_hidden()
    expect(page.locator("#zeroing-rollout")).to_be_hidden()


def test_the_chinese_page_says_it_in_chinese(page):
    open_view(page, {"source": SENTENCE, "model": "minilm", "layer": "2", "attribution": "zeroing", "lang": "zh"})
    expect(page.locator("#zeroing-note")).to_contain_text("每层一张图")
    expect(page.locator("#stage2-title")).to_have_text("第二阶段 · 这一层的值置零")


def test_leave_one_out_adds_a_column_to_the_alignment_table(page):
    open_view(page, {"source": "Tom chase Jerry", "model": "rnnsearch"})
    expect(page.locator("#mt-words td.loo")).to_have_count(0)
    expect(page.locator('#attribution-toggle button[data-attribution="zeroing"]')).to_be_hidden()  # real models only
    expect(page.locator('#attribution-toggle button[data-attribution="leave-one-out"]')).to_be_visible()
    open_view(page, {"source": "Tom chase Jerry", "model": "rnnsearch", "attribution": "leave-one-out"})
    expect(page.locator("#mt-words thead th").last).to_have_text("Costs it most if left out")  # the last column
    cells = page.locator("#mt-words td.loo")
    expect(cells).to_have_count(3)
    expect(cells.nth(0)).to_contain_text("tom −")
    expect(cells.nth(2)).to_contain_text("jerry −")
