"""-ing words that are also nouns of their own (meeting, wedding): which they are (tools/translator/dictionary.py,
nouns_of_their_own, from CC-CEDICT, lemminflect and Tatoeba's pairs), where a sentence reads one as the noun (right
after a determiner: translator.nouns_of_their_own), and what follows: the translators read <unk:noun> and write the
noun's Chinese where attention points (会议, not meet's 见面), and the check and the measures judge it as the noun."""

import pytest

from app.engine.models import mt_check, mt_dictionary, translator
from tools.translator import everyday, real_pairs
from tools.translator.dictionary import OWN_NOUN_PAIRS, noun_chinese


def test_a_noun_of_its_own_is_what_most_pairs_write_and_not_the_verbs():
    options = ["会", "会议", "集会"]  # CC-CEDICT's nouns glossed "meeting", most frequent first
    pairs = ["我们明天开会议", "会议取消了", "他在会上", "会议很长", "集会开始了"]
    assert noun_chinese(options, {"见面"}, pairs) == "会议"  # 3 of 5; 会 inside 会议 is not counted for 会
    assert noun_chinese(options, {"会议"}, pairs) is None  # the verb's own Chinese: nothing to read otherwise
    assert noun_chinese(options, {"见面"}, pairs[: OWN_NOUN_PAIRS - 1]) is None  # too few pairs to say
    assert noun_chinese(options, {"见面"}, ["会议", "集会", "集会", "他们见面", "见面了"]) is None  # 2 of 5: under half
    assert noun_chinese(["甲", "乙"], set(), ["甲", "乙", "甲乙", "甲乙", "丙"]) == "甲"  # a tie: CC-CEDICT's first


def test_the_committed_nouns_of_their_own():
    core, wide = mt_dictionary.parts()
    own = {word: mt_dictionary.own_noun(word) for word in core.forms if mt_dictionary.own_noun(word)}
    assert {word: reading.chinese for word, reading in own.items()} == {"meeting": "会议", "wedding": "婚礼"}
    assert own["meeting"] == mt_dictionary.Reading("meeting", "base", "会议", "cedict", "noun", "场")
    assert mt_dictionary.own_noun("painting") is None  # paint's 画 is the noun's Chinese too
    assert mt_dictionary.own_noun("building") is None  # a core lemma: read as the noun anywhere
    # read as typed, the word is the verb's form still (the corpus was written so); its plural is the noun, read by the
    # app only (plurals.tsv): the dictionary the translators' data were chosen with (lookup) still lacks it
    assert mt_dictionary.lookup("meeting")[:3] == ("meet", "progressive", "见面")
    assert mt_dictionary.reading("meetings")[:3] == ("meeting", "plural", "会议")  # before: kept in English
    assert mt_dictionary.reading("weddings").chinese == "婚礼"
    assert mt_dictionary.lookup("meetings") is None


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("The meeting was cancelled", ["the", "meeting (noun)", "was", "cancelled"]),
        ("We have a meeting at nine", ["we", "have", "a", "meeting (noun)", "at", "nine"]),
        ("I went to my sister's wedding", ["i", "went", "to", "my", "sister", "'s", "wedding (noun)"]),
        ("It was an important meeting", ["it", "was", "an", "important", "meeting (noun)"]),  # adjectives between
        ("We are meeting at nine", ["we", "are", "meeting", "at", "nine"]),  # the verb
        ("Meeting people is fun", ["meeting", "people", "is", "fun"]),  # no determiner before it: the verb's form
        ("I like the painting", ["i", "like", "the", "painting"]),  # no noun of its own
    ],
)
def test_an_ing_word_is_read_as_its_noun_right_after_a_determiner(text, read):
    assert translator.read_words(text) == read


def test_the_noun_is_read_as_an_unknown_noun_and_checked_as_the_noun():
    noun = mt_dictionary.as_noun("meeting")
    assert mt_dictionary.marked_noun(noun) == "meeting" and mt_dictionary.marked_noun("meeting") is None
    assert mt_dictionary.unknown_token(noun) == "<unk:noun>"
    assert not any(translator.load(name).vocabulary.knows(noun) for name in translator.MODELS)
    assert translator.dictionary_word(noun) == "会议"
    assert "会议" in mt_check.counterparts(noun) and "见面" not in mt_check.counterparts(noun)
    assert "见面" in mt_check.counterparts("meeting") and "会议" not in mt_check.counterparts("meeting")
    assert mt_check.must_translate(["the", noun], 1)
    # the verb's form written as the noun is made up, and the noun written as the verb leaves the noun out
    assert mt_check.check(["when", "meeting"], ["会议", "的", "时候"]).invented == (0,)
    assert mt_check.check(["the", noun], ["见面"]).left_out == (1,)


@pytest.mark.parametrize("model", ["rnnsearch", "transformer-mt"])
@pytest.mark.parametrize(
    ("sentence", "word", "noun", "verb"),
    [
        ("the meeting was cancelled because of the storm", "meeting", "会议", "见面"),
        ("we have a meeting at nine", "meeting", "会议", "见面"),
        ("I went to my sister's wedding", "wedding", "婚礼", "结婚"),
    ],
)
def test_the_translators_write_the_nouns_chinese_where_attention_points(model, sentence, word, noun, verb):
    """Before, both wrote 见面 (meet) and 结婚 (get married) for these nouns, and nothing was marked."""
    result = translator.translate(translator.load(model), sentence, beam=translator.DEFAULT_BEAM, candidates=True)
    output = translator.output_words(result)
    assert noun in output and verb not in output
    replaced = translator.replace_unknown(result)
    pointed = [(r.origin, result.source[r.source]) for r in replaced if r.word == noun]
    assert pointed == [("dictionary", mt_dictionary.as_noun(word))]
    check = mt_check.check(list(result.source), output)
    assert not check.invented and not check.left_out


@pytest.mark.parametrize("model", ["rnnsearch", "transformer-mt", "rnnencdec"])
def test_the_verb_is_read_and_written_as_before(model):
    result = translator.translate(
        translator.load(model), "we are meeting at nine", beam=translator.DEFAULT_BEAM, candidates=True
    )
    assert "见面" in translator.output_words(result) and "meeting" in result.source


def test_rnnencdec_has_nothing_to_point_with_and_its_unk_is_marked():
    result = translator.translate(translator.load("rnnencdec"), "we have a meeting at nine", beam=8, candidates=True)
    output = translator.output_words(result)
    assert "<unk>" in output and "见面" not in output  # before: 见面, the verb's Chinese, unmarked
    left_out = [result.source[j] for j in mt_check.check(list(result.source), output).left_out]
    assert left_out == [mt_dictionary.as_noun("meeting")]


def test_the_measures_judge_the_noun_as_the_noun():
    item = everyday.Item("The teacher is in a meeting.", ("老师", "在", "开会"), {"teacher": ("老师",)})
    cw = mt_check.content_words()
    knows = translator.load("rnnsearch").vocabulary.knows
    assert everyday.score(item, ["老师", "在", "一", "个", "会议", "里"], knows, cw).invented == ()
    assert everyday.score(item, ["老师", "在", "一", "个", "见面", "里"], knows, cw).invented == ("见面",)
    held_out = {i.en: i for i in real_pairs.items(every=True)}["The teacher is in a meeting."]
    alternatives = held_out.content[mt_dictionary.as_noun("meeting")]  # the reference's 开会, and the noun's 会议
    assert "开会" in alternatives and "会议" in alternatives and "见面" not in alternatives


def test_the_api_shows_the_noun_read_and_replaced(client):
    response = client.get("/api/attention", params={"source": "We have a meeting at nine", "model": "rnnsearch"})
    assert response.status_code == 200, response.text
    facts = response.json()["translation"]
    assert "meeting (noun)" in facts["source"] and facts["unknown_source"] == ["meeting (noun)"]
    assert facts["unknown_read_as"] == ["<unk:noun>"]
    assert {r["word"]: r["origin"] for r in facts["replaced"]} == {"会议": "dictionary"}
    assert "会议" in facts["output"] and "见面" not in facts["output"]
