"""A typed sentence's answer leaves out what every sentence at its settings shares and what it would say twice
(app/view/fixed.py): the page fetches the shared resource once and puts the view together again, so an edited
sentence shows the same numbers as the same sentence's page opened from its link (whose data is the whole view)."""

from playwright.sync_api import expect

from tests.browser.harness import current_view, open_view, wait_text_change

PANELS = ("#matrices", "#arithmetic", "#geometry-lines", "#geometry-score", "#head-question", "#step-label")


def shown(page) -> dict:
    return {panel: page.locator(panel).inner_text() for panel in PANELS}


def test_edited_sentences_show_what_their_own_pages_show_from_one_fetch_of_the_resource(page):
    asked = []
    page.on("request", lambda request: asked.append(request.url) if "/api/fixed/" in request.url else None)
    edited = {}
    open_view(page, {"source": "the boy fell because he was tired"})
    for words in ("the girl ran because she was very late", "my cat sat on the old mat"):
        label = page.locator("#step-label").inner_text()
        page.locator("#source").fill(words)  # the answer of /api/attention, put together
        wait_text_change(page, "#step-label", label)
        expect(page.locator("#step-label")).to_contain_text(f"of {len(words.split())}")
        edited[words] = shown(page)
    assert len(asked) == 1, asked
    assert current_view(page)["head"]["parameters"]["W_Q"]  # the JSON twin, put together as the page does
    for words, panels in edited.items():
        open_view(page, {"source": words})  # the page's own data: the whole view
        assert shown(page) == panels
        assert "W_Q" in panels["#matrices"] and panels["#arithmetic"]
