"""The projector budget: every page a class meets, at the screens a classroom has, in every mode it offers,
with and without a live class running, measured in the drawn page.

For each page (/, /compare, /learn, /live/<code>, /embed, and / on each trained translator in English and in
Chinese) at 1024×768, 1280×720 and 1920×1080:

- the first chart's top is inside the first screen, with at least a third of a screen of chart below it
  (a page without charts, /learn, has its first lesson's link on the first screen instead, and an RNN's
  translation slide its whole table of words);
- in presentation mode (and in slide mode and /embed, which are sized for projecting) no text is drawn
  under 14 px: HTML text by its computed size, SVG text by its size times the SVG's scale on the screen;
- no inner scroll area hides rows: a box that scrolls or clips vertically holds everything it has;
- nothing is clipped: the page does not scroll sideways, no box clips its content sideways, and every
  label of a chart or bar picture lies inside its picture.

One page load per (page, live class), at one of the three screens, then the window resized to the other two, as a
projector plugged in or a window moved to it does; the modes are switched in place at each screen with the page's
own keys (P, S, Esc), as a teacher does. The screen a page is opened at turns from page to page (FIRST_SIZE), so each
screen is met by a fresh page load on four or five pages and by a resize on the others: every state the page
reaches is checked, by both paths to each screen, with a third of the page loads.

A state with a problem is saved as a screenshot in docs/screenshots/budget/ (ignored by git: a run leaves the working
tree as it was), and with BUDGET_SCREENSHOTS=1 every state is, which tests/browser/make_screenshots.py needs (it
copies the README's four). A screenshot costs a few hundred milliseconds and the budget checks about 130 states:
drawing them all is opt-in.

Modes: /, a translator's / and /live/<code> have normal, presentation and slide mode (a translator's view is also
checked on its translation's slide); /compare normal and presentation
(it has no slides); /embed is one panel sized to its frame, plain and in presentation mode; /learn is
a reading page with one mode.
"""

import json
import os
import re

import pytest
from playwright.sync_api import expect

from app.view.presets import PRESETS
from tests.browser.harness import ROOT, poll, settled

SHOTS = ROOT / "docs" / "screenshots" / "budget"
EVERY_SHOT = os.environ.get("BUDGET_SCREENSHOTS") == "1"  # else only the states with a problem
SIZES = {"1024x768": (1024, 768), "1280x720": (1280, 720), "1920x1080": (1920, 1080)}
TRANSLATE = next(p for p in PRESETS if p["id"] == "translate")
COMPARE = "/compare?a.source=I+sat+by+the+river+bank&b.source=I+put+money+in+the+bank"
EMBED = "/embed?source=Tom+chase+Jerry&target=%E6%B1%A4%E5%A7%86+%E8%BF%BD%E9%80%90+%E6%9D%B0%E7%91%9E&step=2&stage=2"
MIN_TEXT_PX = 14

PAGES = {
    "main": ("/?" + "&".join(f"{k}={v}" for k, v in TRANSLATE["params"].items()), ["normal", "present", "slide"]),
    "compare": (COMPARE, ["normal", "present"]),
    "learn": ("/learn", ["normal"]),
    "live": (None, ["normal", "present", "slide"]),  # the student's page of a running class
    "embed": (EMBED, ["normal", "present"]),
}
# The trained translators' views (the translation panel, the Transformer's self-attention and cache, RNNencdec's
# one vector C), in both languages: "mt-<model>-<lang>". The Transformer's is also checked with a class running.
TRANSLATOR_SENTENCE = "I+read+books+in+the+library"
for _model in ("rnnsearch", "transformer-mt", "rnnencdec"):
    for _lang in ("en", "zh"):
        PAGES[f"mt-{_model}-{_lang}"] = (
            f"/?source={TRANSLATOR_SENTENCE}&model={_model}&step=2&lang={_lang}",
            ["normal", "present", "slide", "slide-translation"],
        )
LIVE_TOO = {"main", "mt-transformer-mt-en"}  # pages checked with and without a live class
CASES = [(page, live) for page in PAGES for live in ((False, True) if page in LIVE_TOO else (page == "live",))]
# The screen each case is opened at: the three in turn down the list, then the other two in SIZES' order.
FIRST_SIZE = {case: list(SIZES)[i % len(SIZES)] for i, case in enumerate(CASES)}


def screens(case):
    first = FIRST_SIZE[case]
    return [first, *(size for size in SIZES if size != first)]


# Everything the budget is about, read from the drawn page in one go.
MEASURE = """(minText) => {
  const visible = (e) => {
    if (!e.getClientRects().length) return false;
    const style = getComputedStyle(e);
    return style.visibility !== 'hidden' && style.display !== 'none' && Number(style.opacity) > 0;
  };
  const box = (r) => ({ l: Math.round(r.left), t: Math.round(r.top), r: Math.round(r.right), b: Math.round(r.bottom) });
  const name = (e) => e.id ? `#${e.id}` : `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`;
  const where = (e) => {
    const parts = [];
    for (let n = e; n && parts.length < 3; n = n.parentElement) parts.push(name(n));
    return parts.join(' < ');
  };
  const doc = document.documentElement;
  const charts = [...document.querySelectorAll('.chart')].filter((c) => visible(c) && c.querySelector('.main-svg'))
    .map((c) => ({ id: c.id, ...box(c.getBoundingClientRect()) }));
  const small = [];
  const seen = new Set();
  // HTML text: every element with a text node of its own.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const e = node.parentElement;
    if (!node.textContent.trim() || !e || seen.has(e) || e.closest('svg, script, style, [hidden], .skip')) continue;
    seen.add(e);
    if (!visible(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.right <= 0) continue;
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (size < minText - 0.01) small.push(`${where(e)} "${node.textContent.trim().slice(0, 20)}" ${size.toFixed(1)}px`);
  }
  // SVG text: its font size times the picture's scale on the screen.
  for (const e of document.querySelectorAll('svg text')) {
    if (!e.textContent.trim() || !visible(e) || e.closest('[hidden]')) continue;
    const matrix = e.getScreenCTM();
    const scale = matrix ? Math.hypot(matrix.a, matrix.b) : 1;
    const size = parseFloat(getComputedStyle(e).fontSize) * scale;
    if (size < minText - 0.01) small.push(`${where(e)} "${e.textContent.trim().slice(0, 20)}" ${size.toFixed(1)}px`);
  }
  // Boxes that scroll or clip: vertically they must hold what they have; sideways, clip nothing.
  const hiding = [];
  const clipped = [];
  for (const e of document.querySelectorAll('body *')) {
    if (!visible(e) || e.closest('svg') || e.matches('textarea, select, input, .controls, .help')) continue;
    if (e.clientWidth <= 1 || e.clientHeight <= 1) continue; // text for screen readers only
    const style = getComputedStyle(e);
    if (style.overflowY !== 'visible' && e.scrollHeight > e.clientHeight + 2 && e.clientHeight > 0) {
      hiding.push(`${where(e)} shows ${e.clientHeight} of ${e.scrollHeight} px (${style.overflowY})`);
    }
    if ((style.overflowX === 'hidden' || style.overflowX === 'clip') && e.scrollWidth > e.clientWidth + 2) {
      clipped.push(`${where(e)} clips ${e.scrollWidth - e.clientWidth} px sideways`);
    }
  }
  // Labels of pictures: inside their picture (Plotly's main SVG, a bar or alignment picture).
  for (const e of document.querySelectorAll('.main-svg text, .bars svg text, .cell-values text')) {
    if (!e.textContent.trim() || !visible(e)) continue;
    const picture = e.closest('.cell-values') ? e.closest('.chart-wrap') : e.closest('svg');
    const p = picture.getBoundingClientRect();
    const r = e.getBoundingClientRect();
    if (r.width && (r.left < p.left - 1 || r.right > p.right + 1 || r.top < p.top - 1 || r.bottom > p.bottom + 1)) {
      const text = e.textContent.slice(0, 20);
      clipped.push(`${where(e)} "${text}" ${JSON.stringify(box(r))} outside ${JSON.stringify(box(p))}`);
    }
  }
  if (doc.scrollWidth > doc.clientWidth) clipped.push(`the page scrolls sideways: ${doc.scrollWidth} px`);
  const firstLink = document.querySelector('.lessons a');
  const words = document.querySelector('.current-panel .mt-words table');
  return { charts, small, hiding, clipped, innerHeight, scrollY,
    firstLink: firstLink ? box(firstLink.getBoundingClientRect()) : null,
    words: words && visible(words) ? box(words.getBoundingClientRect()) : null,
    ready: document.body.dataset.ready };
}"""


@pytest.fixture(scope="module")
def room(app_server):
    """One live class for the whole matrix: started through the API as the teacher's page starts it."""
    import httpx

    view = "&".join(f"{k}={v}" for k, v in TRANSLATE["params"].items())
    answer = httpx.post(app_server.base + "/api/rooms", json={"view": view}, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()


def wait_drawn(page, kind):
    if kind == "learn":  # a reading page: no script, no charts
        return
    page.locator("body[data-ready=true]").wait_for(state="attached")
    # every displayed chart drawn at its box's current width, and no redraw scheduled (main.js's watchSizes)
    poll(
        page,
        """() => !document.querySelector('[data-pending]')
              && [...document.querySelectorAll('.chart')].filter((c) => c.offsetParent !== null)
              .every((c) => { const s = c.querySelector('.main-svg');
                              return s && Math.abs(parseFloat(s.getAttribute('width')) - c.clientWidth) <= 1; })""",
    )
    settled(page)  # the frame after the last redraw (outlines, values)


def switch(page, kind, mode):
    """Put the page in `mode` from normal mode, with the page's own keys."""
    body = page.locator("body")
    if mode == "present":
        page.keyboard.press("p")
        expect(body).to_have_class(re.compile(r"\bpresent\b"))
    elif mode == "slide":
        page.keyboard.press("s")
        expect(body).to_have_class(re.compile(r"\bslides\b"))
    elif mode == "slide-translation":  # a translator's last slide: the translation (↓ from the slide shown)
        if "slides" not in (body.get_attribute("class") or "").split():
            page.keyboard.press("s")
            expect(body).to_have_class(re.compile(r"\bslides\b"))
        for _ in range(8):
            page.keyboard.press("ArrowDown")
        expect(page.locator("#translation-panel.current-panel")).to_be_visible()


def leave(page, mode):
    body = page.locator("body")
    if mode == "present":
        page.keyboard.press("p")
        expect(body).not_to_have_class(re.compile(r"\bpresent\b"))
    elif mode.startswith("slide"):
        page.keyboard.press("Escape")
        expect(body).not_to_have_class(re.compile(r"\bslides\b"))


def check(found, kind, mode, where):
    problems = []
    height = found["innerHeight"]
    if found["charts"]:
        first = min(found["charts"], key=lambda c: c["t"])
        budget = height - min(first["b"] - first["t"], height // 3)
        if not 0 <= first["t"] <= budget:
            problems.append(f"first chart {first['id']} starts {first['t']} px down (budget {budget} px)")
    elif kind == "learn":
        if not found["firstLink"] or found["firstLink"]["b"] > height:
            problems.append(f"the first lesson's link is off the first screen: {found['firstLink']}")
    elif mode == "slide-translation":  # an RNN's translation: a slide of its words' table, every row on the screen
        if not found["words"] or found["words"]["b"] > height:
            problems.append(f"the words' table is not whole on the slide: {found['words']}")
    else:
        problems.append("no chart is drawn")
    if mode != "normal" or kind == "embed":
        problems += [f"text under {MIN_TEXT_PX} px: {s}" for s in found["small"][:8]]
    problems += [f"inner scroll hides rows: {s}" for s in found["hiding"][:8]]
    problems += [f"clipped: {s}" for s in found["clipped"][:8]]
    return [f"{where}: {p}" for p in problems]


def resize(page, kind, size):
    """The window made `size`, as a projector plugged in makes it: wait until the page sees the new size, then until
    every chart is drawn again at its new box (main.js's watchSizes)."""
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    poll(page, f"() => innerWidth === {width} && innerHeight === {height}")
    settled(page)  # the resize event and the observers' redraws scheduled
    wait_drawn(page, kind)


@pytest.mark.parametrize(
    ("kind", "live"),
    CASES,
    ids=[
        f"{kind}-{'-'.join(screens((kind, live)))}-{'+'.join(PAGES[kind][1])}-{'live' if live else 'no-class'}"
        for kind, live in CASES
    ],
)
def test_projector_budget(tabs, fresh_context, room, kind, live):
    first, *others = screens((kind, live))
    width, height = SIZES[first]
    teacher = live and kind != "live"
    context = (fresh_context if teacher else tabs)(viewport={"width": width, "height": height})
    if teacher:  # the teacher's tab drives the room (the page keeps it in sessionStorage)
        saved = json.dumps(json.dumps(room))
        context.add_init_script(f"try {{ sessionStorage.setItem('attention-lens:live-room', {saved}); }} catch {{}}")
    page = context.new_page()
    path, modes = PAGES[kind]
    page.goto(f"/live/{room['code']}" if kind == "live" else path)
    wait_drawn(page, kind)
    if teacher:
        expect(page.locator("#live-panel")).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems = []
    for size in [first, *others]:
        if size != first:
            resize(page, kind, size)
        for mode, after in zip(modes, [*modes[1:], None], strict=True):
            switch(page, kind, mode)
            wait_drawn(page, kind)
            how = "opened" if size == first else "resized"
            where = f"{kind} {size} ({how}) {mode}{' live' if live else ''}"
            found = page.evaluate(MEASURE, MIN_TEXT_PX)
            here = check(found, kind, mode, where)
            problems += here
            if here or EVERY_SHOT:
                name = f"{kind}-{size}-{mode}{'-live' if live else ''}"
                page.screenshot(path=str(SHOTS / f"{name}.png"))
                first_top = min((c["t"] for c in found["charts"]), default=None)  # the first chart's top, px (README)
                (SHOTS / f"{name}.top").write_text(f"{first_top}\n", encoding="utf-8")
            if not (mode == "slide" and after == "slide-translation"):  # on to the translation's slide in place
                leave(page, mode)
    assert not problems, "\n".join(problems)
