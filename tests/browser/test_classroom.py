"""A teacher's walk through the screens, in front of a class: a live class in presentation and slide mode,
the examples menu, the follow link of a Chinese class, and the small things a room notices.

Each test's name says the screen and the mode it is about.
"""

import re

from playwright.sync_api import expect

from app.view.presets import PRESETS
from tests.browser.harness import open_view, page_data, poll, settled, url_params

PROJECTOR = {"width": 1280, "height": 720}
SMALL_PROJECTOR = {"width": 1024, "height": 768}
TOY_PRESETS = [p for p in PRESETS if "model" not in p["params"]]


def start_class(page):
    page.locator("#live-start").click()
    expect(page.locator("#live-panel")).to_be_visible()
    expect(page.locator("#live-code")).to_have_text(re.compile(r"^\w{8}$"))


def whole_rows_on_screen(page, chart):
    """Whether every row of `chart`'s cells is drawn inside the window."""
    return page.evaluate(
        """(id) => { const image = document.querySelector(`#${id} .heatmaplayer image`);
             if (!image) return false;
             const r = image.getBoundingClientRect();
             return r.top >= 0 && r.bottom <= innerHeight + 0.5; }""",
        chart,
    )


def test_live_class_at_1280x720_in_presentation_and_slide_mode(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, {"source": "walk by river bank", "present": "true"})
    start_class(page)
    expect(page.locator("#live-status")).to_have_text("live")  # not "Computing…" for good
    panel = page.locator("#live-panel").bounding_box()
    assert panel["height"] <= 0.3 * PROJECTOR["height"], f"the live panel takes {panel['height']} px"
    top = page.locator("#chart-stage1").bounding_box()["y"]
    assert top <= PROJECTOR["height"] / 2, f"the first heatmap starts {top} px down under the live panel"
    fold = page.locator("#live-fold")
    expect(fold).to_have_attribute("aria-expanded", "true")
    fold.click()  # the panel folds to one line: the code and its buttons
    expect(fold).to_have_attribute("aria-expanded", "false")
    expect(page.locator("#live-qr")).to_be_hidden()
    expect(page.locator("#live-code")).to_be_visible()
    assert page.locator("#live-panel").bounding_box()["height"] <= 60
    fold.click()
    expect(page.locator("#live-qr img")).to_be_visible()

    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("s")
    poll(page, "location.search", lambda search: "slide=1" in search)
    expect(page.locator("#live-code")).to_be_visible()  # the class still sees the code
    poll(page, "document.querySelector('#chart-stage1 .heatmaplayer image') !== null", bool)
    for slide in ("1", "2", "3"):
        chart = f"chart-stage{slide}"
        poll(
            page,
            f"(() => {{ const c = document.getElementById('{chart}'); const s = c.querySelector('.main-svg');"
            " return s && Math.abs(parseFloat(s.getAttribute('width')) - c.clientWidth) <= 1; })()",
            bool,
        )
        assert whole_rows_on_screen(page, chart), f"slide {slide}: rows of {chart} fall below the screen"
        bottom = page.evaluate(f"document.getElementById('stage{slide}').getBoundingClientRect().bottom")
        assert bottom <= PROJECTOR["height"] + 0.5, f"slide {slide} ends at {bottom} px"
        page.keyboard.press("ArrowDown")


def test_examples_menu_clears_computing_at_1280x720_in_presentation_mode(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, {"source": "walk by river bank", "present": "true"})
    for preset in TOY_PRESETS:
        page.locator("#preset").select_option(preset["id"])
        page.locator("body[data-ready=true]").wait_for(state="attached")
        expect(page.locator("#preset")).to_have_value(preset["id"])
        expect(page.locator("#status")).to_have_text("")
        assert "present=true" in page.url, f"{preset['id']}: presentation mode stays on"


def test_follow_link_of_a_chinese_class_at_1280x720_normal_mode(tabs, fresh_context):
    teacher = tabs(viewport=PROJECTOR, locale="zh-CN").new_page()
    open_view(teacher, {"source": "walk by river bank", "lang": "zh"})
    start_class(teacher)
    link = teacher.locator("#live-link").get_attribute("href")
    assert link.endswith("?lang=zh"), f"the follow link carries the teacher's language: {link}"
    assert teacher.locator("#live-qr img").get_attribute("src").endswith("?lang=zh")
    student = fresh_context(viewport=PROJECTOR).new_page()  # another browser, an English one
    student.goto(link)
    student.locator("body[data-ready=true]").wait_for(state="attached")
    expect(student.locator("html")).to_have_attribute("lang", "zh-CN")
    teacher.evaluate("document.activeElement && document.activeElement.blur()")
    teacher.keyboard.press("ArrowRight")
    poll(student, "document.getElementById('step-label').textContent", lambda text: "2" in text and "第" in text)
    expect(student.locator("html")).to_have_attribute("lang", "zh-CN")


def test_leaving_slides_with_escape_at_1280x720_slide_mode_keeps_the_link(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, {"source": "walk by river bank"})
    page.keyboard.press("s")
    for slide in ("2", "3", "4", "5"):
        page.keyboard.press("ArrowDown")
        poll(page, "location.search", lambda search, s=slide: f"slide={s}" in search)
    page.keyboard.press("Escape")
    poll(page, "location.search", lambda search: "slide" not in search)
    assert "stage" not in url_params(page), f"leaving slides adds nothing to the link: {page.url}"


def test_embed_of_a_slide_at_1280x720_slide_mode_has_no_slide_buttons(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, "/embed?source=walk+by+river+bank&slide=4")
    expect(page.locator("#arithmetic-panel")).to_be_visible()
    expect(page.locator(".slide-nav")).to_be_hidden()


def test_tab_on_a_button_at_1280x720_compare_normal_mode_moves_focus_not_panes(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    page.goto("/compare?a.source=I+sat+by+the+river+bank&b.source=I+put+money+in+the+bank")
    page.locator("body[data-ready=true]").wait_for(state="attached")
    page.locator("#present-toggle").focus()
    page.keyboard.press("Tab")
    # The focus moved on: the page's Tab handler did not take the key (switching panes, it prevents the move)
    expect(page.locator("#copy-link")).to_be_focused()
    assert "pane=b" not in page.url, "Tab on a button moves the focus on"
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Tab")  # on no control: Tab switches the pane
    poll(page, "location.search", lambda search: "pane=b" in search)


def test_chinese_errors_and_words_at_1280x720_normal_mode(tabs, watch):
    watch.allow(r"status of 422")
    page = tabs(viewport=PROJECTOR, locale="zh-CN").new_page()
    open_view(page, {"source": "walk by river bank", "lang": "zh"})
    options = page.locator("#score option").all_text_contents()
    assert not [o for o in options if re.search(r"\bgeneral\b", o)], f"score names in Chinese: {options}"
    titles = page.locator("#preset option").all_text_contents()
    assert not [o for o in titles if o.startswith("general")], titles
    box = page.locator("#source")
    box.fill(" ".join(["word"] * 130))
    error = page.locator("#source-error")
    expect(error).to_have_text(re.compile("128"))
    assert not error.inner_text().startswith("source"), f"a Chinese message: {error.inner_text()}"


def test_a_500_word_paste_at_1280x720_normal_mode_says_why(tabs, watch):
    watch.allow(r"status of 422")
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, {"source": "walk by river bank"})
    box = page.locator("#source")
    box.fill("")
    box.focus()
    page.keyboard.insert_text(" ".join(["river"] * 500))  # as a paste
    assert len(box.input_value()) == len(" ".join(["river"] * 500)), "nothing pasted is cut off silently"
    expect(page.locator("#source-error")).to_have_text(re.compile("1000|128"))
    assert page_data(page)["view"]["tokens"]["queries"][-1] == "bank", "the last valid view stays"


LONG = (
    "on Monday morning the old teacher walked slowly along the river bank while the children played near the "
    "water and the birds sang in the tall trees above the quiet village where a small dog ran after a red ball "
    "that rolled down the hill toward the bridge and two fishermen sat waiting for the fish to bite as the sun "
    "rose over the fields"
)  # 65 words: every other row label is written


def test_a_long_input_at_1280x720_normal_mode_names_the_outlined_row(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    words = LONG.split()
    for step in (1, 3, 7, 30):
        open_view(page, {"source": LONG, "step": str(step)})
        found = page.evaluate(
            """() => {
              const chart = document.getElementById('chart-stage2');
              const outline = chart.parentElement.querySelector('.outline').getBoundingClientRect();
              const middle = (outline.top + outline.bottom) / 2;
              const own = chart.parentElement.querySelectorAll('.row-label');
              const labels = [...chart.querySelectorAll('.ytick text'), ...own]
                .filter((e) => !e.hidden && getComputedStyle(e).visibility !== 'hidden' && e.getClientRects().length)
                .map((e) => {
                  const r = e.getBoundingClientRect();
                  return { text: e.textContent, middle: (r.top + r.bottom) / 2, top: r.top, bottom: r.bottom };
                });
              labels.sort((a, b) => Math.abs(a.middle - middle) - Math.abs(b.middle - middle));
              return { nearest: labels[0], next: labels[1], rowHeight: outline.height };
            }"""
        )
        nearest, other = found["nearest"], found["next"]
        assert nearest["text"] == words[step], f"step {step} ({words[step]}): the label beside its row reads {found}"
        assert other["top"] >= nearest["bottom"] or other["bottom"] <= nearest["top"], f"labels overlap: {found}"


PRONOUN = next(p for p in PRESETS if p["id"] == "pronoun")


def test_the_arithmetic_slide_at_1280x720_slide_mode_holds_every_row(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, {**PRONOUN["params"], "slide": "4"})
    expect(page.locator("#arithmetic-panel")).to_be_visible()
    page.locator("#arithmetic table.arith tfoot").wait_for()
    found = page.evaluate(
        """() => { const slot = document.getElementById('arithmetic');
             const rows = [...slot.querySelectorAll('table.arith tbody tr, table.arith tfoot tr')];
             const last = rows[rows.length - 1].getBoundingClientRect();
             return { scroll: slot.scrollHeight, client: slot.clientHeight, rows: rows.length,
                      lastBottom: last.bottom, font: parseFloat(getComputedStyle(slot).fontSize) }; }"""
    )
    assert found["scroll"] <= found["client"] + 1, f"the arithmetic scrolls inside its slide: {found}"
    assert found["lastBottom"] <= PROJECTOR["height"], f"the sum row is off the screen: {found}"
    assert found["font"] >= 14, found
    page.keyboard.press("ArrowDown")  # the weights
    poll(page, "location.search", lambda search: "slide=5" in search)
    poll(page, "document.querySelector('#chart-bars svg') !== null", bool)
    widths = page.evaluate(
        "[document.querySelector('#chart-bars svg').getBoundingClientRect().width,"
        " document.getElementById('bars-panel').clientWidth]"
    )
    assert widths[0] >= 0.85 * widths[1], f"the weights slide uses {widths[0]} of {widths[1]} px"


def cell_value_sizes(page, stage):
    return page.evaluate(
        """(n) => [...document.querySelectorAll(`#stage${n} .cell-values:not([hidden]) text`)]
              .map((t) => parseFloat(t.parentElement.getAttribute('font-size')))""",
        stage,
    )


SEVEN = "I sat by the river bank today"  # tiny weights (2.6e-5) make two significant digits wide


def test_numbers_in_the_cells_at_1024x768_presentation_mode(tabs):
    page = tabs(viewport=SMALL_PROJECTOR).new_page()
    for source, n in (("walk by river bank", 4), (SEVEN, 7), ("the dog chased the cat up a tree", 8)):
        open_view(page, {"source": source, "present": "true"})
        for stage in (1, 2):
            sizes = cell_value_sizes(page, stage)
            assert len(sizes) == n * n and min(sizes) >= 14, (
                f"{source}, stage {stage}: values at 14 px or more: {sizes}"
            )


def test_numbers_of_a_typed_7_word_sentence_at_1280x720_normal_mode(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, {"source": "walk by river bank"})
    page.locator("#source").fill(SEVEN)
    poll(page, "location.search", lambda search: "today" in search)
    page.locator("#stage1 .cell-values text").first.wait_for()
    for stage in (1, 2):
        sizes = cell_value_sizes(page, stage)
        assert len(sizes) == 49, f"stage {stage}: a number in every cell ({len(sizes)} of 49)"


def test_compare_at_1280x720_presentation_mode_fits_a_projector(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    page.goto("/compare?a.source=I+sat+by+the+river+bank&b.source=I+put+money+in+the+bank&present=true")
    page.locator("body[data-ready=true]").wait_for(state="attached")
    top = page.locator("#chart-a").bounding_box()["y"]
    assert top <= 0.25 * PROJECTOR["height"], f"the heatmaps start {top} px down"
    sizes = page.evaluate(
        "[...document.querySelectorAll('.cell-values:not([hidden])')]"
        ".map((s) => parseFloat(s.getAttribute('font-size')))"
    )
    assert sizes and min(sizes) >= 14, f"cell numbers: {sizes}"
    clipped = page.evaluate(
        """() => [...document.querySelectorAll('.bars svg text')].filter((t) => {
             const r = t.getBoundingClientRect(), p = t.closest('svg').getBoundingClientRect();
             return r.left < p.left - 1 || r.right > p.right + 1; }).map((t) => t.textContent)"""
    )
    assert not clipped, f"bar labels clipped: {clipped}"
    page.locator("#preset").select_option("scaling")
    page.locator("body[data-ready=true]").wait_for(state="attached")
    poll(page, "location.search", lambda search: "scaling" not in search and "dim=64" in search)
    assert "present=true" in page.url, "an example keeps presentation mode"
    expect(page.locator("body")).to_have_class(re.compile(r"\bpresent\b"))


PHONE = {"width": 390, "height": 844}


def test_phone_390x844_normal_mode(tabs):
    page = tabs(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    open_view(page, {**PRONOUN["params"]})
    top = page.locator("#chart-stage1").bounding_box()["y"]
    assert top < PHONE["height"] * 0.6, f"the first heatmap starts {top} px down"
    region = page.evaluate(
        "(() => { const r = document.querySelector('#arithmetic .fit'); return [r.scrollWidth, r.clientWidth]; })()"
    )
    assert region[0] <= region[1] + 1, f"the arithmetic scrolls sideways: {region}"
    small = page.evaluate(
        """() => [...document.querySelectorAll('.tools a, .tools button')].filter((e) => e.getClientRects().length)
             .map((e) => [e.textContent.trim(), e.getBoundingClientRect().height]).filter(([, h]) => h < 44)"""
    )
    assert not small, f"tap targets under 44 px: {small}"
    page.goto("/learn")
    heights = page.locator(".lessons a").evaluate_all("(links) => links.map((a) => a.getBoundingClientRect().height)")
    assert min(heights) >= 44, f"'Open this view' links: {sorted(heights)[:3]}"


def test_whole_model_statistics_at_1280x720_normal_and_presentation_mode(tabs):
    page = tabs(viewport=PROJECTOR).new_page()
    open_view(page, {"source": "the animal did not cross the street", "model": "minilm", "layer": "3"}, timeout=60_000)
    for mode in ("normal", "presentation"):
        region = page.locator("#summary-table .scroll")
        region.scroll_into_view_if_needed()
        widths = region.evaluate("(r) => [r.scrollWidth, r.clientWidth, r.querySelectorAll('thead th').length]")
        assert widths[0] <= widths[1] + 1, f"{mode}: the statistics table is cut ({widths[0]} of {widths[1]} px shown)"
        assert widths[2] == 13, f"{mode}: a column for each of the 12 heads: {widths}"
        if mode == "normal":
            page.keyboard.press("p")
            expect(page.locator("body")).to_have_class(re.compile(r"\bpresent\b"))
            settled(page)  # the redraws the larger type asked for
