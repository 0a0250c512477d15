"""The `train.py --more-unknowns` trial (tools/translator/unknowns.py, not kept: tools/translator/README.md): training
pairs with two or three nouns hidden on both sides, as the corpus hides a word."""

import pytest

from app.engine.models import mt_check
from tools.translator import dataset, unknowns


@pytest.fixture(scope="module")
def train():
    return dataset.generate(sizes={"train": 2000, "val": 0, "test": 0})["train"]


def test_the_tiger_and_the_name_are_hidden_the_time_and_the_verb_are_not():
    pair = {
        "en": "yesterday alice will drink tea with the tiger",
        "zh": "昨天 爱丽丝 会 跟 老虎 喝 茶",
        "align": [[0], [1], [2], [5], [7], [3], [4]],
        "grammar": "story",
    }
    content = mt_check.content_words()
    # yesterday: a time; drink: not a noun; alice, tea and tiger: nouns, each aligned alone to its Chinese word
    assert unknowns.hideable(pair, content) == [(1, 1), (4, 6), (7, 4)]
    hidden = unknowns.hidden(pair, [(1, 1), (7, 4)])
    assert hidden["en"] == "yesterday <unk:noun> will drink tea with the <unk:noun>"
    assert hidden["zh"] == "昨天 <unk> 会 跟 <unk> 喝 茶"
    assert hidden["align"] == pair["align"]


def test_each_extra_pair_is_a_training_pair_with_two_or_three_nouns_more_hidden(train):
    extra = unknowns.extra_pairs(train, 300, seed=8)
    assert len(extra) == 300 and extra == unknowns.extra_pairs(train, 300, seed=8)  # seeded
    by_alignment = {}
    for pair in train:
        by_alignment.setdefault((len(pair["en"].split()), str(pair["align"]), pair["grammar"]), []).append(pair)
    content = mt_check.content_words()
    for pair in extra:
        english = pair["en"].split()
        made_from = []
        for original in by_alignment[(len(english), str(pair["align"]), pair["grammar"])]:
            changed = [j for j, (a, b) in enumerate(zip(original["en"].split(), english, strict=True)) if a != b]
            if not all(english[j].startswith("<unk:noun") for j in changed):
                continue
            chosen = [(j, i) for j, i in unknowns.hideable(original, content) if j in changed]
            if 2 <= len(chosen) == len(changed) <= 3 and unknowns.hidden(original, chosen) == pair:
                made_from.append(original)
        assert made_from, pair
