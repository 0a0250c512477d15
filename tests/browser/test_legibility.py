"""What is on screen stays readable: the arithmetic fits its panel, long sentences are summarised rather
than smeared, and the cells' values are drawn over the heatmaps (not by Plotly's per-cell text) yet
stay in the exported PNG and the data tables."""

import re
import struct

import pytest
from playwright.sync_api import expect

from app.view.presets import PRESETS
from tests.browser.harness import open_tables, open_view, page_data, poll, tick_texts, url_params

TRANSLATE = next(p for p in PRESETS if p["id"] == "translate")
MULTI_HEAD = next(p for p in PRESETS if p["id"] == "multi-head")
REAL_MODEL = next(p for p in PRESETS if p["id"] == "real-model")
LONG_TEXT = (
    "The old teacher walked slowly along the river bank in the morning while the children played near the "
    "water and the birds sang in the tall trees above them and a small dog ran after a red ball that rolled "
    "down the hill toward the bridge where two fishermen sat quietly waiting for the fish to bite as the sun "
    "rose higher over the quiet village and the church bells rang out across the green fields to call everyone "
    "to the market square for the summer festival that would begin at noon with music and dancing"
)  # 93 words: 95 word pieces with [CLS] and [SEP]

# The arithmetic table as drawn: does it overflow its region, and where do its last columns end?
ARITHMETIC = """() => {
  const region = document.querySelector('#arithmetic .fit');
  const table = region.querySelector('table');
  const panel = document.getElementById('arithmetic-panel').getBoundingClientRect();
  const heads = [...table.tHead.rows[0].cells];
  const right = (cell) => cell.getBoundingClientRect().right;
  return {
    overflow: region.scrollWidth - region.clientWidth,
    panelRight: panel.right,
    weightRight: right(heads[heads.length - 2]), valueRight: right(heads[heads.length - 1]),
    outputRight: right(table.tFoot.rows[0].cells[table.tFoot.rows[0].cells.length - 1]),
    headers: heads.map((c) => c.textContent),
  };
}"""


def assert_arithmetic_fits(page, where):
    found = poll(page, ARITHMETIC, lambda f: f["headers"][-1] != "")
    assert found["overflow"] <= 0, f"{where}: the arithmetic table overflows by {found['overflow']} px: {found}"
    for column in ("weightRight", "valueRight", "outputRight"):
        assert found[column] <= found["panelRight"], f"{where}: {column} {found[column]} past {found['panelRight']}"


@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize(
    "params",
    [
        TRANSLATE["params"],
        MULTI_HEAD["params"],
        REAL_MODEL["params"],
        {"source": "walk by river bank", "score": "additive"},
        {**REAL_MODEL["params"], "attribution": "norm"},  # three more columns: ‖v W_O‖, α‖v W_O‖, share
    ],
    ids=["translate", "multi-head", "real-model", "additive", "real-model-norm"],
)
def test_the_arithmetic_fits_at_1280_and_1920(tabs, params, width, height):
    page = tabs(viewport={"width": width, "height": height}).new_page()
    open_view(page, params)
    assert_arithmetic_fits(page, f"{width} plain, {params}")
    page.keyboard.press("p")
    expect(page.locator("body")).to_have_class(re.compile(r"\bpresent\b"))
    assert_arithmetic_fits(page, f"{width} presentation, {params}")


def test_a_long_vector_is_whole_on_focus_and_in_the_full_table(page):
    open_view(page, REAL_MODEL["params"])  # 32 numbers per head vector
    cell = page.locator("#arithmetic .fit td.vec.long").first
    short = cell.locator(".short").inner_text()
    whole = cell.locator(".whole").text_content()
    assert "…" in short and "(32)" in short and "…" not in whole and len(whole.split(",")) == 32
    assert cell.locator(".whole").bounding_box()["width"] <= 1, "the whole vector is hidden until focus"
    cell.focus()
    box = cell.locator(".whole").bounding_box()
    assert box["width"] > 100 and box["height"] > 10, f"focus shows the whole vector: {box}"
    page.locator("#arithmetic details.table summary").click()
    full = page.locator("#arithmetic details.table table")
    expect(full).to_have_count(1)
    assert whole in full.inner_text() and "…" not in full.inner_text()
    label = page.locator("#step-label").inner_text()
    page.keyboard.press("Escape")
    page.keyboard.press("ArrowLeft")
    poll(page, "document.getElementById('step-label').innerText", lambda text: text != label)
    expect(page.locator("#arithmetic details.table")).to_have_attribute("open", "")  # stays open while stepping
    expect(page.locator("#arithmetic details.table table")).to_have_count(1)


# Tick labels as drawn, and whether any two of them overlap.
TICKS = """([chart, axis]) => {
  const boxes = [...document.querySelectorAll(`#${chart} .${axis}tick text`)].map((e) => e.getBoundingClientRect());
  const overlap = (b, a) => (axis === 'y' ? b.top < a.bottom - 1 : b.left < a.right - 1 && b.top < a.bottom - 1);
  const overlaps = boxes.slice(1).filter((b, i) => overlap(b, boxes[i])).length;
  return { count: boxes.length, overlaps };
}"""


def test_a_long_sentence_in_a_real_model_stays_legible(tabs):
    page = tabs(viewport={"width": 1366, "height": 768}).new_page()
    open_view(page, {"source": LONG_TEXT, "model": "minilm", "layer": "2", "step": "60"}, timeout=60_000)
    view = page_data(page)["view"]
    n = len(view["tokens"]["queries"])
    assert n > 90
    for chart in ("chart-stage1", "chart-stage2", "chart-stage3"):
        expect(page.locator(f"#stage{chart[-1]} .cell-values")).to_be_hidden()  # no values in tiny cells
        y = page.evaluate(TICKS, [chart, "y"])
        assert 4 <= y["count"] <= n // 2 and y["overlaps"] == 0, f"{chart}: row labels thinned, none overlapping: {y}"
        assert page.locator(f"#{chart} g.heatmaplayer text").count() == 0, "no Plotly cell text"
    x = page.evaluate(TICKS, ["chart-stage2", "x"])
    assert 4 <= x["count"] <= n // 2 and x["overlaps"] == 0, f"key labels thinned: {x}"
    dims = tick_texts(page, "chart-stage3", "x")
    assert 2 <= len(dims) <= 8 and all(d.isdigit() for d in dims), f"the 32 dimensions are summarised: {dims}"
    expect(page.locator("#chart-stage3 .xtitle")).to_have_text("32 dimensions")
    widths = page.evaluate("['chart-stage1', 'chart-stage2'].map((id) => document.getElementById(id).clientWidth)")
    assert min(widths) > 800, f"each long heatmap gets the whole width: {widths}"

    weights = view["head"]["weights"][60]
    labels = page.locator("#chart-bars text.bar-label").all_text_contents()
    top = sorted(range(n), key=lambda j: (-weights[j], j))[:10]
    assert labels[:10] == [view["tokens"]["keys"][j] for j in top], "the ten largest weights, ranked and named"
    assert labels[10:] == [f"{n - 10} more"]
    assert page.locator("#chart-bars rect").count() == n, "every key still has its bar"

    def current_word_in_view():
        return page.evaluate(
            """() => { const slot = document.getElementById('alignment').getBoundingClientRect();
                 const word = document.querySelector('#alignment .align-word.current').getBoundingClientRect();
                 return word.left >= slot.left && word.right <= slot.right; }"""
        )

    assert page.evaluate("document.getElementById('alignment').scrollLeft") > 0
    assert current_word_in_view(), "the alignment picture is scrolled to the current query"
    page.keyboard.press("ArrowRight")
    poll(page, "location.search", lambda search: "step=61" in search)
    assert current_word_in_view()


def test_a_384_wide_feature_axis_is_summarised(page):
    """A whole model's output (384 features, as MiniLM's hidden size) drawn by the page's own heatmap()."""
    open_view(page, {"source": "walk by river bank"})
    found = page.evaluate(
        """async () => {
          const src = document.querySelector('script[type=module]').src.replace('main.js', 'charts.js');
          const { heatmap } = await import(src);
          const wrap = document.createElement('div');
          wrap.className = 'chart-wrap';
          wrap.innerHTML = '<div class="chart" id="wide"></div><svg class="cell-values"></svg>'
            + '<div class="outline"></div>';
          document.getElementById('stage3').append(wrap);
          const rows = ['the', 'bank', 'river', 'walk'];
          const cols = Array.from({ length: 384 }, (_, i) => `d${i}`);
          const z = rows.map((_, i) => cols.map((_, j) => Math.sin(i + j / 7)));
          const el = document.getElementById('wide');
          await heatmap(el, { z, rows, cols, step: 1, width: el.clientWidth, font: 14, dims: '384 dimensions' });
          const ticks = [...el.querySelectorAll('.xtick text')].map((e) => e.textContent);
          const values = wrap.querySelector('.cell-values').childElementCount;
          return { ticks, title: el.querySelector('.xtitle').textContent, values };
        }"""
    )
    assert 3 <= len(found["ticks"]) <= 13 and found["ticks"][0] == "0", found
    assert all(t.isdigit() and int(t) % 50 == 0 for t in found["ticks"]), f"every 50th dimension numbered: {found}"
    assert found["title"] == "384 dimensions" and found["values"] == 0


def test_values_are_laid_over_the_cells_and_kept_in_exports(page):
    open_view(page, TRANSLATE["params"])
    view = page_data(page)["view"]
    assert page.locator("#chart-stage2 g.heatmaplayer text").count() == 0, "Plotly writes no per-cell text"
    values = page.locator("#stage2 .cell-values text").all_text_contents()
    weights = [w for row in view["head"]["weights"] for w in row]
    assert [float(v) for v in values] == pytest.approx(weights, rel=0.05), "the overlay shows each weight"
    colours = page.locator("#stage2 .cell-values text").evaluate_all("(ts) => ts.map((t) => t.getAttribute('fill'))")
    assert colours[weights.index(max(weights))] == "#000000" and colours[weights.index(min(weights))] == "#ffffff"
    placed = page.evaluate(
        """() => { const image = document.querySelector('#chart-stage2 .heatmaplayer image').getBoundingClientRect();
             const text = document.querySelector('#stage2 .cell-values text').getBoundingClientRect();
             return [image.left, image.top, image.width / 3, image.height / 3,
                     text.left + text.width / 2, text.top + text.height / 2]; }"""
    )
    left, top, w, h, x, y = placed
    assert abs(x - (left + w / 2)) < 3 and abs(y - (top + h / 2)) < 4, (
        f"the first value is centred on its cell: {placed}"
    )

    figure = page.evaluate(
        """async () => {
          const src = document.querySelector('script[type=module]').src.replace('main.js', 'charts.js');
          const { exportFigure } = await import(src);
          const f = exportFigure(document.getElementById('chart-stage2'));
          return { text: f.data[0].text, template: f.data[0].texttemplate, shapes: f.layout.shapes };
        }"""
    )
    assert [v for row in figure["text"] for v in row] == values and figure["template"] == "%{text}"
    step = int(url_params(page)["step"])
    assert figure["shapes"][0]["y0"] == step - 0.5, "the PNG outlines the current step too"
    with page.expect_download() as download:
        page.locator('#stage2 .exports button:has-text("PNG")').click()
    png = download.value.path().read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width > 400 and height > 200

    open_tables(page)
    assert "0.9952" in page.locator("#table-stage2").inner_text(), "the data table keeps four digits"


SEVENTEEN = "the teacher gave the student a book about the river and the sea in the old school"
FIT = """(n) => {
  const image = document.querySelector('#chart-stage2 .heatmaplayer image').getBoundingClientRect();
  const texts = [...document.querySelectorAll('#stage2 .cell-values text')].map((t) => t.getBoundingClientRect());
  return { count: texts.length, widest: Math.max(...texts.map((t) => t.width)), cell: image.width / n };
}"""


def test_values_only_where_they_fit(tabs):
    page = tabs(viewport={"width": 1280, "height": 720}).new_page()
    n = len(SEVENTEEN.split())
    open_view(page, {"source": SEVENTEEN, "slide": "2"})  # 17 tokens on a whole slide: the values fit
    fit = page.evaluate(FIT, n)
    assert fit["count"] == n**2 and fit["widest"] < fit["cell"], fit
    open_view(page, {"source": " ".join((SEVENTEEN.split() * 4)[:64]), "slide": "2"})
    expect(page.locator("#stage2 .cell-values")).to_be_hidden()
    assert page.locator("#stage2 .cell-values text").count() == 0
    assert page.locator("#chart-stage2 g.heatmaplayer text").count() == 0
