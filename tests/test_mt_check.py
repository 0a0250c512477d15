"""The translation checked against the dictionary (app/engine/models/mt_check.py), on hand-worked sentences: what
each Chinese word translates, the words made up, the English words left out; and, for any words the dictionary
knows, its own translation is never marked (hypothesis)."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.models import mt_check, mt_dictionary


def test_tom_chase_jerry_translates_word_for_word():
    checked = mt_check.check(["tom", "chase", "jerry"], ["汤姆", "追逐", "杰瑞"])
    assert checked.translates == ((0,), (1,), (2,))
    assert checked.content == (True, True, True)
    assert (checked.invented, checked.left_out) == ((), ())


def test_a_word_no_english_word_asks_for_is_made_up_and_the_one_it_replaced_left_out():
    checked = mt_check.check(["tom", "chase", "jerry"], ["汤姆", "吃", "杰瑞"])
    assert checked.translates == ((0,), (), (2,))
    assert checked.invented == (1,)  # 吃 (eat): no word of the sentence
    assert checked.left_out == (1,)  # chase: nothing in the output


def test_grammar_words_and_measure_words_are_never_made_up():
    # 的 is also the dictionary's "target" (a noun); here, as every particle and measure word, it is grammar
    checked = mt_check.check(["my", "cat", "is", "sleeping"], ["我的", "一", "只", "猫", "的", "正在", "睡觉", "了"])
    assert checked.invented == ()
    assert checked.content == (False, False, False, True, False, False, True, False)
    assert "只" not in mt_check.content_words() and "的" not in mt_check.content_words()


def test_inflected_forms_and_joined_words_translate():
    checked = mt_check.check(["he", "walked", "every", "morning"], ["他", "每", "天", "早上", "走路", "了"])
    assert checked.translates[4] == (1,)  # walked -> walk -> 走路
    assert checked.translates[1] == (2,)  # 每: every
    assert 2 in checked.translates[2]  # 天, with 每 beside it: 每天 is every day
    assert (checked.invented, checked.left_out) == ((), ())


def test_what_the_corpus_taught_is_not_made_up():
    # 带 is no sense of bring in the dictionary (带来, 拿来); the corpus writes "she brought a book" 她 带 了 一 本 书
    assert "带" not in mt_check.counterparts("brought", with_taught=False)
    assert mt_check.check(["she", "brought", "a", "book"], ["她", "带", "了", "一", "本", "书"]).invented == ()
    # rained: the dictionary's own (the wide part reads it as the verb rain, 下雨; the core's rain is the noun 雨)
    assert "下雨" in mt_check.counterparts("rained", with_taught=False)
    showed = mt_check.check(["she", "showed", "me", "a", "map"], ["她", "给", "我", "看", "了", "一", "张", "地图"])
    assert showed.translates[3] == (1,) and showed.left_out == ()  # 给 我 看: showed me
    shows = mt_check.check(["she", "shows", "me", "a", "map"], ["她", "给", "我", "看", "一", "张", "地图"])
    assert shows.invented == ()  # every form of show: the table is by lemma


def test_what_the_corpus_taught_beside_another_word_needs_that_word():
    """last -> 昨天 only ever in *last night*, on -> 走路 only in *on foot*: beside those words a translation, alone
    made up (RNNsearch wrote 昨天 for *last summer*), and never a candidate without them."""
    assert mt_check.taught()["last"]["昨天"].beside == {"night"} and mt_check.taught()["bring"]["带"].beside == set()
    assert mt_check.check(["i", "slept", "last", "night"], ["我", "昨天", "晚上", "睡觉", "了"]).invented == ()
    assert mt_check.check(["i", "swam", "last", "summer"], ["我", "昨天", "夏天", "游泳", "了"]).invented == (1,)
    assert mt_check.check(["we", "go", "on", "foot"], ["我们", "走路", "去"]).invented == ()
    assert mt_check.check(["we", "go", "on", "monday"], ["我们", "星期一", "走路", "去"]).invented == (2,)
    assert "走路" in mt_check.allowed_content(["on", "foot"])
    assert "走路" not in mt_check.allowed_content(["on", "monday"])
    assert "带" in mt_check.allowed_content(["she", "brought", "it"])  # taught alone: in any sentence


def test_what_the_corpus_taught_right_before_another_word_needs_that_word_after_it():
    """go -> 回 only ever in *go home* (回 家), what -> 几 only in *what time*: before those words a translation,
    elsewhere not (RNNsearch wrote 你 能 坐 公共汽车 回 for *you can go by bus*, go left out)."""
    assert mt_check.taught()["go"]["回"] == mt_check.Taught(frozenset(), frozenset({"home"}))
    assert mt_check.check(["we", "go", "home"], ["我们", "回", "家"]).left_out == ()
    assert mt_check.check(["we", "went", "home"], ["我们", "回", "家", "了"]).left_out == ()  # every form of go
    assert mt_check.check(["you", "can", "go", "by", "bus"], ["你", "能", "坐", "公共汽车", "回"]).left_out == (2,)
    assert mt_check.check(["you", "can", "go", "by", "bus"], ["你", "能", "坐", "公共汽车", "去"]).left_out == ()
    assert mt_check.check(["what", "time", "is", "it"], ["几", "点", "了"]).left_out == ()
    assert mt_check.check(["what", "is", "it"], ["几", "是"]).left_out == (0,)
    assert "回" not in mt_check.counterparts("go")  # anywhere: only what was taught with nothing asked of its place


def test_be_do_have_and_contractions_are_never_left_out():
    assert mt_check.check(["do", "you", "like", "apples"], ["你", "喜欢", "苹果", "吗"]).left_out == ()
    assert mt_check.check(["the", "river", "is", "long"], ["河", "很", "长"]).left_out == ()
    assert mt_check.check(["he", "isn't", "running"], ["他", "没", "在", "跑"]).left_out == ()
    assert mt_check.check(["do", "you", "like", "apples"], ["你", "喜欢", "吗"]).left_out == (3,)  # apples


def test_a_question_word_that_asks_and_a_number_are_left_out_when_lost():
    """A translation without its question word is no question, one without its number counts nothing."""
    assert mt_check.check(["where", "did", "the", "problem", "appear"], ["问题", "出现", "了"]).left_out == (0,)
    assert mt_check.check(["where", "did", "the", "problem", "appear"], ["问题", "出现", "在", "哪里"]).left_out == ()
    forty = ["our", "class", "has", "forty", "students"]
    assert mt_check.check(forty, ["我们的", "班", "学生", "了", "学生"]).left_out == (3,)
    assert mt_check.check(forty, ["我们的", "班", "有", "四十", "个", "学生"]).left_out == ()
    assert mt_check.check(["we", "have", "two", "cats"], ["我们", "有", "两", "只", "猫"]).left_out == ()  # 两, 二


def test_a_relative_question_word_and_one_are_not_weighed():
    """who after a noun opens a relative clause, which Chinese writes with 的; one is as often a pronoun as a count."""
    man = ["the", "man", "who", "lives", "here", "is", "tall"]
    assert not mt_check.is_asking(man, 2) and mt_check.is_asking(["who", "lives", "here"], 0)
    assert mt_check.check(man, ["住", "在", "这里", "的", "男人", "很", "高"]).left_out == ()
    assert not mt_check.is_number("one") and mt_check.is_number("thousand") and not mt_check.is_number("many")
    assert mt_check.check(["i", "like", "this", "one"], ["我", "喜欢", "这", "个"]).left_out == ()


def test_what_the_corpus_taught_a_question_word_translates_it():
    """how old -> 几 岁, what time -> 几 点, how many -> 多少: the corpus aligns 几 and 多少 with the question word."""
    assert mt_check.check(["how", "old", "is", "he"], ["他", "几", "岁"]).left_out == ()
    assert mt_check.check(["what", "time", "is", "it"], ["几", "点", "了"]).left_out == ()
    assert mt_check.check(["how", "many", "books", "do", "you", "have"], ["你", "有", "多少", "书"]).left_out == ()
    assert mt_check.check(["how", "many", "books", "do", "you", "have"], ["你", "有", "很多", "书"]).left_out == (0,)


def test_a_word_kept_in_english_and_an_adverb_put_in_for_an_unknown_word_translate():
    assert mt_check.check(["zorbing", "is", "fun"], ["zorbing", "很", "有趣"]).translates[0] == (0,)
    checked = mt_check.check(["she", "listens", "carefully"], ["她", "小心地", "听"])  # 〔小心地〕 for an <unk>
    assert checked.translates[1] == (2,) and checked.left_out == ()


def test_a_taught_table_without_its_header_is_refused(tmp_path: Path):
    path = tmp_path / "taught.tsv"
    path.write_text("river\t河岸\t3\t-\t-\n", encoding="utf-8")
    with pytest.raises(ValueError, match="taught.tsv: expected the header en zh pairs with before"):
        mt_check.taught(path)
    path.write_text("en\tzh\tpairs\twith\tbefore\nriver\t河岸\t3\t-\n", encoding="utf-8")
    with pytest.raises(ValueError, match="taught.tsv row 2"):
        mt_check.taught(path)


# Words whose usual sense has a Chinese content word: each alone translates to that word.
USUAL = sorted(
    lemma
    for lemma, senses in mt_dictionary.load().senses.items()
    if senses[0].chinese and senses[0].role in mt_check.CONTENT_ROLES and lemma.isalpha()
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(USUAL), min_size=1, max_size=12))
def test_the_dictionarys_own_translation_is_never_marked(words):
    output = [mt_dictionary.lookup(word).chinese for word in words]
    checked = mt_check.check(words, output)
    assert checked.invented == () and checked.left_out == ()
    assert all(i in found for i, found in enumerate(checked.translates))  # each its own word, at least


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(USUAL), min_size=1, max_size=12), st.data())
def test_a_dropped_word_is_left_out_unless_another_word_means_it_too(words, data):
    drop = data.draw(st.integers(0, len(words) - 1))
    output = [mt_dictionary.lookup(word).chinese for i, word in enumerate(words) if i != drop]
    checked = mt_check.check(words, output)
    joined = {a + b for a, b in zip(output, output[1:], strict=False)}
    others = mt_check.counterparts(words[drop]) & (set(output) | joined)
    assert (drop in checked.left_out) == (not others and mt_check.is_english_content(words[drop]))
    assert checked.invented == ()


def test_a_word_no_dictionary_reads_is_marked_when_dropped_and_kept_in_english_translates_itself():
    """kilograms is in no dictionary: the model cannot translate it, and dropping it was not marked (我 买 了 三 个
    苹果). The end guard does not wait for it (translator.left_out keeps only words lookup reads)."""
    source = ["i", "bought", "three", "kilograms", "of", "apples"]
    assert mt_dictionary.reading("kilograms") is None and mt_dictionary.lookup("kilograms") is None
    assert mt_check.check(source, ["我", "买", "了", "三", "个", "苹果"]).left_out == (3,)
    assert mt_check.check(source, ["我", "买", "了", "三", "kilograms", "苹果"]).left_out == ()
    assert not mt_check.must_translate(["it", "'s", "mine"], 1)  # not a word of letters


def test_a_number_typed_in_digits_is_marked_when_dropped_and_kept_as_typed_translates_itself():
    """35 stays digits (source_words reads 0-20 and the tens in words): the Transformer's 在 我的 班 里 有 学生 dropped
    it, and nothing was marked."""
    source = ["there", "are", "35", "students", "in", "my", "class"]
    assert mt_dictionary.reading("35") is None and mt_check.is_digits("35")
    assert mt_check.check(source, ["在", "我的", "班", "里", "有", "学生"]).left_out == (2,)
    assert mt_check.check(source, ["在", "我的", "班", "里", "有", "35", "个", "学生"]).left_out == ()
    assert not mt_check.is_digits("３５") and not mt_check.is_digits("3x")  # ASCII digits only, the whole word
