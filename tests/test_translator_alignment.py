"""tools/translator/alignment.py: alignment accuracy split by kind of Chinese word, on a few hand-made pairs."""

from app.engine.models import mt_check
from tools.translator import alignment

PAIRS = [  # the gold alignments as the corpus writes them; a wrong link makes a word a miss
    {"en": "tom chase jerry", "zh": "汤姆 追逐 杰瑞", "align": [[0], [1], [2]]},
    {"en": "the cat ate the cake", "zh": "猫 吃 了 蛋糕", "align": [[1], [2], [2], [4]]},
    {"en": "tom chase jerry", "zh": "汤姆 追逐 杰瑞", "align": [[2], [1], [0]]},  # 汤姆 and 杰瑞 crossed: two misses
]


def test_every_word_is_counted_once_under_its_kind():
    counts, missed = alignment.by_kind("rnnsearch", PAIRS)
    assert sum(n for _, n in counts.values()) == sum(len(p["zh"].split()) for p in PAIRS)
    assert counts["content"][1] == 9 and counts["grammar"] == (counts["grammar"][0], 1)  # 了 is the grammar's
    assert missed["汤姆"] >= 1 and missed["杰瑞"] >= 1  # the crossed links cannot be hit
    assert counts["content"][0] == 9 - 2  # RNNsearch looks where the corpus aligns every other content word
    assert alignment.kind("了") == "grammar" and "了" in mt_check.GRAMMAR
    assert alignment.kind("<unk>") == "<unk>" and alignment.kind("只") == "other" and alignment.kind("猫") == "content"
