"""What every sentence at the same settings shares, apart from the answer (app/view/fixed.py): the answer and the
resource it names put together are the view itself, for every kind of setting; the resource's URL carries the
sha256 of its bytes and is cached for good; sentences at the same settings name the same resource."""

import hashlib
import re

import orjson
import pytest

from app.view.compute import compute_view
from app.view.fixed import VIEW_FIELDS
from app.view.links import state_from_values
from app.web.jsonio import dumps
from tests.support.views import whole

SETTINGS = {
    "default": {},
    "cross": {"target": "汤姆 追逐 杰瑞 的 猫"},
    "random, additive": {"projection": "random", "score": "additive", "heads": 4, "seed": 11},
    "random, general": {"projection": "random", "score": "general", "heads": 8, "seed": 3},
    "identity, hash": {"projection": "identity", "embedding": "hash", "dim": 24, "heads": 2, "positional": True},
    "cosine, one head": {"score": "cosine", "heads": 1},
    "named, 4 heads, no positions": {"heads": 4, "positional": False, "step": 2},
    "hard, causal, a window": {"hard": True, "causal": True, "window": 2, "step": 5},
    "cross, a later step, temperature": {"target": "汤姆 追逐 猫", "step": 2, "temperature": 0.3},
}
OWN_RESOURCE = (
    "default",
    "cross",
    "random, additive",
    "random, general",
    "identity, hash",
    "named, 4 heads, no positions",
)
SENTENCE = "Tom chase the cat by the river bank"


def answer(client, **params) -> dict:
    response = client.get("/api/attention", params=params)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("settings", SETTINGS.values(), ids=SETTINGS.keys())
def test_the_answer_and_its_resource_are_the_view(client, settings):
    params = {"source": SENTENCE, **settings}
    sent = answer(client, **params)
    view = orjson.loads(dumps(compute_view(state_from_values(params))))
    assert all(sent[name] is None for name in VIEW_FIELDS) and sent["head"]["parameters"] is None
    assert whole(client, sent) == view


def test_the_default_answer_is_at_most_half_of_the_view(client):
    """What every sentence shares and what the view says twice are most of it: the answer keeps the rest."""
    sentence = "the old teacher gave a book"  # six words, as the benchmarks measured it (bench/README.md)
    response = client.get("/api/attention", params={"source": sentence})
    whole_bytes = dumps(compute_view(state_from_values({"source": sentence})))
    assert len(response.content) <= len(whole_bytes) / 2, (len(response.content), len(whole_bytes))


def test_the_default_resource_is_immutable_under_its_own_hash(client):
    sent = answer(client, source=SENTENCE)
    href = sent["fixed"]["href"]
    digest = re.fullmatch(r"/api/fixed/([0-9a-f]{32})", href).group(1)  # the default settings: no query
    response = client.get(href)
    assert response.status_code == 200
    assert hashlib.sha256(response.content).hexdigest()[:32] == digest
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert len(orjson.loads(response.content)["heads"]) == sent["n_heads"] == 8


def test_sentences_at_the_same_settings_name_the_same_resource(client):
    hrefs = {answer(client, source=s)["fixed"]["href"] for s in ("walk by river bank", "the cat sat", "我们在河边")}
    assert len(hrefs) == 1
    other = [answer(client, source="walk by river bank", **SETTINGS[name])["fixed"]["href"] for name in OWN_RESOURCE]
    assert len(set(other)) == len(OWN_RESOURCE)  # settings that change the parameters or names: a URL each


def test_another_digest_gets_the_resource_not_to_be_kept(client):
    """An answer kept from before a release that changed the numbers names an old digest: today's resource, no-cache."""
    href = answer(client, source=SENTENCE)["fixed"]["href"]
    old = client.get("/api/fixed/0123456789abcdef0123456789abcdef")
    assert old.status_code == 200 and old.headers["cache-control"] == "no-cache"
    assert old.content == client.get(href).content


def test_views_without_a_fixed_part_name_none(client):
    exercise = client.post("/api/attention", json={"q": [[1, 0]], "k": [[1, 0], [0, 1]], "v": [[1], [2]]}).json()
    assert exercise["fixed"] is None and exercise["head"]["parameters"] == {}


@pytest.mark.parametrize(
    ("query", "field"), [("source=walk", "source"), ("kind=sideways", "kind"), ("heads=99", "heads")]
)
def test_a_setting_it_does_not_take_is_refused_by_name(client, query, field):
    digest = answer(client, source=SENTENCE)["fixed"]["href"].rsplit("/", 1)[1]
    response = client.get(f"/api/fixed/{digest}?{query}")
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][-1] == field
