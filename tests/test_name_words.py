"""Names that are also words (app/engine/models/mt/name_words.tsv, built by tools/translator/name_words.py from the US
Census Bureau's 1990 name lists): which names the list holds, where a typed sentence shows that such a word is a name
(translator.read_words), and what the translators then write: never the word's Chinese (优雅 for Grace, 棕色 for
Mrs Brown), but the list of names' Chinese (Mark -> 马克) or the name kept in English, marked when dropped."""

import pytest

from app.engine.models import mt_check, mt_dictionary, translator
from tests.support.rebuild import rebuilt_in_two_processes
from tools.translator import name_words


def reading(chinese, lemma="word"):
    return mt_dictionary.Reading(lemma, "base", chinese, "cedict", "noun", None)


def test_a_name_is_listed_when_frequent_enough_and_a_common_word():
    words = {"grace": reading("优雅"), "tom": reading("汤姆"), "jerry": reading("杰瑞"), "may": reading("可以", "may"),
             "the": reading(None), "brown": reading("棕色"), "rose": reading("玫瑰")}  # fmt: skip
    chosen = name_words.choose(
        given={"grace": 0.189, "tom": 0.117, "jerry": 0.432, "may": 0.029, "the": 0.5, "sarah": 0.3, "in": 0.003,
               "rose": 0.296},
        surnames={"brown": 0.621, "rose": 0.024, "grace": 0.009},
        common=frozenset({"优雅", "棕色", "玫瑰", "可以"}),  # 汤姆 only a proper noun there; 杰瑞 not there at all
        lookup=words.get,
    )  # fmt: skip
    assert chosen == {  # may: a month; in: too rare; every other first name listed as first
        "grace": "given",
        "brown": "surname",
        "rose": "given",
        "tom": "first",
        "jerry": "first",
        "may": "first",
        "the": "first",
        "sarah": "first",
    }


def test_the_census_lists_are_read_as_percentages(tmp_path):
    path = tmp_path / "dist.female.first"
    path.write_text("MARY           2.629  2.629      1\nGRACE          0.189 50.000    100\n", encoding="ascii")
    assert name_words.census(path) == {"mary": 2.629, "grace": 0.189}


def test_the_committed_list():
    listed = mt_dictionary.name_words()
    assert {name: listed.get(name) for name in ("grace", "hope", "mark", "sue", "brown", "white", "may", "jerry")} == {
        "grace": "given",
        "hope": "given",
        "mark": "given",
        "sue": "given",
        "brown": "surname",
        "white": "surname",
        "may": "first",  # the month: a first name that is no word of the list
        "jerry": "first",  # the lexicon's name, 杰瑞
    }
    words = [name for name, kind in listed.items() if kind != "first"]
    assert len(words) > 200 and all(mt_dictionary.lookup(name).chinese for name in words)  # each a word translated
    assert "frank" in listed and "xiamen" not in listed  # frank: a noun with no Chinese, a first name all the same


def test_a_bad_kind_is_a_clear_error(tmp_path):
    (tmp_path / mt_dictionary.NAME_WORDS_FILE).write_text("name\tkind\tnoun\ngrace\tvirtue\t-\n", encoding="utf-8")
    with pytest.raises(ValueError, match="grace.*virtue"):
        mt_dictionary.name_words(tmp_path)


@pytest.mark.parametrize("row", ["grace\tgiven\t-", "brown\tsurname\tno", "grace\tgiven\tmaybe"])
def test_a_bad_noun_column_is_a_clear_error(tmp_path, row):
    (tmp_path / mt_dictionary.NAME_WORDS_FILE).write_text(f"name\tkind\tnoun\n{row}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="noun column"):
        mt_dictionary.names_no_noun(tmp_path)


def test_a_given_name_can_be_a_noun_by_lemminflect_or_by_the_dictionary():
    words = {"hope": reading("希望"), "sue": reading("起诉"), "aurora": reading("极光")}
    words["hope"] = words["hope"]._replace(role="verb")  # the dictionary's usual sense: the verb
    words["sue"] = words["sue"]._replace(role="verb")
    parts = {"hope": {"NOUN": ("hope",), "VERB": ("hope",)}, "sue": {"VERB": ("sue",)}, "aurora": {}}
    noun = {name: name_words.can_be_noun(name, words.get, parts.get) for name in words}
    assert noun == {"hope": True, "sue": False, "aurora": True}  # aurora: lemminflect does not know it
    text = name_words.name_words_text({"hope": "given", "sue": "given", "brown": "surname"}, noun.get)
    assert text.splitlines()[-3:] == ["brown\tsurname\t-", "hope\tgiven\tyes", "sue\tgiven\tno"]


def test_the_committed_names_that_cannot_be_nouns():
    assert mt_dictionary.names_no_noun() == {"clement", "drew", "misty", "rob", "rusty", "sandy", "sue"}


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("My sister Grace works at a bank", ["my", "sister", "Grace", "works", "at", "a", "bank"]),
        ("Grace works at a bank", ["grace", "works", "at", "a", "bank"]),  # first: the capital says nothing
        ("We wait. Grace is late", ["we", "wait", "grace", "is", "late"]),  # first of its sentence
        ('"Hope," said Mark.', ["hope", "said", "Mark"]),
        ("Our teacher Mrs Brown is kind", ["our", "teacher", "mrs", "Brown", "is", "kind"]),
        ("Mr. White likes tea", ["mr", "White", "likes", "tea"]),  # the title's dot ends no sentence
        ("I like Brown", ["i", "like", "brown"]),  # a surname only after a title or a first name
        ("John White is my teacher", ["John White", "is", "my", "teacher"]),  # a full name: one word
        ("Mark Brown is my teacher", ["Mark Brown", "is", "my", "teacher"]),
        ("I met John Smith", ["i", "met", "John Smith"]),  # a surname the dictionary gives no Chinese
        ("I met John today", ["i", "met", "john", "today"]),
        ("John Street is long", ["john", "street", "is", "long"]),  # a word the dictionary translates: no surname
        ("I told John Smith's son", ["i", "told", "John Smith", "'s", "son"]),
        ("Lisa Green and Tom Black are here", ["Lisa Green", "and", "Tom Black", "are", "here"]),
        ("John Smith And Mary Brown Are Here", ["john", "smith", "and", "mary", "brown", "are", "here"]),  # Title Case
        ("I met Mary Mrs Brown", ["i", "met", "mary", "mrs", "Brown"]),  # a title is no surname
        ("The White House is big", ["the", "White House", "is", "big"]),  # a name of several words: 白宫
        ("I live in New York", ["i", "live", "in", "New York"]),
        ("new york is big", ["new", "york", "is", "big"]),  # typed without capitals: two words
        ("The New York Times Is Good", ["the", "new", "york", "times", "is", "good"]),  # Title Case
        ("Mrs brown", ["mrs", "brown"]),  # typed in lower case
        ("brown bread and grace", ["brown", "bread", "and", "grace"]),
        ("The Green Mile Is A Good Book", ["the", "green", "mile", "is", "a", "good", "book"]),  # Title Case
        ("Tom chase Jerry", ["tom", "chase", "jerry"]),
        ("we met in May", ["we", "met", "in", "may"]),
        ("I'm sure Sue can't sue them", ["i", "am", "sure", "Sue", "can", "not", "sue", "them"]),
        ("Sue likes apples", ["Sue", "likes", "apples"]),  # first, but no noun, and the verb follows: a name
        ("We wait. Rob went home", ["we", "wait", "Rob", "went", "home"]),
        ("Sandy can swim", ["Sandy", "can", "swim"]),
        ("Sue them!", ["sue", "them"]),  # no verb after it: the word
        ("Rusty nails are sharp", ["rusty", "nails", "are", "sharp"]),
        ("Hope is important", ["hope", "is", "important"]),  # hope can be a noun: first, the capital says nothing
        ("Will is my brother", ["will", "is", "my", "brother"]),  # so can will (lemminflect)
        ("Sue Likes Apples", ["sue", "likes", "apples"]),  # Title Case
    ],
)
def test_a_name_is_kept_as_typed_only_where_the_text_shows_a_name(text, read):
    assert translator.read_words(text) == read
    assert translator.source_words(text) == " ".join(read).lower().split()  # the training data's reading: as it was
    shown, before = (" ".join(translator.typed_forms(text, w)) for w in (read, translator.source_words(text)))
    assert shown == before  # the page shows the words as typed either way


def test_a_name_typed_as_one_is_not_the_word():
    assert mt_dictionary.lookup("grace").chinese == "优雅" and mt_dictionary.lookup("Grace") is None
    assert mt_dictionary.lookup("Tom").chinese == "汤姆"  # not a name of the list: read as before
    assert mt_dictionary.unknown_token("Holly") == "<unk:noun>"  # not the ending's <unk:adv-ly>
    assert mt_dictionary.name("Mark") == "马克" and mt_dictionary.name("mark") is None
    assert "优雅" not in mt_check.counterparts("Grace") and "优雅" in mt_check.counterparts("grace")
    assert mt_check.is_unread("Grace")  # weighed: marked when dropped, translates itself kept in English


@pytest.mark.parametrize("model", ["rnnsearch", "transformer-mt"])
@pytest.mark.parametrize(
    ("sentence", "name", "word"),
    [
        ("My sister Grace works at a bank", "Grace", "优雅"),
        ("Our teacher Mrs Brown is kind", "Brown", "棕色"),
        ("I think Sue wants to sue the company", "Sue", None),
        ("John White is my teacher", "John White", "白"),  # a surname after a first name: a full name, one word
        ("Sue likes apples", "Sue", "起诉"),  # first in its sentence, but no noun, before its verb
        ("Rob works at a bank", "Rob", "抢劫"),
    ],
)
def test_the_translators_never_write_the_words_chinese_for_a_name(model, sentence, name, word):
    """Before, both wrote 我的 姐姐 优雅 …, 太太 棕色, 起诉 twice, 约翰 白, 起诉 喜欢 苹果 and 抢劫 在 …, and nothing
    was marked."""
    result = translator.translate(translator.load(model), sentence, beam=translator.DEFAULT_BEAM, candidates=True)
    output = translator.output_words(result)
    assert name in result.unknown and word not in output
    written = {"Brown": "布朗", "John White": "约翰·怀特"}.get(name, name)  # the list of names' Chinese, else English
    check = mt_check.check(list(result.source), output)
    assert not check.invented
    assert written in output or [result.source[j] for j in check.left_out] == [name]  # kept, or marked left out
    if name == "Sue" and word is None:
        assert output.count("起诉") == 1  # the verb sue, once


def test_the_api_reads_the_name_as_typed(client):
    response = client.get("/api/attention", params={"source": "I saw Mark and Grace in the park", "model": "rnnsearch"})
    assert response.status_code == 200, response.text
    facts = response.json()["translation"]
    assert facts["unknown_source"] == ["Mark", "Grace"] and facts["unknown_read_as"] == ["<unk:noun>"] * 2
    assert "Mark" in facts["source"] and "记号" not in facts["output"] and "优雅" not in facts["output"]
    origins = {r["word"]: r["origin"] for r in facts["replaced"]}
    assert origins == {"马克": "dictionary", "Grace": "english"}


@pytest.mark.slow
def test_the_list_is_rebuilt_byte_for_byte(tmp_path):
    committed = (mt_dictionary.DIRECTORY / mt_dictionary.NAME_WORDS_FILE).read_bytes()
    for written in rebuilt_in_two_processes("tools.translator.name_words", tmp_path):
        assert written.read_bytes() == committed, written.name


def test_a_full_names_chinese_joins_its_parts_with_a_middle_dot():
    assert mt_dictionary.name("John Smith") == "约翰·史密斯"  # both from the list of names (约翰: the lexicon's too)
    assert mt_dictionary.name("John White") == "约翰·怀特"  # the surname from the list of names, never 白
    assert mt_dictionary.name("Mark Brown") == "马克·布朗"  # a first name that is a word: the list's 马克
    assert mt_dictionary.name("David Miller") is None  # miller: no Chinese in the list; kept in English, marked
    assert mt_dictionary.name("Grant Smith") == "格兰特·史密斯"  # the list's name, not the dictionary's 补助金
    assert mt_dictionary.name("May Smith") is None  # never the month's 五月 (the list leaves the calendar out)
    assert mt_dictionary.name("Mike Smith") == "迈克·史密斯"  # the lexicon's name, as Mike alone (CC-CEDICT: 麦克)
    assert not mt_dictionary.is_full_name("john", "Smith") and not mt_dictionary.is_full_name("John", "street")
    assert not mt_dictionary.is_full_name("Street", "Smith")  # no first name of the list


@pytest.mark.parametrize("model", ["rnnsearch", "transformer-mt"])
@pytest.mark.parametrize(
    ("sentence", "name", "chinese"),
    [
        ("John Smith is my teacher", "John Smith", "约翰·史密斯"),
        ("Mary Johnson lives in London", "Mary Johnson", "玛丽·强生"),
        ("Tom and Mary Smith are my neighbours", "Mary Smith", "玛丽·史密斯"),
    ],
)
def test_a_full_name_is_read_as_one_word_and_written_whole(model, sentence, name, chinese):
    """Before, the two names were read apart and two unknown nouns side by side lost one: the Transformer wrote 约翰 是
    我的 老师, both models 玛丽 … 伦敦 without Johnson, RNNsearch 汤姆 玛丽 玛丽 是 … 史密斯."""
    result = translator.translate(translator.load(model), sentence, beam=translator.DEFAULT_BEAM, candidates=True)
    assert name in result.source and name in result.unknown
    assert mt_dictionary.unknown_token(name) == "<unk:noun>"
    output = translator.output_words(result)
    assert chinese in output
    check = mt_check.check(list(result.source), output)
    assert not check.invented and not check.left_out


def test_the_api_reads_a_full_name_as_one_word(client):
    response = client.get("/api/attention", params={"source": "John Smith is my teacher", "model": "rnnsearch"})
    assert response.status_code == 200, response.text
    facts = response.json()["translation"]
    assert facts["source"][0] == "John Smith" and facts["unknown_source"] == ["John Smith"]
    assert facts["unknown_read_as"] == ["<unk:noun>"]
    assert {r["word"]: r["origin"] for r in facts["replaced"]} == {"约翰·史密斯": "dictionary"}
