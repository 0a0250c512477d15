"""The translators' training data: tools/translator/corpus.py (seeded, checked by checksum and by its properties)."""

import random

import pytest

from app.engine.text.lexicon import load_lexicon
from tools.translator import corpus

SMALL = {"train": 600, "val": 60, "test": 120}
SMALL_SHA256 = "70d201076ce1a4ad0f2141ec5362875d7daee29188a456dcce099ae8c838da0d"


@pytest.fixture(scope="module")
def small():
    return corpus.generate(sizes=SMALL, keep_combos=True)


def test_small_corpus_is_pinned(small):
    assert corpus.checksum(small) == SMALL_SHA256
    assert corpus.checksum(corpus.generate(sizes=SMALL)) == SMALL_SHA256  # the combos are not part of the data


def test_another_seed_gives_other_sentences():
    assert corpus.checksum(corpus.generate(seed=corpus.SEED + 1, sizes=SMALL)) != SMALL_SHA256


def test_every_word_is_a_lexicon_word(small):
    """Chinese words as the lexicon lists them; English words found by the lexicon, or forms of the grammar's verbs."""
    lexicon = load_lexicon()
    base = {form: verb[0] for verb in [*corpus.VERBS, corpus.SIT, corpus.PUT, corpus.GO] for form in verb[:4]}
    for pairs in small.values():
        for pair in pairs:
            for word in pair["zh"].split():
                assert word in lexicon.chinese_words, (word, pair["zh"])
            for word in pair["en"].split():
                assert word == "'s" or lexicon.lookup(base.get(word, word)) is not None, (word, pair["en"])


def test_alignments_point_into_the_sentence(small):
    for pairs in small.values():
        for pair in pairs:
            en, zh = pair["en"].split(), pair["zh"].split()
            assert len(pair["align"]) == len(zh)
            assert all(links and all(0 <= j < len(en) for j in links) for links in pair["align"])
            assert len(en) <= corpus.MAX_EN


def test_alignments_are_not_diagonal(small):
    """A good share of the sentences have crossing links (a word moved), not just a monotone path."""
    crossing = 0
    pairs = small["train"]
    for pair in pairs:
        firsts = [links[0] for links in pair["align"]]
        crossing += any(b < a for a, b in zip(firsts, firsts[1:], strict=False))
    assert crossing / len(pairs) > 0.4


def test_splits_share_no_sentence_and_test_holds_unseen_combinations(small):
    held = corpus.held_out_combinations(random.Random(corpus.SEED))
    english = {name: {p["en"] for p in pairs} for name, pairs in small.items()}
    assert not english["train"] & english["val"] and not english["train"] & english["test"]
    assert not english["val"] & english["test"]
    for pair in small["test"]:
        assert any(tuple(c) in held for c in pair["combos"]), pair["en"]
    for pair in small["train"] + small["val"]:
        assert not any(tuple(c) in held for c in pair["combos"]), pair["en"]
    assert ("subj-verb", "tom", "chase") not in held


def test_the_grammar_reorders_as_chinese_does(small):
    """Spot checks of the rules on generated sentences: time/place before the verb, 的, 把, measure words, bank."""
    pairs = [p for split in small.values() for p in split]
    by_rule = {
        "place before the verb": [p for p in pairs if " in the library" in p["en"] and "在 图书馆" in p["zh"]],
        "relative clause": [p for p in pairs if " that " in p["en"] and " 的 " in f" {p['zh']} "],
        "possessive": [p for p in pairs if " 's " in p["en"]],
        "把": [p for p in pairs if " put " in f" {p['en']} "],
        "measure words": [p for p in pairs if any(f" {m} " in p["zh"] for m in ("本", "只", "个", "位", "张"))],
    }
    assert all(by_rule.values()), {k: len(v) for k, v in by_rule.items()}
    for pair in by_rule["把"]:
        assert "把" in pair["zh"].split()
    for pair in pairs:
        en, zh = f" {pair['en']} ", pair["zh"].split()
        if " river bank" in en or "bank of the river" in en:
            assert "河岸" in zh and ("银行" in zh) == (
                en.count(" bank ") > en.count("river bank ") + en.count(" bank of")
            )
        elif " bank " in en:
            assert "银行" in zh and "河岸" not in zh


def test_the_texts_sentence_is_in_training():
    splits = corpus.generate(sizes={"train": 1, "val": 0, "test": 0})
    assert splits["train"][0] == {"en": "tom chase jerry", "zh": "汤姆 追逐 杰瑞", "align": [[0], [1], [2]]}
