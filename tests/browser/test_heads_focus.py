"""The head in focus answers the step: a teacher's own sentence, stepped with the arrow keys.

With no head in the link each step shows the head whose question its word asks, says so in one
sentence, and every head's row for the word is drawn side by side; choosing a head keeps it in the
link, and one button goes back.
"""

import pytest
from playwright.sync_api import expect

from app.view.i18n import STRINGS
from tests.browser.harness import count_draws, current_view, draws, open_view, poll, url_params

SENTENCE = "the boy fell because he was tired"  # written for the tests, in no preset


def test_each_step_shows_the_head_its_word_asks_at_1280x720(page):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_view(page, {"source": SENTENCE})
    expect(page.locator("#head-question")).to_have_text(
        "“the” asks Head 6 (describes): Which noun do I describe? (an adjective, a number or a word like my, the, "
        "this asks for the next noun)"
    )
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    expect(page.locator("#head-question")).to_contain_text("“he” asks Head 2 (pronoun)")
    expect(page.locator("#step-label")).to_contain_text("Head 2")
    assert url_params(page).get("step") == "4" and "head" not in url_params(page)
    view = current_view(page)
    assert view["named_head"]["name"] == "pronoun"
    # the stage-2 heatmap shows the pronoun head: he's row puts its largest weight on boy
    weights = poll(page, "() => document.getElementById('chart-stage2').data[0].z[4]", lambda z: z and max(z) > 0.9)
    assert weights.index(max(weights)) == 1
    # every head's row for "he", one row per head, labelled with the heads' names
    rows = poll(page, "() => document.getElementById('chart-every-head').data?.[0].y.length", lambda n: n == 8)
    assert rows == 8
    labels = page.evaluate(
        "() => [...document.querySelectorAll('#chart-every-head .ytick text')].map((e) => e.textContent)"
    )
    assert labels[1] == "2 pronoun ◀" and labels[0] == "1 sense"


def test_a_step_to_another_head_redraws_only_the_charts_that_change(page):
    """Another head's view (a new answer from the server) changes the stages and every head's row, not the input
    vectors: their chart is left as it is, not drawn again with the same numbers."""
    count_draws(page)
    open_view(page, {"source": SENTENCE})
    expect(page.locator("#head-question")).to_contain_text("asks Head 6")
    before = poll(page, "() => window.__draws", lambda d: d.get("chart-embeddings"))  # drawn after the stages
    page.keyboard.press("ArrowRight")
    expect(page.locator("#head-question")).to_contain_text("“boy” asks Head 8 (verb)")
    poll(page, "() => window.__draws", lambda d: d["chart-stage2"] > before["chart-stage2"])  # the new head's view
    page.evaluate("() => new Promise((done) => setTimeout(done, 0))")  # the input vectors are drawn a task later
    after = draws(page)
    assert after["chart-embeddings"] == before["chart-embeddings"] == 1, (before, after)
    assert all(after[f"chart-stage{n}"] == before[f"chart-stage{n}"] + 1 for n in (1, 2, 3)), (before, after)


def test_a_chosen_head_stays_in_the_link_and_one_button_goes_back(page):
    open_view(page, {"source": SENTENCE, "head": "3", "step": "2"})
    expect(page.locator("#head-question")).to_contain_text("Head 4 (doer) asks")
    expect(page.locator("#heads-auto")).to_be_visible()
    page.keyboard.press("ArrowRight")
    poll(page, "() => location.search", lambda q: "step=3" in q)
    assert url_params(page).get("head") == "3"
    expect(page.locator("#head-question")).to_contain_text("Head 4 (doer) asks")
    page.locator("#heads-auto").click()
    poll(page, "() => location.search", lambda q: "head=" not in q)
    expect(page.locator("#head-question")).to_contain_text("“because” asks Head 8 (verb)")
    expect(page.locator("#heads-auto")).to_be_hidden()


def test_tiny_weights_read_as_less_than_a_thousandth_and_the_colours_say_what_bright_means(page):
    open_view(page, {"source": SENTENCE, "step": "4"})
    pairs = page.locator("#pairs").inner_text()
    assert "(boy, 1)" in pairs or "(boy, 0.99)" in pairs, pairs
    assert "< 0.001" in pairs and "e-" not in pairs, pairs
    expect(page.locator("#stage2 .scale-note")).to_have_text("Colour: brighter = more weight (0 to 1).")


def test_words_the_lexicon_lacks_are_listed_with_their_guessed_roles(page):
    open_view(page, {"source": "the zorbling cat quizzically blorped"})
    expect(page.locator("#unknown")).to_contain_text("zorbling → verb (ending -ing)")
    expect(page.locator("#unknown")).to_contain_text("quizzically → adverb (ending -ly)")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_unknown_word_notes_self_attention_each_a_sentence_on_its_own_line(page, lang):
    """Two notes about the same unknown word ran together ("…hashed vectors): mat Not in the lexicon; role guessed:
    …"): each is now a sentence of its own, ended in the page's language, on a line of its own."""
    strings = STRINGS[lang]
    open_view(page, {"source": "the cat sat on the mat", "lang": lang})
    notes = page.locator("#unknown")
    expect(notes).to_be_visible()
    lines = [line for line in notes.inner_text().split("\n") if line.strip()]
    assert len(lines) == 2, lines
    assert lines[0].startswith(strings["unknown"]) and "mat" in lines[0], lines
    assert lines[1].startswith(strings["guessed"]) and "mat → " in lines[1], lines
    assert all(line.endswith(strings["sentence_end"]) for line in lines), lines
    assert "： " not in notes.inner_text(), lines  # no space after a full-width colon
    text = notes.text_content()  # read as one text (a screen reader, a copy): the sentences stay apart
    assert f"mat{strings['sentence_end']} {strings['guessed']}" in text, text


def test_a_translation_reads_bank_in_its_sentence_in_chinese(page):
    open_view(page, {"source": "we sat on the river bank", "target": "我们 坐 在 河岸 上", "lang": "zh", "step": "3"})
    expect(page.locator("#unknown")).to_contain_text("bank → 河岸")
    expect(page.locator("#head-question")).to_contain_text("“河岸”问头 1 (counterpart)")


def test_the_minilm_note_about_chinese_shows_only_for_chinese(page):
    view = open_view(page, {"source": "the bank of the river", "model": "minilm"})
    assert view.status == 200
    expect(page.locator("#model-note")).to_have_text("")
    open_view(page, {"source": "我在河边", "model": "minilm"})
    expect(page.locator("#model-note")).to_contain_text("Chinese")


def test_w_o_is_said_in_words_for_the_named_heads_and_drawn_when_it_is_small(page):
    """The named heads' W_O averages them: a sentence, not the numbers (the answer leaves them out). A random
    W_O small enough to read (2 heads over 8 hashed dimensions: d_model x d_model, at most 32 rows) is drawn with
    the other matrices."""
    open_view(page, {"source": SENTENCE})
    expect(page.locator("#matrices p.formula").last).to_have_text(
        "W_O averages the heads: output = (head 0 + … + head 7) / 8."
    )
    assert current_view(page)["parameters"] == {}
    open_view(page, {"source": SENTENCE, "projection": "random", "heads": "2", "embedding": "hash", "dim": "8"})
    w_o = page.locator("#matrices table").filter(has=page.locator("caption", has_text="W_O"))
    expect(w_o).to_have_count(1)
    view = current_view(page)
    assert len(view["parameters"]["W_O"]) == view["d_model"] <= 32
    expect(w_o.locator("tbody th").first).to_have_text("h0·0")  # rows: head 0's first value column, ...


def test_a_large_matrix_is_written_when_the_reader_scrolls_near_it_with_the_views_numbers(page):
    """A 64-dimensional head's matrices (thousands of cells, far below the first screen) are written when the reader
    scrolls within a screen of them, cell for cell the view's numbers; until then their boxes keep about the tables'
    height, so nothing below them jumps when they are written."""
    open_view(page, {"source": "walk by river bank", "embedding": "hash", "dim": "64", "projection": "random"})
    view = current_view(page)
    boxes = page.locator("#matrices figure.matrix .scroll")
    expect(boxes).to_have_count(3)  # W_Q, W_K, W_V (scaled dot product has no parameters of its own)
    assert page.locator("#matrices td").count() == 0, "written before the reader came near"
    waiting = [boxes.nth(i).bounding_box()["height"] for i in range(3)]
    page.locator("#matrices-panel").scroll_into_view_if_needed()
    expect(page.locator("#matrices table.grid")).to_have_count(3)
    for i, name in enumerate(("W_Q", "W_K", "W_V")):
        z = [row for row in view["head"]["parameters"][name] if any(x != 0 for x in row)]
        grid = boxes.nth(i).locator("table.grid")
        expect(grid.locator("caption")).to_have_text(name)
        assert grid.locator("td").count() == len(z) * len(z[0])
        first_row = grid.locator("tbody tr").first.locator("td").all_inner_texts()
        assert [float(text) for text in first_row] == pytest.approx(z[0], rel=0.05, abs=5e-4), name  # 2 digits
        written = boxes.nth(i).bounding_box()["height"]
        assert abs(waiting[i] - written) <= 0.25 * written, (name, waiting[i], written)
