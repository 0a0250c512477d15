"""The translators' leave-one-out (translator.leave_one_out) against the float64 reference written from its
definition (tools/reference/leave_one_out.py: the sentence written again with each word unknown, decoded again
through translator.forced), and what it says on sentences whose answer is known.

Tolerance: both sides are float64 and do the same operations on the same numbers (the engine's decoding, given
the same ids in the same order), so they agree to the last bit; 1e-12 leaves room for nothing but a different
computation, far inside the 1e-5 the other attributions are held to.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.engine.models import translator as mt
from app.view import models
from tools.reference import leave_one_out as reference

SENTENCES = ["Tom chase Jerry", "I put money in the bank", "we sat on the river bank", "a cat zzzqqq the fish"]


@pytest.fixture(scope="module", params=list(mt.MODELS))
def model(request):
    return mt.load(request.param)


@pytest.mark.parametrize("text", SENTENCES)
def test_matches_the_reference(model, text):
    result = mt.translate(model, text)
    drop = mt.leave_one_out(model, text, [step.token_id for step in result.steps])  # (n_steps, n_source)
    expected = reference.leave_one_out(model, text, result.target)
    assert drop.shape == (len(result.target) + 1, len(result.source)) == expected.shape
    assert np.abs(drop - expected).max() <= 1e-12


def test_a_word_the_model_cannot_read_costs_nothing(model):
    result = mt.translate(model, "a cat zzzqqq the fish")
    drop = mt.leave_one_out(model, "a cat zzzqqq the fish", [step.token_id for step in result.steps])
    assert (drop[:, 2] == 0).all()  # already <unk>: the same input
    assert (drop[:, [0, 1, 3, 4]] != 0).any()


def test_each_name_costs_its_own_translation_most():
    """RNNsearch on Tom chase Jerry: without tom, 汤姆 loses most; without jerry, 杰瑞."""
    model = mt.load("rnnsearch")
    result = mt.translate(model, "Tom chase Jerry")
    assert result.target == ["汤姆", "追逐", "杰瑞"]
    drop = mt.leave_one_out(model, "Tom chase Jerry", [step.token_id for step in result.steps])
    assert drop[0].argmax() == 0 and drop[2].argmax() == 2 and drop[1].argmax() == 1
    assert drop[0, 0] > 0.5


def test_the_view_caches_it_beside_the_translation():
    models.leave_one_out.cache_clear()
    first = models.leave_one_out("rnnsearch", "Tom chase Jerry", None, 1)
    assert models.leave_one_out("rnnsearch", "Tom chase Jerry", None, 1) is first
    assert first.shape == (4, 3) and not first.flags.writeable


def test_the_answer_carries_it_only_when_asked(client, monkeypatch):
    calls = []
    real = mt.leave_one_out
    monkeypatch.setattr(mt, "leave_one_out", lambda *args: calls.append(args) or real(*args))
    models.leave_one_out.cache_clear()
    plain = client.get("/api/attention?source=we+sat+on+the+river+bank&model=transformer-mt").json()
    assert plain["translation"]["leave_one_out"] is None and calls == []  # a view that did not ask
    body = client.get("/api/attention?source=we+sat+on+the+river+bank&model=transformer-mt&attribution=leave-one-out")
    drop = body.json()["translation"]["leave_one_out"]
    assert len(calls) == 1
    assert np.array_equal(drop, models.leave_one_out("transformer-mt", "we sat on the river bank", None, 1)[:-1])
    assert np.array(drop).shape == (len(plain["translation"]["target"]), 6)


def test_it_is_refused_outside_the_translators(client):
    response = client.get("/api/attention?source=walk+by+the+river&model=minilm&attribution=leave-one-out&lang=zh")
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "attribution"
