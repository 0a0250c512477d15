"""Tatoeba's sentence pairs (tools/translator/tatoeba.py): how their Chinese is read as the corpus writes it, and
how `train.py --tatoeba` keeps them: never a sentence that measures the models, a word too rare to learn hidden on
both sides, the same pairs in any process."""

import collections
import json
import re

import pytest

from app.engine.models import translator
from tools.translator import dataset, real_pairs, tatoeba


@pytest.fixture(scope="module")
def grammars(training_corpus) -> list[dict]:
    return training_corpus["train"]


@pytest.fixture(scope="module")
def pairs(grammars) -> list[dict]:
    return tatoeba.training_pairs(grammars)


def read(grammars) -> list[tuple[list[str], list[str]]]:
    """The pairs Tatoeba's file gives before any is left out for a rare word (tatoeba.sentences keeps them)."""
    return tatoeba.sentences(frozenset(w for p in grammars for w in p["zh"].split()))


def test_traditional_characters_become_simplified_and_simplified_ones_stay():
    assert tatoeba.simplified("我們試試看！") == "我们试试看！"
    assert tatoeba.simplified("他甚麼也沒說") == "他甚么也没说"
    # 么 is also CC-CEDICT's old form of 幺, but far more often a simplified character itself: it stays
    assert tatoeba.simplified("你什么时候开始工作") == "你什么时候开始工作"
    # a word the same in both writings keeps its characters (著名, not 着名); alone, 著 is 着's old form
    assert tatoeba.simplified("他很著名") == "他很著名"
    assert tatoeba.simplified("看著") == "看着"


def test_chinese_words_are_cut_as_the_corpus_cuts_them():
    corpus = {"这", "个", "一", "只", "猫", "不", "是", "封", "锁", "我的"}
    assert tatoeba.corpus_words(["这个", "不是", "一只", "猫"], corpus) == ["这", "个", "不", "是", "一", "只", "猫"]
    assert tatoeba.corpus_words(["我", "的", "猫"], corpus) == ["我的", "猫"]
    # only a number, a demonstrative or a negation is cut off: a word of two known characters stays one word
    assert tatoeba.corpus_words(["被", "封锁"], corpus) == ["被", "封锁"]


@pytest.mark.slow  # reads the grammars' corpus and every Tatoeba pair (about 20 s)
def test_no_kept_pair_is_a_sentence_that_measures_the_models(grammars, pairs):
    kept = {p["en"] for p in pairs}
    hand_written = dataset.hand_written_sentences()
    hsk = {" ".join(s.words) for s in real_pairs.sentences()}
    english = {" ".join(words) for words, _ in read(grammars)}
    # the package does have some of them: they are left out, not absent
    assert {" ".join(translator.source_words(en)) for en, _ in tatoeba.raw_pairs()} & (hand_written | hsk)
    assert not english & (hand_written | hsk)
    typed = re.compile(r"<unk:[a-z-]+>")
    assert not {typed.sub("", en) for en in kept} & {typed.sub("", s) for s in hand_written | hsk} - {""}


@pytest.mark.slow
def test_a_rare_word_is_hidden_on_both_sides_and_nothing_else_is(grammars, pairs):
    corpus_en = {w for p in grammars for w in p["en"].split()}
    corpus_zh = {w for p in grammars for w in p["zh"].split()}
    en_count = collections.Counter(w for words, _ in read(grammars) for w in words)  # the counts are the pairs read
    zh_count = collections.Counter(w for _, chinese in read(grammars) for w in chinese)
    hidden = 0
    for p in pairs:
        en, zh = p["en"].split(), p["zh"].split()
        n_unknown = sum(w.startswith("<unk") for w in en)
        assert n_unknown == zh.count("<unk>"), p  # one Chinese <unk> for each hidden English word
        hidden += n_unknown > 0
        assert not re.search(r"\d|[A-Za-z]", "".join(w for w in zh if w != "<unk>")), p  # no digit, no Latin word
        for w in zh:
            assert w == "<unk>" or w in corpus_zh or zh_count[w] >= tatoeba.MIN_COUNT, (w, p)
        for w in en:
            assert w.startswith("<unk") or w in corpus_en or en_count[w] >= tatoeba.MIN_COUNT, (w, p)
    assert len(pairs) > 20_000 and 2_000 < hidden < 5_000  # 24,999 kept, 3,811 with a word hidden


@pytest.mark.slow
def test_the_committed_transformer_was_trained_on_these_pairs(pairs):
    # made again here from the pinned packages: the sha256 the Transformer's vocabulary records, and its run's report
    vocab = json.loads(translator.DIRECTORY.joinpath("transformer-mt.vocab.json").read_text(encoding="utf-8"))
    report = json.loads(translator.DIRECTORY.joinpath("transformer-mt.json").read_text(encoding="utf-8"))
    assert report["tatoeba"] == {"kept": len(pairs), "repeat": tatoeba.REPEAT, "min_count": tatoeba.MIN_COUNT}
    assert tatoeba.checksum(pairs) == vocab["tatoeba_sha256"]
    # and the RNNs were not (their vocabulary names no Tatoeba pairs)
    assert "tatoeba_sha256" not in json.loads(translator.DIRECTORY.joinpath("vocab.json").read_text(encoding="utf-8"))
