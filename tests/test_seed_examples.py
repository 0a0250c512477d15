"""The seed text's two examples, with default settings, through the JSON API; and every preset."""

from urllib.parse import urlsplit

import numpy as np
import pytest

from app.view.presets import PRESETS
from tests.support.views import whole


def weights_of(client, **params):
    """The weights of the head shown at the link's step (default settings: every named head, and each step
    shows the head whose question its word asks)."""
    response = client.get("/api/attention", params=params)
    assert response.status_code == 200, response.text
    body = whole(client, response.json())
    assert body["params"]["heads"] is None and body["focus"]["auto"]
    return body, np.array(body["head"]["weights"])


def test_translation_each_chinese_word_attends_most_to_its_english_counterpart(client):
    body, weights = weights_of(client, source="Tom chase Jerry", target="汤姆 追逐 杰瑞")
    assert body["mode"] == "cross" and body["named_head"]["name"] == "counterpart"
    assert body["tokens"]["queries"] == ["汤姆", "追逐", "杰瑞"]
    assert body["tokens"]["keys"] == ["Tom", "chase", "Jerry"]
    assert body["unknown_tokens"] == []
    assert weights.shape == (3, 3)
    # 汤姆 -> Tom, 追逐 -> chase, 杰瑞 -> Jerry: the largest weight of row i is in column i, strictly
    for i in range(3):
        others = np.delete(weights[i], i)
        assert weights[i, i] > others.max(), (body["tokens"]["queries"][i], weights[i])


def test_self_attention_bank_looks_at_river(client):
    body, weights = weights_of(client, source="walk by river bank", step=3)
    assert body["mode"] == "self" and body["named_head"]["name"] == "sense"
    keys = body["tokens"]["keys"]
    assert keys == ["walk", "by", "river", "bank"]
    bank, river = keys.index("bank"), keys.index("river")
    row = weights[bank].copy()
    row[bank] = -1  # after itself
    assert int(row.argmax()) == river, weights[bank]


@pytest.mark.parametrize("preset", PRESETS, ids=[p["id"] for p in PRESETS])
def test_every_preset_works_and_its_share_path_reproduces_it(client, preset):
    first = client.get("/api/attention", params=preset["params"])
    assert first.status_code == 200, first.text
    share_path = first.json()["share_path"]
    parts = urlsplit(share_path)
    assert parts.path == "/"
    again = client.get(f"/api/attention?{parts.query}")
    assert again.status_code == 200, again.text
    assert again.content == first.content
    # and the canonical link is a fixed point
    assert again.json()["share_path"] == share_path
