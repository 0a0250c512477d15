"""English and Chinese: the switch (kept in the URL) and the default from Accept-Language."""

from playwright.sync_api import expect

from app.view.i18n import STRINGS
from tests.browser.harness import open_view, poll, url_params, wait_ready

ZH = STRINGS["zh"]
EN = STRINGS["en"]


def assert_language(page, lang):
    strings = STRINGS[lang]
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN" if lang == "zh" else "en")
    expect(page.locator("h1")).to_have_text(strings["title"])
    expect(page.locator("label[for=source]")).to_be_visible()
    expect(page.locator("label[for=source]")).to_have_text(strings["source"])
    expect(page.locator("#stage2 h2")).to_have_text(strings["stage2"])
    expect(page.locator("#step-label")).to_contain_text(strings["query_word"])


def test_language_switch_is_kept_in_the_url(page):
    open_view(page, {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞", "step": "1"})
    assert_language(page, "en")

    with page.expect_navigation():
        page.locator("#lang-switch").click()
    wait_ready(page)
    assert_language(page, "zh")
    assert url_params(page) == {"source": "Tom chase Jerry", "target": "汤姆 追逐 杰瑞", "step": "1", "lang": "zh"}
    expect(page.locator("#lang-switch")).to_have_text("English")
    expect(page.locator("#step-label")).to_contain_text("追逐")

    page.locator("#temperature").fill("2")
    expect(page.locator("#temperature-value")).to_have_text("2")
    poll(page, "location.search", lambda search: "temperature=2" in search)
    assert url_params(page)["lang"] == "zh", "an edit dropped the language from the URL"

    with page.expect_navigation():
        page.locator("#lang-switch").click()
    wait_ready(page)
    assert_language(page, "en")
    assert url_params(page)["lang"] == "en"


def test_accept_language_picks_chinese_without_lang(tabs):
    page = tabs(locale="zh-CN").new_page()
    open_view(page, {"source": "我们在河边散步"})
    assert_language(page, "zh")
    assert "lang" not in url_params(page)

    other = tabs(extra_http_headers={"Accept-Language": "fr-FR, zh-TW;q=0.8, en;q=0.5"}).new_page()
    open_view(other, "/")
    assert_language(other, "zh")

    with page.expect_navigation():  # an explicit lang beats Accept-Language
        page.locator("#lang-switch").click()
    wait_ready(page)
    assert_language(page, "en")


def test_the_chinese_page_shows_no_english_feature_name(page):
    """Feature names on axes, in the arithmetic and in the head's matrices are Chinese on the Chinese page."""
    import re as regex

    from app.engine.text.lexicon import FEATURES

    open_view(page, {"source": "小猫在河边喝水", "lang": "zh", "heads": "2", "step": "3"})
    page.locator("#chart-embeddings .xtick text").first.wait_for()
    shown = " ".join(
        page.evaluate(
            """() => [...document.querySelectorAll(
                '.xtick text, .ytick text, #arithmetic, #matrices, #head-question, #stage3, #embeddings-panel')]
                .map((e) => e.textContent)"""
        )
    )
    english = [name for name in FEATURES if regex.search(rf"\\b{name}\\b", shown)]
    assert english == [], english
    assert "动物" in shown and "地点" in shown  # the features, in Chinese
