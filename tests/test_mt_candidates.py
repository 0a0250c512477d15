"""Decoding among the dictionary's candidates (translator.translate(candidates=True), the view's default): the
translators cannot make a word up, and where the candidate list changes nothing, nothing changes.

For any English words (hypothesis, every model, greedy and beam): the translation a reader sees has no content word
that the translation check (mt_check) marks made up; every step's word is the likeliest word of the candidate list
by the model's own probabilities; a step whose own first choice was ruled out records it; and a translation with no
step ruled out is word for word the unconstrained one."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.models import mt_check
from app.engine.models import translator as mt

MODELS = {name: mt.load(name) for name in mt.MODELS}
# English words the models read (the source vocabulary less its specials), and a few beyond it
WORDS = sorted(w for w in MODELS["rnnsearch"].vocabulary.source if w.isalpha())
SENTENCES = st.lists(st.sampled_from(WORDS + ["zyzzyva", "octopus"]), min_size=1, max_size=9).map(" ".join)


def test_the_candidate_list_keeps_every_word_that_is_no_content_word():
    model = MODELS["rnnsearch"]
    mask = mt.candidate_mask(model, ["tom", "chase", "jerry"])  # (n_target_vocab,)
    index = {w: i for i, w in enumerate(model.vocabulary.target)}
    for word in ("</s>", "<unk>", "了", "的", "们", "吗", "只", "个", "在", "汤姆", "追逐", "杰瑞"):
        assert mask[index[word]], word
    for word in ("吃", "学生", "银行", "借"):  # content words no word of the sentence asks for
        assert not mask[index[word]], word
    assert mask.shape == (len(model.vocabulary.target),) and mask.dtype == bool


@pytest.mark.parametrize("name", ["rnnsearch", "transformer-mt", "rnnencdec"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=SENTENCES, beam=st.sampled_from([1, 3]))
def test_nothing_is_made_up_among_the_candidates(name, text, beam):
    model = MODELS[name]
    result = mt.translate(model, text, beam=beam, candidates=True)
    output = mt.output_words(result)
    assert mt_check.check(result.source, output).invented == ()
    mask = mt.candidate_mask(model, result.source)
    for step in result.steps:
        assert mask[step.token_id]
        if step.preferred is not None:  # the model's own first choice, ruled out
            word, probability = step.preferred
            first = int(np.argmax(step.logits))
            assert (word, not mask[first]) == (model.vocabulary.target[first], True)
            assert probability >= step.probability
    if beam == 1:
        for step in result.steps:  # greedy: the likeliest candidate, by the model's own logits
            assert step.token_id == int(np.argmax(np.where(mask, step.logits, -np.inf)))
        if all(step.preferred is None for step in result.steps):
            assert result.target == mt.translate(model, text).target


def test_the_view_says_which_first_choices_were_ruled_out(client):
    """The JSON: translation.candidates and translation.ruled_out; candidates=all decodes as the model likes."""
    for source in ("the farmer wants salt", "Tom chase Jerry", "the police caught the enemy yesterday"):
        chosen = client.get("/api/attention", params={"source": source, "model": "rnnsearch"}).json()["translation"]
        free = client.get("/api/attention", params={"source": source, "model": "rnnsearch", "candidates": "all"})
        free = free.json()["translation"]
        assert (chosen["candidates"], free["candidates"], free["ruled_out"]) == ("dictionary", "all", [])
        assert chosen["check"]["invented"] == []
        result = mt.translate(MODELS["rnnsearch"], source, candidates=True)
        expected = [(i, s.preferred[0]) for i, s in enumerate(result.steps[: len(result.target)]) if s.preferred]
        assert [(r["position"], r["word"]) for r in chosen["ruled_out"]] == expected
        assert free["target"] == mt.translate(MODELS["rnnsearch"], source).target
    forced = client.get(
        "/api/attention", params={"source": "Tom chase Jerry", "model": "rnnsearch", "target": "汤姆 吃 杰瑞"}
    )
    assert forced.json()["translation"]["candidates"] == "all"  # a given Target is the reader's, not the decoder's
    bad = client.get("/api/attention", params={"source": "Tom chase Jerry", "model": "rnnsearch", "candidates": "some"})
    assert bad.status_code == 422 and "candidates" in bad.json()["message"]
