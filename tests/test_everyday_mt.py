"""The hand-written held-out set of everyday sentences (tests/data/everyday_mt.jsonl) and its evaluation
(tools/translator/everyday.py): the set is well formed and not the corpus's; the counting is checked on
hand-made outputs, and the evaluation runs on a few sentences with the committed models."""

import json
from collections import Counter

import pytest

from app.engine.models import mt_check
from app.engine.models.translator import source_words
from tools.translator import dataset
from tools.translator.everyday import (
    BLIND2_PATH,
    BLIND3_PATH,
    BLIND4_PATH,
    BLIND5_PATH,
    BLIND_PATH,
    SET_PATH,
    SHAPES_PATH,
    Item,
    chrf,
    evaluate,
    found,
    read_set,
    score,
)

ITEMS = read_set()
SHAPES = read_set(SHAPES_PATH)
BLIND = read_set(BLIND_PATH)
BLIND2 = read_set(BLIND2_PATH)
BLIND3 = read_set(BLIND3_PATH)
BLIND4 = read_set(BLIND4_PATH)
BLIND5 = read_set(BLIND5_PATH)
CONTENT_WORDS = mt_check.content_words()


def well_formed(items):
    assert len({item.en for item in items}) == len(items)
    for item in items:
        words = source_words(item.en)
        assert 3 <= len(words) <= 15, item.en
        assert item.content and set(item.content) <= set(words), item.en  # content words are words of the sentence
        for english, alternatives in item.content.items():
            assert found(alternatives[0], list(item.zh)), (item.en, english)  # the reference's word (or words)
        assert all(word.strip() == word and word for word in item.zh), item.en  # spaced words, as the corpus writes


def test_the_set_is_sixty_everyday_sentences_with_references():
    assert len(ITEMS) >= 60
    well_formed(ITEMS)
    kinds = Counter(
        kind for line in SET_PATH.read_text(encoding="utf-8").splitlines() for kind in json.loads(line)["kinds"]
    )
    for kind in ("copula", "very", "negation", "will", "progressive", "past", "question", "please", "possessive"):
        assert kinds[kind] >= 3, kind
    for kind in ("plural", "measure", "time", "place", "because", "and", "but", "ditransitive", "manner"):
        assert kinds[kind] >= 1, kind


def test_the_second_set_is_seven_sentences_of_each_shape_of_the_third_part():
    well_formed(SHAPES)
    assert not {item.en for item in SHAPES} & {item.en for item in ITEMS}
    kinds = Counter(json.loads(line)["kinds"][0] for line in SHAPES_PATH.read_text(encoding="utf-8").splitlines())
    shapes = ("wh-question", "comparison", "to-infinitive", "present-perfect", "if-clause", "degree-complement")
    assert kinds == dict.fromkeys(shapes, 7)


def test_the_third_set_is_forty_sentences_written_blind():
    well_formed(BLIND)
    assert len(BLIND) == 40
    assert not {item.en for item in BLIND} & {item.en for item in ITEMS + SHAPES}


def test_the_fourth_set_is_forty_more_sentences_written_blind():
    well_formed(BLIND2)
    assert len(BLIND2) == 40
    assert not {item.en for item in BLIND2} & {item.en for item in ITEMS + SHAPES + BLIND}


def test_the_fifth_set_is_sixty_sentences_written_blind():
    well_formed(BLIND3)
    assert len(BLIND3) == 60
    older = {" ".join(source_words(item.en)) for item in ITEMS + SHAPES + BLIND + BLIND2}
    assert not {" ".join(source_words(item.en)) for item in BLIND3} & older  # seven were, and were replaced


def test_the_sixth_set_is_sixty_sentences_written_blind_and_none_is_tatoebas():
    well_formed(BLIND4)
    assert len(BLIND4) == 60
    older = {" ".join(source_words(item.en)) for item in ITEMS + SHAPES + BLIND + BLIND2 + BLIND3}
    assert not {" ".join(source_words(item.en)) for item in BLIND4} & older


def test_the_seventh_set_is_sixty_sentences_written_blind_and_none_is_tatoebas():
    well_formed(BLIND5)
    assert len(BLIND5) == 60
    older = {" ".join(source_words(item.en)) for item in ITEMS + SHAPES + BLIND + BLIND2 + BLIND3 + BLIND4}
    assert not {" ".join(source_words(item.en)) for item in BLIND5} & older


def test_the_set_is_not_the_corpus_generators():
    generated = dataset.generate(sizes={"train": 1000, "val": 10, "test": 10})
    sentences = {pair["en"] for split in generated.values() for pair in split}
    vocabulary = {word for sentence in sentences for word in sentence.split()}
    every_set = ITEMS + SHAPES + BLIND + BLIND2 + BLIND3 + BLIND4 + BLIND5
    hand_written = {" ".join(source_words(item.en)) for item in every_set}
    assert not sentences & hand_written
    assert dataset.hand_written_sentences() == hand_written
    beyond = [item.en for item in ITEMS if set(source_words(item.en)) - vocabulary]
    assert len(beyond) >= 0.4 * len(ITEMS)  # many have a word a thousand generated pairs never write


def test_the_counting_on_hand_made_outputs():
    item = Item("Tom's dog ate the cake", ("汤姆", "的", "狗", "吃", "了", "蛋糕"),
                {"tom": ("汤姆",), "dog": ("狗",), "ate": ("吃",), "cake": ("蛋糕", "糕")})  # fmt: skip
    knows = {"tom", "'s", "dog", "the"}.__contains__  # a model that knows four of the six words
    right = score(item, ["汤姆", "的", "狗", "吃", "了", "糕"], knows, CONTENT_WORDS)  # an alternative counts
    assert (right.words, right.known, right.content_right, right.invented) == (6, 4, True, ())
    assert right.known_with_dictionary == 6  # ate -> eat, cake: the dictionary knows both
    wrong = score(item, ["汤姆", "的", "狗", "吃", "了", "学生", "是", "学生"], knows, CONTENT_WORDS)
    assert not wrong.content_right and wrong.invented == ("学生", "学生")  # 是 is grammar, 学生 translates nothing
    assert wrong.unmarked == ()  # the page marks both made up
    assert wrong.missing == wrong.missing_marked == ("cake",)  # and cake left out
    assert score(item, ["汤姆", "吃", "了", "蛋糕", "的", "狗"], knows, CONTENT_WORDS).content_right  # order not judged
    short = Item("he is short", ("他", "很", "矮"), {"he": ("他",), "short": ("矮",)})
    sense = score(short, ["他", "很", "短"], knows, CONTENT_WORDS)  # the dictionary's other sense of short
    assert not sense.content_right and sense.invented == ()  # wrong, but it translates a word of the sentence
    assert sense.missing == ("short",) and sense.missing_marked == ()  # the page cannot tell a wrong sense
    sung = Item("she sings beautifully", ("她", "唱", "得", "很", "好听"), {"sings": ("唱",), "beautifully": ("好听",)})
    pretty = score(sung, ["她", "漂亮", "地", "唱"], knows, CONTENT_WORDS)  # a sense the lexicon gives beautiful
    assert not pretty.content_right and pretty.invented == () and pretty.missing == ("beautifully",)
    assert score(sung, ["她", "学生", "地", "唱"], knows, CONTENT_WORDS).invented == ("学生",)
    phone = Item("call me", ("给", "我", "打", "电话"), {"call": ("打 电话", "打电话")})  # two words, one after another
    assert score(phone, ["给", "我", "打", "电话"], knows, CONTENT_WORDS).content_right
    assert not score(phone, ["电话", "给", "我", "打"], knows, CONTENT_WORDS).content_right
    daily = Item("I run every morning", ("我", "每天", "早上", "跑步"), {"run": ("跑步",), "morning": ("早上",)})
    assert score(daily, ["我", "每", "天", "早上", "跑步"], knows, CONTENT_WORDS).invented == ()  # 每 天: the 每天
    alone = score(daily, ["我", "天", "早上", "跑步"], knows, CONTENT_WORDS)
    assert alone.invented == alone.unmarked == ()  # 天 is what the corpus taught every beside morning (每 天 早上)
    listening = Item("the students are listening to the teacher", ("学生", "们", "正在", "听", "老师"),
                     {"students": ("学生",), "listening": ("听",), "teacher": ("老师",)})  # fmt: skip
    gone = score(listening, ["学生", "们", "正在", "去", "老师"], knows, CONTENT_WORDS)
    assert gone.invented == ("去",)  # to -> 去 is taught only beside go: nothing of this sentence says 去
    assert gone.unmarked == () and gone.missing == ("listening",)  # the page marks it made up


@pytest.mark.parametrize("name", ["rnnsearch", "transformer-mt"])
def test_the_evaluation_of_a_few_sentences(name):
    few = [item for item in ITEMS if item.en in ("the old man walks slowly", "I usually get up at seven")]
    report = evaluate(name, few)
    assert report.sentences == 2
    assert report.known == pytest.approx(10 / 11)  # slowly is a rare word: the models read it as <unk:adv-ly>
    assert report.known_with_dictionary == 1.0
    assert report.from_dictionary >= 1 and report.kept == 0  # slowly -> 慢慢: attention pointed at it
    assert report.sentences_inventing == len(report.examples) == report.invented_unmarked == 0
    assert report.content_right == 1.0  # get up -> 起床, a phrasal verb of the grammar; at seven -> 七 点
    assert 0 < report.chrf <= 100


def test_chrf_falls_for_words_the_reference_does_not_have_where_content_right_does_not():
    """chrF against the reference (sacrebleu's): 100 for the reference itself, and lower for a translation that has
    every content word right but adds words, which "content right" passes alike."""
    people = Item("China has 1.4 billion people", ("中国", "有", "十四亿", "人"),
                  {"china": ("中国",), "billion": ("十四亿",), "people": ("人", "人们")})  # fmt: skip
    right = ["中国", "有", "十四亿", "人"]
    salad = ["中国", "有", "的", "人们", "们", "人们", "了", "十四亿"]
    knows = {"china", "has", "people"}.__contains__
    assert score(people, right, knows, CONTENT_WORDS).content_right
    assert score(people, salad, knows, CONTENT_WORDS).content_right
    assert chrf([people], [right]) == pytest.approx(100.0)
    assert chrf([people], [salad]) < 60 and chrf([people], [["猫"]]) == 0.0  # no character in common
    assert chrf([people, people], [right, salad]) > chrf([people, people], [salad, salad])
