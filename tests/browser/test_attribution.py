"""The switch under stage 2 in a real Chromium: weights or weight × value norm (attribution=norm), for a real model.
It changes the heatmap and the link; the link opened afresh shows the same; the chart says what it shows in the
page's language; the arithmetic and the stage 2 table give each key's ‖v W_O‖, α‖v W_O‖ and share."""

import json
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.browser.harness import chart_z, current_view, open_view, poll, url_params

VIEW = {
    "model": "minilm",
    "source": "The cat sat on the mat, and then it slept.",
    "layer": "3",
    "head": "2",
    "step": "4",
}

READ = """() => ({
  z: JSON.stringify((document.getElementById('chart-stage2').data || [{ z: null }])[0].z),
  shows: ['stage2-title', 'stage2-help'].map((id) => document.getElementById(id).textContent).join(' | '),
  pressed: [...document.querySelectorAll('#attribution-toggle button')]
    .filter((b) => b.getAttribute('aria-pressed') === 'true').map((b) => b.dataset.attribution),
  note: document.getElementById('scale-note2').textContent,
  search: location.search,
})"""


def masked(z, mask):
    return [
        [x if visible else None for x, visible in zip(row, row_mask, strict=True)]
        for row, row_mask in zip(z, mask, strict=True)
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_switch_changes_the_heatmap_and_the_link_and_the_link_reproduces_it(tabs, lang):
    page = tabs().new_page()
    open_view(page, {**VIEW, "lang": lang})
    before = poll(page, READ, lambda r: r["z"] != "null")
    view = current_view(page)
    assert json.loads(before["z"]) == masked(view["head"]["weights"], view["head"]["mask"])  # the weights
    assert before["pressed"] == ["weights"] and "attribution" not in url_params(page)

    page.locator('#attribution-toggle button[data-attribution="norm"]').click()
    after = poll(page, READ, lambda r: "attribution=norm" in r["search"] and r["z"] != before["z"])
    view = current_view(page)
    contributions = view["attribution"]["contributions"]
    assert json.loads(after["z"]) == masked(contributions, view["head"]["mask"])  # α‖v W_O‖, as the JSON has it
    assert after["pressed"] == ["norm"]
    if lang == "en":
        assert "Weight × ‖value‖" in after["shows"] and "Kobayashi" in after["shows"]
        assert "more put into the output" in after["note"]
    else:
        assert "权重 × ‖值‖" in after["shows"] and "贡献" in after["note"]
    assert url_params(page)["attribution"] == "norm" and url_params(page)["lang"] == lang

    # the link, opened in a new tab, shows the same chart
    again = tabs().new_page()
    open_view(again, page.url)
    reopened = poll(again, READ, lambda r: r["z"] != "null")
    assert reopened["z"] == after["z"] and reopened["pressed"] == ["norm"] and reopened["shows"] == after["shows"]

    # and back: the weights, the link without the parameter
    page.locator('#attribution-toggle button[data-attribution="weights"]').click()
    back = poll(page, READ, lambda r: "attribution" not in r["search"] and r["pressed"] == ["weights"])
    assert back["z"] == before["z"]


def test_the_arithmetic_and_the_table_give_each_keys_norm_and_contribution(tabs):
    page = tabs().new_page()
    open_view(page, {**VIEW, "attribution": "norm"})
    view = current_view(page)
    board = view["arithmetic"]
    rows = poll(
        page,
        """() => { const t = document.querySelector('#arithmetic table.arith-norms');
          if (!t) return null;
          const heads = [...t.tHead.rows[0].cells].map((c) => c.textContent);
          return [...t.tBodies[0].rows].map((r) =>
            Object.fromEntries([...r.cells].map((c, i) => [heads[i], c.textContent]))); }""",
        lambda r: bool(r) and "α‖v W_O‖" in r[0],
    )
    best = max(range(len(board["contributions"])), key=lambda j: board["contributions"][j])
    assert float(rows[best]["‖v W_O‖"]) == pytest.approx(board["value_norms"][best], rel=1e-3)
    assert float(rows[best]["α‖v W_O‖"]) == pytest.approx(board["contributions"][best], rel=1e-3)
    assert float(rows[best]["share of Σ"]) == pytest.approx(board["contribution_shares"][best], rel=1e-3)
    page.locator("#stage2 details.table summary").click()
    page.locator("#table-stage2 table").wait_for(state="attached")
    footer = page.locator("#table-stage2 tfoot tr").inner_text()
    assert footer.startswith("‖v W_O‖")
    assert "α‖v W_O‖" in page.locator("#table-stage2 caption").inner_text()
    assert chart_z(page, "chart-stage2") == json.dumps(
        masked(view["attribution"]["contributions"], view["head"]["mask"]), separators=(",", ":")
    )


def test_no_switch_where_there_is_no_attention_nor_in_a_frame(tabs):
    page = tabs().new_page()
    open_view(page, {"model": "rnnencdec", "source": "Tom chase Jerry"})
    expect(page.locator(".attribution-row")).to_be_hidden()  # rnnencdec: one context vector, no weights
    assert page.locator("#stage2-title").text_content() == "Stage 2 · No weights"  # and no chart of weights
    page.goto("/embed?" + urlencode({**VIEW, "attribution": "norm", "stage": "2"}))
    page.locator("body[data-ready=true]").wait_for(state="attached")
    expect(page.locator(".attribution-row")).to_be_hidden()  # a frame shows its link's choice
    expect(page.locator("#stage2-title")).to_contain_text("Weight × ‖value‖")


def test_a_sentence_view_puts_its_weights_back_beside_the_norms(tabs):
    """The teaching engine's answer leaves the step's weights out (app/view/fixed.py): the page puts them back, and
    the norm table writes the same numbers as the view put together."""
    page = tabs().new_page()
    open_view(page, {"source": "walk by river bank", "step": "3", "projection": "random", "attribution": "norm"})
    view = current_view(page)
    board = view["arithmetic"]
    rows = poll(
        page,
        """() => [...document.querySelectorAll('#arithmetic table.arith-norms tbody tr')].map((r) =>
          [...r.cells].map((c) => c.textContent))""",
        lambda r: len(r) == 4,
    )
    for j, row in enumerate(rows):
        assert row[0] == view["tokens"]["keys"][j]
        assert float(row[1]) == pytest.approx(board["weights"][j], abs=1e-4)
        assert float(row[3]) == pytest.approx(board["contributions"][j], rel=1e-3)
