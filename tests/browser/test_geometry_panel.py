"""The geometry panel in a real Chromium: queries and keys in one plane, at a 1280×720 projector in presentation
and slide mode, stepping with the keys (the lines' numbers are text, not hover), the plane toggle of a named
head, and the stretch moving the panel and stage 2 together."""

import urllib.request

import pytest
from playwright.sync_api import expect

from tests.browser.harness import current_view, open_view, poll

PROJECTOR = {"width": 1280, "height": 720}
BANK = {"source": "walk by river bank", "step": "3"}
SLIDE = 7  # the geometry panel is the seventh slide

# What the panel shows, read from the drawn page: its box, the table's rows, the markers Plotly drew.
READ = """() => {
  const panel = document.getElementById('geometry-panel').getBoundingClientRect();
  const chart = document.getElementById('chart-geometry');
  const rows = [...document.querySelectorAll('#geometry-lines tbody tr')].map((tr) =>
    [...tr.cells].map((cell) => cell.textContent));
  const texts = [...document.querySelectorAll(
      '#chart-geometry .textpoint text, .geometry-layer text, .geometry-labels text')]
    .map((t) => ({ text: t.textContent,
    size: parseFloat(getComputedStyle(t).fontSize), box: t.getBoundingClientRect().toJSON() }));
  const plot = chart.querySelector('.bglayer rect, .plot') ? chart.getBoundingClientRect().toJSON() : null;
  return { panel: panel.toJSON(), rows, texts, plot, step: document.getElementById('geometry-lines').dataset.step,
           note: document.getElementById('geometry-note').textContent, traces: chart.data ? chart.data.length : 0,
           symbols: chart.data ? chart.data.map((d) => (d.marker ? d.marker.symbol : null)) : [],
           widths: [...document.querySelectorAll('.geometry-layer line')].sort((a, b) => a.dataset.key - b.dataset.key)
             .map((line) => Number(line.getAttribute('stroke-width'))) };
}"""


@pytest.fixture(autouse=True, scope="module")
def warm(app_server):
    """The first page computes every example's numbers (the real models' too): a busy machine takes longer than
    a navigation's timeout, so it is asked for once before the pages are timed."""
    with urllib.request.urlopen(app_server.base + "/", timeout=180) as answer:
        answer.read()


def read(page):
    return page.evaluate(READ)


def check_lines_match_the_json(page, shown):
    view = current_view(page)
    step = view["params"]["step"]
    weights = view["head"]["weights"][step]
    keys = view["tokens"]["keys"]
    best = max(range(len(keys)), key=lambda j: (weights[j], -j))
    assert shown["rows"][0][0] == keys[best], (shown["rows"], keys, weights)
    assert len(shown["widths"]) == len(keys)
    widest = max(range(len(keys)), key=lambda j: shown["widths"][j])
    assert weights[widest] == max(weights)  # the widest line is the largest weight
    return view


@pytest.mark.parametrize("mode", ["present", "slide"])
def test_the_geometry_panel_fits_a_1280x720_projector_and_steps_with_the_keys(tabs, mode):
    page = tabs(viewport=PROJECTOR).new_page()
    params = {**BANK, "present": "true"}
    if mode == "slide":
        params["slide"] = str(SLIDE)
    open_view(page, params)
    if mode == "present":
        page.locator("#geometry-panel").scroll_into_view_if_needed()
    shown = poll(page, READ, lambda r: r["step"] == "3" and r["traces"] == 2)
    assert shown["symbols"] == ["diamond", "circle-open"]  # keys, queries (the current one: a ring, its word bold)
    assert "bank" in [t["text"] for t in shown["texts"]] and "river" in [t["text"] for t in shown["texts"]]
    assert all(t["size"] >= 14 for t in shown["texts"]), [(t["text"], t["size"]) for t in shown["texts"]]
    assert "%" in shown["note"]  # a projection says how much it keeps
    assert shown["panel"]["width"] <= PROJECTOR["width"]
    if mode == "slide":
        assert shown["panel"]["bottom"] <= PROJECTOR["height"] + 0.5, shown["panel"]
        assert page.locator("#geometry-panel").is_visible() and page.locator("#stage1").is_hidden()
        for text in shown["texts"]:  # every word label inside the screen
            assert text["box"]["left"] >= 0 and text["box"]["right"] <= PROJECTOR["width"] + 0.5, text
            assert text["box"]["top"] >= 0 and text["box"]["bottom"] <= PROJECTOR["height"] + 0.5, text
    view = check_lines_match_the_json(page, shown)
    assert shown["rows"][0][0] == "river"  # bank asks which word tells it what it means
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("ArrowLeft")
    assert poll(page, "location.search", lambda search: "step=2" in search)
    # river asks another head than bank: the page draws the step at once, then the server's view of that head
    view = current_view(page)
    best = max(range(4), key=lambda j: (view["head"]["weights"][2][j], -j))
    shown = poll(page, READ, lambda r: r["step"] == "2" and r["rows"][0][0] == view["tokens"]["keys"][best])
    check_lines_match_the_json(page, shown)


def test_slide_seven_is_the_geometry_panel_and_the_slides_before_it_are_unchanged(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, {**BANK, "present": "true", "slide": "6"})
    expect(page.locator("#alignment-panel")).to_be_visible()
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("ArrowDown")
    poll(page, "location.search", lambda search: f"slide={SLIDE}" in search)
    expect(page.locator("#geometry-panel")).to_be_visible()
    expect(page.locator("#alignment-panel")).to_be_hidden()
    expect(page.locator("#panel-next")).to_be_disabled()


def test_the_plane_toggle_shows_the_words_before_w_q_and_w_k(tabs):
    page = tabs(viewport={"width": 1600, "height": 1000}).new_page()
    open_view(page, BANK)
    expect(page.locator("#plane-toggle")).to_be_visible()
    expect(page.locator("#plane-qk")).to_have_attribute("aria-pressed", "true")
    page.locator("#plane-embedding").click()
    poll(page, "location.search", lambda search: "plane=embedding" in search)
    expect(page.locator("#plane-embedding")).to_have_attribute("aria-pressed", "true")
    view = current_view(page)
    assert view["geometry"]["plane"] == "embedding"
    drawn = poll(page, "document.getElementById('chart-geometry').data[0].x", lambda x: x is not None)
    assert drawn == [point[0] for point in view["geometry"]["keys"]]


def test_the_stretch_moves_the_panel_and_stage_2_together(tabs):
    page = tabs(viewport={"width": 1600, "height": 1000}).new_page()
    exercise = {"q": "1,0;0,1", "k": "1,0;0,1;1,1", "v": "1,2;3,4;5,6", "score": "dot"}
    open_view(page, exercise)
    before = read(page)
    assert before["note"] and "%" not in before["note"]  # drawn as typed: nothing projected
    slider = page.locator("#geometry-stretch")
    slider.fill("3")
    poll(page, "location.search", lambda search: "stretch=3" in search)
    view = current_view(page)
    assert view["geometry"]["keys"] == [[3.0, 0.0], [0.0, 3.0], [3.0, 3.0]]
    stage2 = poll(
        page,
        "document.getElementById('chart-stage2').data[0].z[0]",
        lambda z: z is not None and abs(z[0] - view["head"]["weights"][0][0]) < 1e-12,
    )
    assert max(stage2) > 0.49  # e^9 / (2 e^9 + 1): the softmax near saturation between a and c
    shown = poll(page, READ, lambda r: r["rows"] and r["rows"][0][1] == "9")
    assert shown["rows"][0][:3] == ["k1", "9", "9"]  # q = (3, 0), k1 = (3, 0): q·k = 9, and the dot score is q·k
    page.locator("#geometry-score").select_option("scaled_dot")
    poll(page, "location.search", lambda search: "score" not in search)  # scaled_dot, the default
    expect(page.locator("#score")).to_have_value("scaled_dot")  # the form says the same


HAND = {"q": "1,0;0,1", "k": "1,0;0,1;1,1", "v": "1,2;3,4;5,6", "score": "dot", "query_labels": "q1,q2",
        "key_labels": "a,b,c"}  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_geometry_panel_exercise_score_label_agrees_with_its_select(tabs, lang):
    """The score knob's label named the scaled dot product while its select showed "dot product": the label now names
    the control, and the choice is the select's, in both languages."""
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, {**HAND, "lang": lang})
    knob = page.locator(".geometry-knob[data-knob=score]")
    expect(page.locator("#geometry-score")).to_have_value("dot")
    label = knob.evaluate("(label) => label.firstChild.textContent.trim()")
    form_label = page.locator("label[for=score]").inner_text().strip()
    assert label == form_label, (label, form_label)  # the form's own words: "Score function (stage 1)"
    assert "√" not in label and "scaled" not in label and "缩放" not in label, label
    page.locator("#geometry-score").select_option("scaled_dot")
    poll(page, "location.search", lambda search: "score=dot" not in search)
    assert knob.evaluate("(label) => label.firstChild.textContent.trim()") == form_label


# Every word the panel writes over its plane (whoever draws it: Plotly's text beside a marker, or the page's layers),
# every marker Plotly drew, and the keys the table beside the plane lists, all as boxes on the screen.
LABELS = """() => {
  const box = (node) => node.getBoundingClientRect().toJSON();
  const words = [...document.querySelectorAll(
      '#chart-geometry .textpoint text, #geometry-panel .geometry-layer text, #geometry-panel .geometry-labels text')]
    .filter((node) => node.textContent.trim()).map((node) => ({ text: node.textContent, box: box(node) }));
  const points = [...document.querySelectorAll('#chart-geometry .scatterlayer .point')].map(box);
  const listed = [...document.querySelectorAll('#geometry-lines tbody th')].map((th) => th.textContent);
  return { words, points, listed, step: document.getElementById('geometry-lines').dataset.step,
           drawn: document.querySelector('#geometry-panel svg.geometry-layer').dataset.step };
}"""
MINILM = {"source": "the cat sat on the mat because it was tired", "model": "minilm", "layer": "5", "head": "11"}


def apart(a, b, slack=0.5):
    """Two screen boxes that do not overlap (they may touch, within `slack` px)."""
    return (
        a["right"] <= b["left"] + slack
        or b["right"] <= a["left"] + slack
        or a["bottom"] <= b["top"] + slack
        or b["bottom"] <= a["top"] + slack
    )


@pytest.mark.parametrize(
    ("screen", "params"),
    [
        ("real_model_normal", {**MINILM, "step": "0"}),
        ("real_model_normal_mat", {**MINILM, "step": "6"}),
        ("real_model_presentation", {**MINILM, "step": "6", "present": "true"}),
        ("exercise_normal", HAND),
        ("exercise_slide", {**HAND, "present": "true", "slide": str(SLIDE)}),
    ],
)
def test_geometry_panel_words_never_overlap(tabs, screen, params):
    """MiniLM's layer 5 head 11 on one sentence drew eight words on one spot; an exercise drew q1 on a and c under its
    line. Now no word covers another word or a point, the current query and its strongest key are written, and the
    table under the plane names every point."""
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, params)
    page.locator("#geometry-panel").scroll_into_view_if_needed()
    step = params.get("step", "0")
    shown = poll(page, LABELS, lambda r: r["step"] == step and r["drawn"] == step and r["points"])
    view = current_view(page)
    words = shown["words"]
    texts = [w["text"] for w in words]
    assert view["tokens"]["queries"][int(step)] in texts, texts  # the current query
    assert shown["listed"][0] in texts, (shown["listed"], texts)  # its strongest key
    for i, a in enumerate(words):
        for b in words[i + 1 :]:
            assert apart(a["box"], b["box"]), (screen, a, b)
        for point in shown["points"]:
            assert apart(a["box"], point, slack=1), (screen, a, point)
    if screen.endswith("normal"):  # the table alternative: every query and every key, with its place in the plane
        page.locator("#geometry-panel details.table summary").click()
        rows = poll(page, "[...document.querySelectorAll('#table-geometry tbody th')].map((th) => th.textContent)")
        assert len(rows) == len(view["tokens"]["queries"]) + len(view["tokens"]["keys"])
        for word in view["tokens"]["queries"] + view["tokens"]["keys"]:
            assert any(row.startswith(word + " ") for row in rows), (word, rows)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_geometry_panel_real_model_says_why_it_offers_no_stretch_or_temperature(tabs, lang):
    """The stretch, the temperature and the score are the teaching engine's: a real model's view hides them and says
    why, in the page's language; a teaching-engine view offers them and has no such note."""
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, {**MINILM, "lang": lang})
    note = page.locator("#geometry-knob-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("向量长度" if lang == "zh" else "vector lengths")
    expect(page.locator("#geometry-stretch")).to_be_hidden()
    expect(page.locator("#geometry-temperature")).to_be_hidden()
    open_view(page, {**BANK, "lang": lang})
    expect(page.locator("#geometry-stretch")).to_be_visible()
    expect(note).to_be_hidden()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_geometry_panel_fresh_start_stretch_changes_the_current_row(tabs, lang):
    """The page as it opens (no parameters): the first thing a teacher tries, the panel's vector lengths, changes the
    weights of the current row (before, bank already put 1.0 on river and nothing moved)."""
    page = tabs(viewport={"width": 1600, "height": 1000}).new_page()
    open_view(page, {"lang": lang})
    table = "[...document.querySelectorAll('#geometry-lines tbody tr')].map((tr) => tr.cells[3].textContent)"
    before = poll(page, table)
    page.locator("#geometry-stretch").fill("2")
    poll(page, "location.search", lambda search: "stretch=2" in search)
    after = poll(page, table, lambda weights: weights != before)
    assert abs(float(after[0]) - float(before[0])) >= 0.1, (before, after)
