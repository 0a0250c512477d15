"""A typed sentence's answer leaves out what every sentence at its settings shares (app/view/fixed.py): the page
fetches that resource once and shows the same matrices, names and questions as a view it was opened with."""

from playwright.sync_api import expect

from tests.browser.harness import current_view, open_view, wait_text_change


def test_edited_sentences_show_the_heads_matrices_from_one_fetch_of_the_resource(page):
    asked = []
    page.on("request", lambda request: asked.append(request.url) if "/api/fixed/" in request.url else None)
    open_view(page, {"source": "the boy fell because he was tired"})  # the page's own data: the whole view
    opened = page.locator("#matrices").inner_text()
    assert "W_Q" in opened and "W_V" in opened
    for words in ("the girl ran because she was very late", "the cat sat on the old mat"):
        label = page.locator("#step-label").inner_text()
        page.locator("#source").fill(words)
        wait_text_change(page, "#step-label", label)
        expect(page.locator("#step-label")).to_contain_text(f"of {len(words.split())}")
        # step 0 is "the" in every sentence: the same head (Head 6, describes), the same matrices and names
        assert page.locator("#matrices").inner_text() == opened
        expect(page.locator("#head-question")).to_contain_text("“the” asks Head 6 (describes)")
    assert len(asked) == 1, asked
    assert current_view(page)["head"]["parameters"]["W_Q"]  # the JSON twin, put together as the page does
