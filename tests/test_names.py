"""The translators' list of names (app/engine/models/mt/names.tsv, built by tools/translator/names.py from CC-CEDICT's
proper nouns): how a definition is read, how one Chinese word is chosen among several, and how the page uses the
list for an <unk> whose attention points at a name the dictionary gives no Chinese."""

from collections import Counter

import pytest

from app.engine.models import mt_check, mt_dictionary, translator
from tests.support.rebuild import rebuilt_in_two_processes
from tools.translator import names


def entry(simplified, pinyin, *definitions):
    return {"simplified": simplified, "traditional": simplified, "pinyin": pinyin, "definitions": list(definitions)}


@pytest.mark.parametrize(
    ("definition", "read"),
    [
        ("surname Chen", [("chen", "surname")]),
        ("surname Huang or Hwang", [("huang", "surname"), ("hwang", "surname")]),
        ("Sara or Sarah (name)", [("sara", "given"), ("sarah", "given")]),
        ("Kate (female given name)", [("kate", "given")]),
        ("Sydney", [("sydney", "place")]),
        ("London, capital of United Kingdom", [("london", "place")]),
        ("Lima (city in Peru)", [("lima", "place")]),
        ("Mona Lisa", [("mona lisa", "multiword")]),  # a name of several words
        ("the Great Wall", [("great wall", "multiword")]),
        ("Los Angeles, California", [("los angeles", "multiword")]),
        ("Yellow River or Huang He", [("yellow river", "multiword"), ("huang he", "multiword")]),
        ("Feng Xiaogang (1958-), film director", []),  # a person: what follows is no kind of place
        ("surname Ben (rare)", []),
        ("percent", []),
    ],
)
def test_a_definition_is_read_as_a_name_only_in_its_shapes(definition, read):
    assert names.readings(definition) == read


def test_only_proper_nouns_in_chinese_characters_are_read():
    found = names.candidates(
        [
            entry("陈", "Chen2", "surname Chen"),
            entry("陈", "chen2", "to lay out; Chen"),  # no proper noun
            entry("AA制", "A A zhi4", "Amir"),  # not Chinese characters only
        ]
    )
    assert found == {("chen", "surname"): {("陈", "Chen2")}}


def test_a_surname_is_the_character_of_the_most_people_and_else_the_most_frequent_word():
    entries = [
        entry("李", "Li3", "surname Li"),
        entry("里", "Li3", "surname Li"),
        entry("李白", "Li3 Bai2", "Li Bai (701-762), Tang dynasty poet"),
        entry("莎拉", "Sha1 la1", "Sara or Sarah (name)"),
        entry("萨拉", "Sa4 la1", "Sarah (name)"),
    ]
    frequency = {"里": 1e-3, "李": 1e-4, "萨拉": 1e-6, "莎拉": 1e-5}.get
    people = names.people(entries)
    assert people == Counter({("li", "李"): 1})
    chosen = names.choose(names.candidates(entries), lambda name: True, people, frequency)
    assert chosen == {"li": ("李", "surname"), "sara": ("莎拉", "given"), "sarah": ("莎拉", "given")}
    without_people = names.choose(names.candidates(entries), lambda name: True, Counter(), frequency)
    assert "li" not in without_people  # two characters and no person to choose by: the commoner word is a guess
    one = names.choose(names.candidates(entries[:1]), lambda name: True, Counter(), frequency)
    assert one == {"li": ("李", "surname")}  # one character: no choice to make
    assert names.choose(names.candidates(entries), lambda name: name != "li", people, frequency).keys() == {
        "sara",
        "sarah",
    }


def test_the_committed_list_holds_only_words_the_dictionary_gives_no_chinese_and_names_that_are_words():
    listed = mt_dictionary.names()
    assert len(listed) > 3000
    assert all(mt_dictionary.gives_no_chinese(name) or name in mt_dictionary.name_words() for name in listed)
    names_that_are_words = {name: listed[name] for name in ("mark", "bill", "brown")}
    assert names_that_are_words == {"mark": "马克", "bill": "比尔", "brown": "布朗"}
    assert all(name.replace(" ", "").isalpha() for name in listed)  # so mt_check weighs each (New York: one word)
    assert {name: listed[name] for name in ("chen", "li", "wang", "sydney", "xiamen")} == {
        "chen": "陈",
        "li": "李",  # the dictionary's li: a noun with no counterpart, "not translated: a name"
        "wang": "王",
        "sydney": "悉尼",
        "xiamen": "厦门市",
    }


def test_a_name_is_read_only_where_the_dictionary_gives_no_chinese():
    assert mt_dictionary.name("Chen") == "陈"
    assert mt_dictionary.name("li") == "李"
    assert mt_dictionary.name("london") is None and mt_dictionary.lookup("london").chinese == "伦敦"  # the lexicon's
    assert mt_dictionary.name("the") is None  # a function word without a counterpart
    assert mt_dictionary.name("zyzzyva") is None
    assert translator.dictionary_word("chen") == "陈"
    assert translator.dictionary_word("zyzzyva") is None
    assert "陈" in mt_check.dictionary_senses("chen")


def test_a_bad_kind_is_a_clear_error(tmp_path):
    (tmp_path / mt_dictionary.NAMES_FILE).write_text("name\tchinese\tkind\nchen\t陈\tsaint\n", encoding="utf-8")
    with pytest.raises(ValueError, match="chen.*saint"):
        mt_dictionary.names(tmp_path)


@pytest.mark.parametrize(
    ("model", "sentence", "name", "chinese"),
    [
        ("rnnsearch", "we went to Xiamen last summer", "xiamen", "厦门市"),
        ("transformer-mt", "we went to Xiamen last summer", "xiamen", "厦门市"),
        ("transformer-mt", "Mr Chen is my teacher", "chen", "陈"),
    ],
)  # RNNencdec has no attention to point with
def test_an_unknown_name_is_written_in_chinese_where_attention_points(model, sentence, name, chinese):
    result = translator.translate(translator.load(model), sentence, beam=translator.DEFAULT_BEAM)
    assert name in result.unknown
    replaced = {r.word: r for r in translator.replace_unknown(result)}
    assert replaced[chinese].origin == "dictionary"
    assert result.source[replaced[chinese].source] == name
    output = translator.output_words(result)
    assert chinese in output and name not in output
    assert not mt_check.check(list(result.source), output).invented


def test_a_dropped_name_is_marked_left_out_but_the_end_guard_does_not_wait_for_it():
    """RNNsearch writes no <unk> for chen: the page marks the name left out, as a dropped noun is marked. The end
    guard, which waits for a dropped noun, does not wait for a listed name: forcing it in garbled the rest."""
    model = translator.load("rnnsearch")
    result = translator.translate(model, "Mr Chen is my teacher", beam=translator.DEFAULT_BEAM, candidates=True)
    output = translator.output_words(result)
    assert "陈" not in output and "chen" not in output
    marked = [result.source[j] for j in mt_check.check(list(result.source), output).left_out]
    assert marked == ["chen"]
    assert "chen" not in translator.left_out(result, result.steps[: len(result.target)])
    assert mt_check.is_listed_name("chen") and not mt_check.is_english_content("chen")  # the HSK judge's: unchanged
    assert not mt_check.is_listed_name("li")  # the dictionary reads li (a noun without Chinese): weighed as before


@pytest.mark.slow
def test_the_list_is_rebuilt_byte_for_byte(tmp_path):
    committed = (mt_dictionary.DIRECTORY / mt_dictionary.NAMES_FILE).read_bytes()
    for written in rebuilt_in_two_processes("tools.translator.names", tmp_path):
        assert written.read_bytes() == committed, written.name


@pytest.mark.parametrize("model", ["rnnsearch", "transformer-mt"])
@pytest.mark.parametrize(
    ("sentence", "name", "chinese", "before"),
    [
        ("I live in New York", "New York", "纽约", "约克"),
        ("We visited the Great Wall", "Great Wall", "长城", "墙"),
        ("She moved to the United States", "United States", "美国", "团结"),
    ],
)
def test_a_name_of_several_words_typed_with_capitals_is_read_as_one(model, sentence, name, chinese, before):
    """Before, each word was read alone: 新 约克, 棒 墙, 团结 国家, and nothing was marked."""
    result = translator.translate(translator.load(model), sentence, beam=translator.DEFAULT_BEAM, candidates=True)
    assert name in result.source and name in result.unknown
    assert mt_dictionary.unknown_token(name) == "<unk:noun>"  # not <unk:nouns> for United States
    output = translator.output_words(result)
    assert chinese in output and before not in output
    assert not mt_check.check(list(result.source), output).invented
