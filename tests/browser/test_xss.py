"""Script-like text anywhere (sentences, labels, link parameters, parameter names, Accept-Language), in links
and typed: nothing runs (no dialog, `window.__xss` stays 0, no foreign request) and everything shows as text.

Each page load costs seconds (Plotly), so the link tests carry several payloads per page: every payload is
still delivered through the link, and a failure names the batch.
"""

from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.browser.harness import (
    arithmetic_rows,
    open_tables,
    open_view,
    page_data,
    poll,
    settled,
    table_header,
    tick_labels,
    tick_texts,
)

PAYLOADS = [
    "<img src=x onerror=window.__xss=1>",
    "<img src=x onerror=alert(1)>",
    "</script><script>window.__xss=1</script>",
    "</textarea><script>window.__xss=1</script>",
    '"><svg onload=window.__xss=1>',
    "'><svg/onload=alert(1)>",
    "javascript:window.__xss=1",
    "{{7*7}}",
    "{{constructor.constructor('window.__xss=1')()}}",
    "${window.__xss=1}",
    '<iframe srcdoc="<script>parent.__xss=1</script>">',
    '<iframe src="javascript:parent.__xss=1">',
    "<svg><script>window.__xss=1</script></svg>",
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=1>",
    "<details open ontoggle=window.__xss=1>",
    "<body onload=window.__xss=1>",
    '<a href="javascript:window.__xss=1">click</a>',
    "<b>bold</b>",
    '<a href="https://evil.example/">link</a>',
    "&lt;img src=x onerror=window.__xss=1&gt;",
    "%3Cscript%3Ewindow.__xss=1%3C/script%3E",
    "\\u003cscript\\u003ewindow.__xss=1\\u003c/script\\u003e",
    "＜script＞window.__xss=1＜/script＞",
    "<scr<script>ipt>window.__xss=1</script>",
    "<style>@import 'https://evil.example/x.css';</style>",
    "<link rel=stylesheet href=https://evil.example/x.css>",
    "<img src=https://evil.example/x.png>",
    "<input autofocus onfocus=window.__xss=1>",
    "<video><source onerror=window.__xss=1></video>",
    '<object data="javascript:window.__xss=1">',
    '<meta http-equiv=refresh content="0;url=javascript:window.__xss=1">',
    "';window.__xss=1;//",
    '";window.__xss=1;//',
    '<!--<img src="--><img src=x onerror=window.__xss=1//">',
    "<svg><animate onbegin=window.__xss=1 attributeName=x dur=1s>",
    "]]><script>window.__xss=1</script>",
    "\u2028</script><script>window.__xss=1</script>",
    "<ſcript>window.__xss=1</ſcript>",
    "<IMG SRC=x ONERROR=window.__xss=1>",
    '<img src=x onerror="&#119;indow.__xss=1">',
    "汤姆<img src=x onerror=window.__xss=1>杰瑞",
    'x" autofocus onfocus="window.__xss=1',
    "x' onmouseover='window.__xss=1",
    "<br>line<br/>break",
    "<sup>2</sup><sub>i</sub><i>it</i><em>em</em>",
]
assert len(PAYLOADS) >= 30
BATCH = 10
THINNED_ABOVE = 24  # static/js/charts.js MANY: longer axes label every n-th token only
BATCHES = [PAYLOADS[i : i + BATCH] for i in range(0, len(PAYLOADS), BATCH)]

# No markup a payload could have injected: no event-handler attributes, no frames or images,
# and every <script> is either an external file or the JSON data block.
INJECTED = """() => {
  const found = [];
  const show = (e) => found.push(e.outerHTML.slice(0, 80));
  for (const e of document.querySelectorAll('*')) {
    for (const a of e.attributes) if (a.name.toLowerCase().startsWith('on')) found.push(`${e.tagName} ${a.name}`);
  }
  const active = 'iframe, frame, object, embed, img, video, audio, source, base, meta[http-equiv], input[autofocus]';
  for (const e of document.querySelectorAll(active)) show(e);
  for (const e of document.querySelectorAll('script')) if (!e.src && e.type !== 'application/json') show(e);
  for (const e of document.querySelectorAll('link')) if (!['stylesheet', 'icon'].includes(e.rel)) show(e);
  for (const e of document.querySelectorAll('svg a, .main-svg a')) found.push('link in a chart: ' + e.outerHTML);
  return found;
}"""


def assert_no_script_ran(page):
    # every image the page holds has loaded or failed, then the error/load events already queued have run
    poll(page, "document.readyState === 'complete' && [...document.images].every((image) => image.complete)")
    settled(page)
    assert page.evaluate("window.__xss") == 0, "a payload ran: window.__xss was set"


def assert_no_markup(page):
    found = page.evaluate(INJECTED)
    assert found == [], f"markup from a payload became elements: {found}"


def assert_nothing_ran(page):
    assert_no_script_ran(page)
    assert_no_markup(page)


def label_of(payload):
    """A payload as one exercise-mode label (no commas, at most 40 characters, no outer spaces)."""
    return payload.replace(",", " ")[:40].strip()


def assert_axis_shows(page, chart, axis, tokens):
    """Each label drawn is its token's text as typed; every token is labelled unless the axis is long."""
    shown = tick_labels(page, chart, axis)
    wrong = {i: text for i, text in shown.items() if tokens[i] != text}
    assert shown and not wrong, f"{chart} {axis}: labels differ from the text (index: shown): {wrong}"
    indices = sorted(shown)
    if len(tokens) <= THINNED_ABOVE and axis == "y":
        assert indices == list(range(len(tokens))), f"{chart} {axis}: not every token is labelled"
    else:  # columns narrower than a line of type (or a long axis) label every k-th token
        stride = indices[1] - indices[0] if len(indices) > 1 else 1
        assert indices == list(range(0, len(tokens), stride)), f"{chart} {axis}: labels {indices}"


def assert_tokens_shown_as_text(page, queries, keys):
    assert_axis_shows(page, "chart-stage2", "y", queries)
    assert_axis_shows(page, "chart-stage2", "x", keys)
    assert_axis_shows(page, "chart-stage1", "x", keys)
    assert [row["key"] for row in arithmetic_rows(page)] == keys
    expect(page.locator("#step-label")).to_contain_text(f"“{queries[int(page_data(page)['view']['params']['step'])]}”")


@pytest.mark.parametrize("batch", BATCHES, ids=[f"batch{i}" for i in range(len(BATCHES))])
def test_payloads_in_a_link_show_as_text(tabs, batch):
    half = len(batch) // 2 or 1
    source = " ".join(batch[:half])
    target = " ".join(batch[half:]) or source
    header = next((p for p in batch if p.isascii() and p.isprintable()), "en")
    params = {"source": source, "target": target, "lang": batch[0], "step": batch[1], "stage": batch[2]}
    for payload in batch:
        params[payload] = payload  # unknown parameter names are dropped and named on the page
    page = tabs(extra_http_headers={"Accept-Language": header}).new_page()
    open_view(page, "/?" + urlencode(params))
    assert_nothing_ran(page)

    expect(page.locator("#source")).to_have_value(source)
    expect(page.locator("#target")).to_have_value(target)
    data = page_data(page)["view"]
    assert (data["params"]["source"], data["params"]["target"]) == (source, target)
    assert data["params"]["lang"] is None and data["params"]["step"] == 0
    expect(page.locator("html")).to_have_attribute("lang", "en")

    notices = page.locator(".notice.ignored").all_text_contents()
    for name in ("lang", "step", "stage"):
        assert any(f" {name}: " in text for text in notices), f"no notice names the ignored {name!r}: {notices}"
    for payload in batch:
        shown = payload[:40].strip()  # an unknown name is repeated up to 40 characters
        assert any(shown in text for text in notices), f"no notice shows the unknown parameter {payload!r}"

    assert_tokens_shown_as_text(page, data["tokens"]["queries"], data["tokens"]["keys"])
    open_tables(page)
    assert table_header(page, "table-stage2") == data["tokens"]["keys"]
    assert_nothing_ran(page)


LABEL_BATCHES = [PAYLOADS[: len(PAYLOADS) // 2], PAYLOADS[len(PAYLOADS) // 2 :]]


@pytest.mark.parametrize("batch", LABEL_BATCHES, ids=["labels0", "labels1"])
def test_payloads_as_exercise_labels_show_as_text(page, batch):
    labels = [label_of(p) for p in batch]
    n = len(labels)
    params = {
        "q": "1,0",
        "k": ";".join("1,0" if i % 2 else "0,1" for i in range(n)),
        "v": ";".join(str(i) for i in range(n)),
        "score": "dot",
        "query_labels": labels[0],
        "key_labels": ",".join(labels),
    }
    open_view(page, params)
    assert_no_script_ran(page)
    expect(page.locator("#query_labels")).to_have_value(labels[0])
    expect(page.locator("#key_labels")).to_have_value(",".join(labels))
    data = page_data(page)["view"]
    assert data["tokens"]["keys"] == labels
    shown = tick_labels(page, "chart-stage2", "x")  # crowded columns: every so many written, as typed
    wrong = [(labels[j], text) for j, text in shown.items() if labels[j] != text]
    assert not wrong and shown and 0 in shown, f"axis labels not shown as the text typed (label, shown): {wrong}"
    assert_tokens_shown_as_text(page, [labels[0]], labels)
    bars = page.evaluate("[...document.querySelectorAll('#chart-bars .bar-label')].map((e) => e.textContent)")
    assert bars == labels, "bar chart labels not shown as text"
    assert_no_markup(page)


TYPED = [
    "<img src=x onerror=window.__xss=1> {{7*7}} ${window.__xss=1}",
    "</script><script>alert(1)</script>",
    '"><svg onload=window.__xss=1> <iframe srcdoc="<script>parent.__xss=1</script>">',
    "汤姆<b>追逐</b>杰瑞",
]


def test_typed_payloads_show_as_text(page):
    open_view(page, {"source": "walk by river bank"})
    for payload in TYPED:
        page.locator("#source").fill(payload)
        poll(
            page, "new URLSearchParams(location.search).get('source')", lambda value, payload=payload: value == payload
        )
        expected = page.request.get("/api/attention?" + urlencode({"source": payload})).json()["tokens"]
        assert_nothing_ran(page)
        expect(page.locator("#source")).to_have_value(payload)
        assert_tokens_shown_as_text(page, expected["queries"], expected["keys"])

    page.reload()
    page.locator("body[data-ready=true]").wait_for(state="attached")
    assert_nothing_ran(page)
    expect(page.locator("#source")).to_have_value(TYPED[-1])


def test_typed_label_payloads_show_as_text(page):
    open_view(page, {"q": "1,0", "k": "1,0;0,1;1,1", "v": "1;2;3", "score": "dot"})
    for labels in (
        ["<img src=x onerror=window.__xss=1>", "b", "c"],
        ["a", "<b>bold</b>", '<a href="https://evil.example/">x</a>'],
        ['x" onfocus="window.__xss=1', "</textarea><script>alert(1)</script>", "{{7*7}}"],
    ):
        page.locator("#key_labels").fill(",".join(labels))
        poll(
            page,
            "new URLSearchParams(location.search).get('key_labels')",
            lambda value, labels=labels: value == ",".join(labels),
        )
        assert_no_script_ran(page)
        assert [row["key"] for row in arithmetic_rows(page)] == labels
        assert tick_texts(page, "chart-stage2", "x") == labels, "typed labels are not shown as text on the axis"
        assert_no_markup(page)
