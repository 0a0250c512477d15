"""A lesson's claim is checked on the view its link opens, as a class sees it.

tests/test_claims.py checks the engine's numbers; here each lesson of /learn (and each ready-made
comparison) is opened in Chromium through its own link, and its words are checked against what the page
shows at the step, head and stage it opens on: the step's query word, the head, the weights of the
arithmetic table (written to four digits, compared to the lesson's two), the × of hidden keys in the
stage in focus, a range of scores against every score shown, and the column labels do not overlap.
A claim about another head or step must have a link of its own beside the lesson that opens on it.
"""

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from app.view.compare import COMPARE_PRESETS, compare_presets_for
from app.view.lessons import LESSONS, lessons_for
from app.view.presets import PRESETS, preset_numbers
from tests.browser.harness import arithmetic_rows, current_view, open_tables, open_view, page_data

PROJECTOR = {"width": 1280, "height": 720}
BY_ID = {preset["id"]: preset for preset in PRESETS}
SINGLE = [(index, lesson) for index, lesson in enumerate(LESSONS) if "preset" in lesson]
NUMBER = r"−?-?\d+(?:\.\d+)?"


def quoted(lesson):
    """Indices of the example's claims whose numbers the lesson's text quotes ({key1}, {weight1}...)."""
    return sorted({int(n) for n in re.findall(r"\{[a-z]+(\d+)\}", lesson["text"]["en"])})


def link_params(link):
    return {name: values[-1] for name, values in parse_qs(urlsplit(link).query).items()}


def link_head(params):
    """The head a link names (None: each step shows the head its word asks)."""
    return int(params["head"]) if "head" in params else None


def shows(link, head, step, layer=None):
    params = link_params(link)
    same_layer = layer is None or int(params.get("layer", 0)) == layer
    return link_head(params) == head and int(params.get("step", 0)) == step and same_layer


def norm_rows(page):
    """The step's weight × value norm table under the arithmetic (attribution=norm) as {column: text}, or []."""
    return page.evaluate(
        """() => {
          const table = document.querySelector('#arithmetic table.arith-norms');
          if (!table) return [];
          const heads = [...table.tHead.rows[0].cells].map((c) => c.textContent);
          return [...table.tBodies[0].rows].map((row) =>
            Object.fromEntries([...row.cells].map((cell, i) => [i === 0 ? 'key' : heads[i], cell.textContent])));
        }"""
    )


def shown_view(page):
    """What the opened page shows: its step's query word and head (from the step label), the stage in focus,
    and the arithmetic table's weights (key -> the four digits written)."""
    label = page.locator("#step-label").inner_text()
    head = re.search(r"Head (\d+)", label)
    weights, shares, norms = {}, {}, {}
    for row in arithmetic_rows(page):
        text = row["weight"].split(" ")[0]
        weights.setdefault(row["key"], []).append(float(text))
    for row in norm_rows(page):  # weight × value norm (Kobayashi et al. 2020): the key's share, its norm
        shares.setdefault(row["key"], []).append(float(row["share of Σ"]))
        norms.setdefault(row["key"], []).append(float(row["‖v W_O‖"]))
    return {
        "label": label,
        "query": re.search(r"“(.*?)”", label).group(1),
        "head": (int(head.group(1)) - (1 if "Layer" not in label else 0)) if head else 0,  # named heads from 1
        "stage": page.evaluate("document.body.dataset.stage"),
        "weights": weights,
        "shares": shares,
        "norms": norms,
    }


def two(value):
    return f"{value:.2f}"


def check_claim(claim, filled, index, seen, where):
    """The claim's words (filled into the lesson) against the numbers the page shows."""
    largest = max(w for ws in seen["weights"].values() for w in ws)
    best = [key for key, ws in seen["weights"].items() if largest in ws]
    if f"query{index}" in filled:
        assert seen["query"] == filled[f"query{index}"], f"{where}: the lesson's word is not the step shown: {seen}"
    if claim.kind == "top":
        assert filled[f"key{index}"] in best, f"{where}: names {filled[f'key{index}']}, the page shows {best}: {seen}"
        assert two(largest) == filled[f"weight{index}"], f"{where}: {filled[f'weight{index}']} vs {largest} shown"
        if f"pairs{index}" in filled:
            met = {}  # a repeated word's n-th pair is its n-th row
            for key, weight in re.findall(r"\((.+?), (" + NUMBER + r")\)", filled[f"pairs{index}"]):
                shown = seen["weights"][key][met.setdefault(key, 0)]
                met[key] += 1
                assert two(shown) == weight, f"{where}: ({key}, {weight}) vs {seen['weights']}"
    elif claim.kind == "max_above":
        assert two(largest) == filled[f"weight{index}"], f"{where}: {filled[f'weight{index}']} vs {largest} shown"
    elif claim.kind in ("weight_not_norm", "weight_and_norm"):  # the key's weight, share and norm, as written
        key = filled[f"key{index}"]
        for name, column in (("weight", "weights"), ("share", "shares"), ("norm", "norms")):
            assert two(seen[column][key][0]) == filled[f"{name}{index}"], f"{where}: {name} of {key}: {seen}"
        if claim.kind == "weight_and_norm":
            assert key in best and max(seen["shares"][key]) == max(s for ss in seen["shares"].values() for s in ss)


def stage_numbers(page, stage):
    """Every number of a stage's data table as the page writes it (four digits)."""
    open_tables(page)
    cells = page.locator(f"#table-stage{stage} td").all_text_contents()
    return [float(c.replace("−", "-")) for c in cells if c != "×"]


def labels_overlap(page, chart):
    """Pairs of neighbouring column labels of `chart` whose glyphs overlap (slanted ones measured across)."""
    return page.evaluate(
        """(id) => {
          const texts = [...document.querySelectorAll(`#${id} .xtick text`)];
          const found = [];
          for (let i = 1; i < texts.length; i++) {
            const [a, b] = [texts[i - 1], texts[i]];
            const turn = (b.getAttribute('transform') || '').match(/rotate\\((-?[\\d.]+)/);
            const angle = Math.abs(parseFloat(turn ? turn[1] : 0));
            const ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
            const height = a.getBBox().height;
            // slanted labels are parallel lines through their anchors: their distance across is dx·sin(angle)
            const anchor = (e) => e.getScreenCTM().e + parseFloat(e.getAttribute('x') || 0);
            const dx = anchor(b) - anchor(a);
            const apart = angle ? dx * Math.sin(angle * Math.PI / 180) : rb.left - ra.right + height;
            if (apart < height * 0.9) found.push([a.textContent, b.textContent, apart, height]);
          }
          return found;
        }""",
        chart,
    )


@pytest.mark.parametrize(("index", "lesson"), SINGLE, ids=[lesson["title"]["en"].split(".")[0] for _, lesson in SINGLE])
def test_lesson_claims_on_the_view_its_link_opens_at_1280x720_normal_mode(tabs, index, lesson):
    shown = {item["title"]: item for item in lessons_for("en")}
    item = shown.get(lesson["title"]["en"])
    if item is None:
        pytest.fail(f"lesson {lesson['title']['en']} is not offered (a model missing here?)")
    preset = BY_ID[lesson["preset"]]
    filled = preset_numbers(lesson["preset"])
    page = tabs(viewport=PROJECTOR).new_page()
    where = f"/learn {lesson['title']['en']}"
    main = item["link"]
    opened = link_params(main)
    shown_link = None  # the link the page opened last (two claims on one view read the page once opened)

    def show(link):
        nonlocal shown_link
        if link != shown_link:
            open_view(page, link)
            shown_link = link

    for claim_index in quoted(lesson):
        claim = preset["claims"][claim_index]
        head = link_head(opened) if claim.head is None else claim.head
        step = int(opened.get("step", 0)) if claim.step is None else claim.step
        layer = int(opened.get("layer", 0)) if claim.layer is None else claim.layer
        links = [main] + [more["link"] for more in item["more"]]
        link = next((link for link in links if shows(link, head, step, layer)), None)
        assert link, f"{where}: claim {claim_index} (head {head}, step {step}) is on no link the lesson gives: {links}"
        show(link)
        seen = shown_view(page)
        expected = current_view(page)["focus"]["head"] if head is None and current_view(page)["focus"] else head or 0
        assert seen["head"] == expected, f"{where}: claim {claim_index} is about head {expected}, the page shows {seen}"
        check_claim(claim, filled, claim_index, seen, f"{where}, claim {claim_index}")

    show(main)
    seen = shown_view(page)
    text = item["text"]
    stage = seen["stage"]
    if "×" in text:
        marks = page.locator(f"#stage{stage} .cell-values text").all_text_contents()
        assert "×" in marks, f"{where}: the lesson promises × on hidden keys; stage {stage} shows {set(marks)}"
    for low, high in re.findall(r"between (" + NUMBER + r") and (" + NUMBER + r")", text):
        low, high = (float(x.replace("−", "-")) for x in (low, high))
        if high > 1:  # a range of scores (weights are between 0 and 1 by construction)
            scores = stage_numbers(page, 1)
            assert low <= min(scores) and max(scores) <= high, (
                f"{where}: scores between {low} and {high}; stage 1 shows {min(scores)} to {max(scores)}"
            )
    overlapping = labels_overlap(page, f"chart-stage{stage}")
    assert not overlapping, f"{where}: column labels overlap on stage {stage}: {overlapping[:3]}"


TOY_COMPARISONS = [preset for preset in COMPARE_PRESETS if "model=" not in preset["query"]]


@pytest.mark.parametrize("preset", TOY_COMPARISONS, ids=[p["id"] for p in TOY_COMPARISONS])
def test_comparison_lesson_on_the_view_its_link_opens_at_1280x720_normal_mode(tabs, preset):
    item = next(p for p in compare_presets_for("en") if p["id"] == preset["id"])
    page = tabs(viewport=PROJECTOR).new_page()
    page.goto(item["link"])
    page.locator("body[data-ready=true]").wait_for(state="attached")
    data = page_data(page)["compare"]
    focus = page.locator("#focus").input_value()
    named = [w for w in data["shared"] if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", item["lesson"])]
    assert not named or focus in named, f"{preset['id']}: the lesson is about {named}, the view focuses on {focus}"
    for pane in ("a", "b"):
        pairs = page.locator(f"#top-{pane}").inner_text()
        top = re.match(r"\((.+?), (" + NUMBER + r")\)", pairs)
        key = re.search(rf"\{{top_{pane}\}}", preset["lesson"]["en"])
        if key:
            assert top and top.group(1) in item["lesson"], f"{preset['id']} {pane}: shows {pairs}"
