"""Every preset opens from its link and draws all three stages, the arithmetic and the data tables."""

import pytest
from playwright.sync_api import expect

from app.view.presets import PRESETS
from tests.browser.harness import (
    arithmetic_rows,
    highlight_y0,
    open_view,
    page_data,
    table_header,
    tick_labels,
    tick_texts,
)


@pytest.mark.parametrize("preset", PRESETS, ids=[p["id"] for p in PRESETS])
def test_preset_renders_all_three_stages(page, preset):
    open_view(page, preset["params"])
    view = page_data(page)["view"]
    queries, keys = view["tokens"]["queries"], view["tokens"]["keys"]
    step = int(preset["params"].get("step", 0))
    assert 0 <= step < len(queries)

    for n in (1, 2, 3):
        chart = f"chart-stage{n}"
        expect(page.locator(f"#{chart} .main-svg").first).to_be_visible()
        assert page.locator(f"#{chart} g.heatmaplayer").count() == 1, f"{chart}: no heatmap layer"
        assert page.locator(f"#{chart} g.heatmaplayer .hm").count() == 1, f"{chart}: heatmap image missing"
        trace = page.evaluate(
            "(id) => { const d = document.getElementById(id).data[0]; return [d.type, d.z.length]; }", chart
        )
        assert trace == ["heatmap", len(queries)], chart
        assert tick_texts(page, chart, "y") == queries, f"{chart}: row labels"
        assert highlight_y0(page, chart) == step - 0.5, f"{chart}: the current step is not the outlined row"
    for chart in ("chart-stage1", "chart-stage2"):  # crowded columns write every so many labels, none overlapping
        shown = tick_labels(page, chart, "x")
        assert shown and all(keys[j] == text for j, text in shown.items()), f"{chart}: column labels {shown}"
        assert len(shown) == len(keys) or len(keys) > 16, f"{chart}: every column named: {shown}"

    label = page.locator("#step-label").inner_text()
    assert f"{step + 1} of {len(queries)}" in label and f"“{queries[step]}”" in label

    if view["arithmetic"] is None:  # a real model's word units: the arithmetic is written for pieces
        expect(page.locator("#arithmetic")).to_contain_text("Clark")
    else:
        rows = arithmetic_rows(page)
        assert [row["key"] for row in rows] == keys, "one arithmetic row per key"
        weights = view["head"]["weights"][step]
        for row, weight in zip(rows, weights, strict=True):
            shown = row["weight"].split(" ")[0]
            assert float(shown) == pytest.approx(weight, rel=1e-3, abs=5e-5), row

    for n in (1, 2, 3):
        page.locator(f"#stage{n} details.table summary").click()  # the tables are filled when opened
        table = page.locator(f"#table-stage{n} table.data")
        expect(table).to_have_count(1)
        assert table.locator("tbody tr").count() == len(queries)
    assert table_header(page, "table-stage2") == keys

    lesson = next(p for p in page_data(page)["presets"] if p["id"] == preset["id"])["lesson"]  # numbers filled in
    assert "{" not in lesson
    expect(page.locator("#lesson")).to_have_text(lesson)
