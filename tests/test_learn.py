"""/learn: every idea of the seed text, in both languages, each linked to a view that opens."""

import re
from html import unescape
from urllib.parse import urlsplit

from app.view.lessons import LESSONS


def test_every_lesson_links_to_a_working_view(client):
    page = client.get("/learn?lang=en")
    assert page.status_code == 200
    links = [unescape(link) for link in re.findall(r'<a href="(/[a-z]*\?[^"]+)">Open this view', page.text)]
    assert len(links) == len(LESSONS) == 18
    for link in links:
        parts = urlsplit(link)
        api = "/api/compare?" if parts.path == "/compare" else "/api/attention?"
        assert client.get(api + parts.query).status_code == 200, link
        assert client.get(link).status_code == 200, link


def test_lessons_name_the_seed_ideas_in_both_languages(client):
    english = client.get("/learn?lang=en").text
    chinese = client.get("/learn?lang=zh").text
    for idea in ("without attention", "Soft vs hard", "Global vs local", "Self-attention", "Scaled dot-product",
                 "Multi-head", "search-engine", "additive", "cosine"):  # fmt: skip
        assert idea in english, idea
    for idea in ("软注意力", "局部注意力", "自注意力", "多头注意力", "搜索引擎", "余弦"):
        assert idea in chinese, idea
    assert 'lang="zh-CN"' in chinese
