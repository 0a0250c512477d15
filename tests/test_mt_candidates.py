"""Decoding among the dictionary's candidates (translator.translate(candidates=True), the view's default): the
translators cannot make a word up, and where the candidate list changes nothing, nothing changes.

For any English words (hypothesis, every model, greedy and beam): the translation a reader sees has no content word
that the translation check (mt_check) marks made up; no run of one to three words comes a third time in a row, nor
any word but a verb or <unk> twice; every step's word is the likeliest word of the candidate list (less the words
that would loop or come twice) by the model's own
probabilities; a step whose own first choice was ruled out records it; and a translation with no step ruled out is
word for word the unconstrained one."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.models import mt_check, mt_dictionary
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
    ids = [step.token_id for step in result.steps]
    allowed = []  # each step's candidate list: the sentence's, less the words that would loop or come twice
    for i in range(len(ids)):
        allowed.append(mask.copy())
        allowed[-1][mt.ruled_after(model, ids[:i])] = False
    assert not any(looping(ids[: i + 1]) for i in range(len(ids)))
    verbs = mt_dictionary.verb_chinese()
    twice = [result.target[i] for i in range(len(ids) - 1) if ids[i] == ids[i + 1]]
    assert all(word == "<unk>" or word in verbs for word in twice), twice
    for step, candidates in zip(result.steps, allowed, strict=True):
        assert candidates[step.token_id]
        if step.preferred is not None:  # the model's own first choice, ruled out, and why
            word, probability = step.preferred
            first = int(np.argmax(step.logits))
            assert word == model.vocabulary.target[first] and probability >= step.probability
            if step.ruled_by == "left_out":  # the end guard: </s>, a candidate, while words were left out
                assert first == mt.EOS and candidates[first] and step.left_out
            else:
                assert not candidates[first] and step.ruled_by == ("made_up" if not mask[first] else "loop")
        else:
            assert step.ruled_by is None
    if beam == 1:
        for i, (step, candidates) in enumerate(zip(result.steps, allowed, strict=True)):  # the likeliest candidate
            best = int(np.argmax(np.where(candidates, step.logits, -np.inf)))
            if best == mt.EOS and step.token_id != mt.EOS:  # the end guard ruled </s> out: words were left out
                assert step.left_out == mt.left_out(result, result.steps[:i]) != ()
                best = int(np.argmax(np.where(candidates, step.logits, -np.inf)[mt.EOS + 1 :])) + mt.EOS + 1
            assert step.token_id == best
            if step.ruled_by == "left_out" or step.left_out:
                assert step.left_out == mt.left_out(result, result.steps[:i]) != ()
        if all(step.preferred is None for step in result.steps):
            assert result.target == mt.translate(model, text).target
    elif "likeliest" in result.extra:  # beam: the end guard chose a translation that leaves fewer words out
        passed = result.extra["likeliest"]
        assert passed.log_probability >= result.log_probability and passed.target != result.target
        missing = (len(mt.left_out(r, r.steps[: len(r.target)])) for r in (passed, result))
        assert next(missing) > next(missing)


@pytest.mark.parametrize("name", ["rnnsearch", "transformer-mt", "rnnencdec"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=SENTENCES)
def test_the_end_guard_keeps_words_only_when_they_translate_a_word_left_out(name, text):
    """Greedy: the guarded translation begins with the unguarded one (the same steps until the model first wanted
    to end); what it adds after that leaves fewer English words out, or it adds nothing."""
    model = MODELS[name]
    guarded = mt.translate(model, text, candidates=True)
    plain = mt.translate(model, text, candidates=True, end_guard=False)
    assert guarded.target[: len(plain.target)] == plain.target
    missing = (len(mt.left_out(r, r.steps[: len(r.target)])) for r in (guarded, plain))
    if guarded.target != plain.target:
        assert next(missing) < next(missing)
        assert plain.steps[-1].token_id == mt.EOS  # it ended there, and the guarded one went on
        assert guarded.steps[len(plain.target)].left_out == mt.left_out(plain, plain.steps[:-1])
    else:
        assert next(missing) == next(missing)
        assert not any(s.left_out for s in guarded.steps)


def test_the_end_guard_on_a_sentence_whose_second_half_was_dropped(client):
    """RNNsearch, greedy, would end after curious (an unknown word) with wants and know left out; the guard goes on,
    and the view says why."""
    text = "He is curious and wants to know everything."
    plain = mt.translate(MODELS["rnnsearch"], text, candidates=True, end_guard=False)
    assert plain.target == ["他", "很", "<unk>"]
    greedy = {"source": text, "model": "rnnsearch", "beam": 1}
    answer = client.get("/api/attention", params=greedy).json()["translation"]
    assert answer["target"][:3] == plain.target and {"想", "知道"} <= set(answer["output"][3:])
    assert answer["check"]["left_out"] == []
    ended = [r for r in answer["ruled_out"] if r["reason"] == "left_out"]
    assert [(r["position"], r["word"], r["left_out"]) for r in ended] == [(3, "</s>", ["wants", "know"])]


def test_beam_search_says_which_likelier_translation_the_end_guard_passed_over(client):
    """Beam search's likeliest translation of "we have an English lesson on Monday" ends after 英语 and leaves lesson
    out; the end guard shows one that translates it, and the JSON gives the one passed over."""
    text = "we have an English lesson on Monday"
    answer = client.get("/api/attention", params={"source": text, "model": "rnnsearch"}).json()["translation"]
    assert (answer["decoding"], answer["beam"]) == ("beam", mt.DEFAULT_BEAM)
    assert answer["output"] == ["我们", "星期一", "有", "一", "个", "英语", "课"] and answer["check"]["left_out"] == []
    passed = answer["likeliest"]
    assert passed["output"] == ["我们", "星期一", "有", "一", "个", "英语"] and passed["left_out"] == ["lesson"]
    assert passed["log_probability"] > answer["log_probability"]
    unguarded = mt.translate(MODELS["rnnsearch"], text, beam=mt.DEFAULT_BEAM, candidates=True, end_guard=False)
    assert mt.output_words(unguarded) == passed["output"]  # without the guard, the beam's own choice
    greedy = client.get("/api/attention", params={"source": text, "model": "rnnsearch", "beam": 1}).json()
    assert greedy["translation"]["likeliest"] is None


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.sampled_from([-3.0, -1.5, -1.0, -0.25, 0.0]), min_size=1, max_size=12),
    allowed=st.lists(st.booleans(), min_size=12, max_size=12),
    k=st.integers(1, 6),
)
def test_a_beam_step_ranks_words_as_a_stable_sort_of_the_whole_vocabulary_would(values, allowed, k):
    """translator._best (argpartition, then the few sorted) against a stable argsort of every word, ties included."""
    log_p = np.array(values)
    mask = np.array(allowed[: len(values)])
    ranked = np.argsort(-log_p, kind="stable")
    assert mt._best(log_p, None, k).tolist() == ranked[:k].tolist()
    assert mt._best(log_p, mask, k).tolist() == ranked[mask[ranked]][:k].tolist()


def looping(ids: list[int]) -> bool:
    """Whether ``ids`` ends with a run of one to three words three times in a row (written out, not by the
    module's rule)."""
    return any(
        len(ids) >= 3 * k and ids[-k:] == ids[-2 * k : -k] == ids[-3 * k : -2 * k] and ids[-1] != mt.UNK
        for k in (1, 2, 3)
    )


def test_a_run_of_words_is_not_written_a_third_time_in_a_row():
    assert mt.loop_breakers([7, 7]) == [7] and mt.loop_breakers([1, 2, 1, 2, 1]) == [2]
    assert mt.loop_breakers([5, 6, 6, 5, 6, 6, 5, 6]) == [6] and mt.loop_breakers([1, 2, 1, 2]) == []
    assert mt.loop_breakers([3, 7, 7]) == [7] and mt.loop_breakers([1, 2, 3]) == [] == mt.loop_breakers([])
    assert mt.loop_breakers([mt.UNK, mt.UNK]) == []  # each <unk> is replaced by the word attention points to
    model = MODELS["rnnsearch"]
    text = "Learning is a long-term process."
    free = mt.translate(model, text)  # candidates=all: the model's own loop
    assert free.target == ["学", "是", "一", "个", "长", "学期", "过程", "过程", "过程"]
    assert looping([s.token_id for s in free.steps[:9]])
    chosen = mt.translate(model, text, candidates=True)  # the second 过程 ruled out (a noun twice): it ends
    assert chosen.target == ["学", "是", "一", "个", "长", "学期", "过程"]
    assert [(s.preferred[0], s.ruled_by) for s in chosen.steps if s.preferred] == [("过程", "loop")]
    assert chosen.steps[-1].token == "</s>" and chosen.steps[-1].preferred is not None  # the end, instead


def test_a_word_is_not_written_twice_in_a_row_unless_chinese_doubles_it():
    """Chinese doubles a verb (看 看: have a look), never a pronoun, noun, adjective or particle; <unk> stands for
    whatever word attention points to, so two may stand for two words."""
    model = MODELS["rnnsearch"]
    index = {w: i for i, w in enumerate(model.vocabulary.target)}
    for word in ("学生", "我", "自由", "了"):
        assert mt.ruled_after(model, [index["在"], index[word]]) == [index[word]], word
    assert mt.ruled_after(model, [index["看"]]) == [] == mt.ruled_after(model, [mt.UNK]) == mt.ruled_after(model, [])
    assert mt.ruled_after(model, [index["看"], index["看"]]) == [index["看"]]  # but never a third time (a loop)
    assert "看" in mt_dictionary.verb_chinese() and "学生" not in mt_dictionary.verb_chinese()


def test_the_view_says_which_first_choices_were_ruled_out(client):
    """The JSON: translation.candidates and translation.ruled_out (greedy); candidates=all decodes as the model
    likes."""
    for source in ("the farmer wants salt", "Tom chase Jerry", "the police caught the enemy yesterday"):
        greedy = {"source": source, "model": "rnnsearch", "beam": 1}
        chosen = client.get("/api/attention", params=greedy).json()["translation"]
        free = client.get("/api/attention", params={**greedy, "candidates": "all"})
        free = free.json()["translation"]
        assert (chosen["candidates"], free["candidates"], free["ruled_out"]) == ("dictionary", "all", [])
        assert chosen["check"]["invented"] == []
        result = mt.translate(MODELS["rnnsearch"], source, candidates=True)
        expected = [(i, s.preferred[0], s.ruled_by) for i, s in enumerate(result.steps) if s.preferred]
        assert [(r["position"], r["word"], r["reason"]) for r in chosen["ruled_out"]] == expected
        assert free["target"] == mt.translate(MODELS["rnnsearch"], source).target
    loop = client.get(
        "/api/attention", params={"source": "Learning is a long-term process.", "model": "rnnsearch", "beam": 1}
    ).json()
    assert loop["translation"]["output"][-2:] == ["学期", "过程"]  # the end written in place of a second 过程
    assert [(r["position"], r["reason"]) for r in loop["translation"]["ruled_out"]] == [(7, "loop")]
    forced = client.get(
        "/api/attention", params={"source": "Tom chase Jerry", "model": "rnnsearch", "target": "汤姆 吃 杰瑞"}
    )
    assert forced.json()["translation"]["candidates"] == "all"  # a given Target is the reader's, not the decoder's
    bad = client.get("/api/attention", params={"source": "Tom chase Jerry", "model": "rnnsearch", "candidates": "some"})
    assert bad.status_code == 422 and "candidates" in bad.json()["message"]


class PathNetwork:
    """A made-up decoder whose next word depends only on the previous one: from <s>, 汤姆 0.7 or 杰瑞 0.3; after 杰瑞
    </s> 0.9 (a short ending that leaves tom and chase out); after 汤姆 the likeliest way goes on through 的 了 很 to
    追逐 杰瑞 </s>, ending six words later. Every other word 0.01."""

    words = ["<pad>", "<s>", "</s>", "<unk>", "汤姆", "追逐", "杰瑞", "的", "了", "很"]  # <s> is mt.BOS, 1
    path = {"<s>": {"汤姆": 0.7, "杰瑞": 0.3}, "杰瑞": {"</s>": 0.9}, "汤姆": {"的": 0.9}, "的": {"了": 0.9},
            "了": {"很": 0.9}, "很": {"追逐": 0.9}, "追逐": {"杰瑞": 0.9}}  # fmt: skip

    def start(self, ids):
        return {}

    def steps(self, states, ys):
        rows = []
        for y in ys:
            follow = dict.fromkeys(self.words[2:], 0.01) | self.path.get(self.words[y], {})  # 杰瑞: </s>, either time
            rows.append(np.log([follow.get(w, 1e-9) for w in self.words]))
        return np.stack(rows), states, [None] * len(states)


def test_an_unlikely_short_ending_in_the_beam_does_not_stop_the_search():
    """The end guard's window (END_GUARD_WORDS) opens when the likeliest way on ends leaving words out, not when any
    ending in the beam does: here 杰瑞 </s> is in the beam from the second step, and the whole translation ends
    six words later."""
    vocabulary = mt.Vocabulary(["<pad>", "<unk>", "tom", "chase", "jerry"], PathNetwork.words)
    model = mt.Translator("path", vocabulary, PathNetwork())
    assert mt.END_GUARD_WORDS < 6
    result = mt.translate(model, "tom chase jerry", beam=3, candidates=True)
    assert result.target == ["汤姆", "的", "了", "很", "追逐", "杰瑞"]
    assert mt_check.check(result.source, result.target).left_out == ()
