"""The Plotly bundle the page loads has everything the page's scripts use.

The trace types and Plotly calls are read from static/js, so a new chart type in the scripts that the
partial (cartesian) bundle lacks fails here, not in a classroom.
"""

import re
from pathlib import Path

import plotly.graph_objs as go
from plotly.offline import get_plotlyjs_version

from tests.browser.harness import open_view

ROOT = Path(__file__).resolve().parents[2]
TRANSLATE = {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞"}
ALL_TRACE_TYPES = set(go.layout.template.Data()._valid_props)  # every trace type plotly.js knows


def page_scripts():
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted((ROOT / "static" / "js").rglob("*.js")))


def trace_types_used():
    """Every `type: "<name>"` in the scripts whose name is a Plotly trace type (not, say, a button's type)."""
    named = set(re.findall(r"""\btype\s*:\s*["'`](\w+)["'`]""", page_scripts()))
    return sorted(named & ALL_TRACE_TYPES)


def plotly_calls_used():
    return sorted(set(re.findall(r"\bPlotly\.(\w+)", page_scripts())))


def test_the_scripts_are_read():
    assert "heatmap" in trace_types_used()
    assert "react" in plotly_calls_used() or "newPlot" in plotly_calls_used()


def test_the_served_bundle_has_every_trace_type_and_call_the_page_uses(page):
    open_view(page, TRANSLATE)
    found = page.evaluate(
        """() => ({
            version: Plotly.version,
            traces: Object.keys(Plotly.PlotSchema.get().traces),
            functions: Object.keys(Plotly).filter((name) => typeof Plotly[name] === "function"),
        })"""
    )
    assert found["version"] == get_plotlyjs_version()
    assert set(trace_types_used()) <= set(found["traces"]), (trace_types_used(), found["traces"])
    assert set(plotly_calls_used()) | {"toImage", "downloadImage"} <= set(found["functions"])


def test_each_trace_type_draws_and_exports_as_png(page):
    """Drawn for real in the page (an unknown type would fall back to another one), then exported."""
    open_view(page, TRANSLATE)
    for trace_type in trace_types_used():
        result = page.evaluate(
            """async (type) => {
                const div = document.createElement("div");
                document.body.append(div);
                const data = type === "heatmap" ? {z: [[1, 2], [3, 4]]} : {x: [0, 1], y: [2, 3]};
                await Plotly.newPlot(div, [{type, ...data}], {width: 300, height: 200});
                const png = await Plotly.toImage(div, {format: "png", width: 300, height: 200});
                const drawn = div._fullData[0].type;
                Plotly.purge(div);
                div.remove();
                return {drawn, png: png.slice(0, 22), length: png.length};
            }""",
            trace_type,
        )
        assert result["drawn"] == trace_type, result
        assert result["png"] == "data:image/png;base64,", result
        assert result["length"] > 1000, result
