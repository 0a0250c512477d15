"""Words beyond a translator's vocabulary: read as a typed <unk>, and an emitted <unk> replaced by the dictionary's
word for the English word attention points to (app/engine/models/translator.py, mt_dictionary.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.models import mt_check, mt_dictionary
from app.engine.models import translator as mt
from tests.support.examples import examples


@pytest.mark.parametrize(
    ("word", "token"),
    [
        ("thief", "<unk:noun>"),
        ("thieves", "<unk:nouns>"),  # plural, by lemminflect's forms
        ("caught", "<unk:verb-ed>"),  # irregular past
        ("rises", "<unk:verb-s>"),
        ("repairing", "<unk:verb-ing>"),
        ("carefully", "<unk:adv-ly>"),  # careful + the manner adverb's -ly
        ("zorbing", "<unk:verb-ing>"),  # in no dictionary: by its ending
        ("zorbed", "<unk:verb-ed>"),
        ("lisa", "<unk:noun>"),
        ("zorbs", "<unk:nouns>"),
        ("glass", "<unk:noun>"),  # a dictionary word ending in -ss is no plural
    ],
)
def test_a_word_beyond_the_vocabulary_is_read_as_its_typed_unk(word, token):
    assert mt_dictionary.unknown_token(word) == token
    assert token in mt_dictionary.UNKNOWN_TOKENS


def test_the_vocabulary_reads_unknown_words_as_their_typed_unk():
    vocabulary = mt.Vocabulary([*mt.SOURCE_SPECIALS, "the", "police"], ["<pad>", "<s>", "</s>", "<unk>"])
    index = {w: i for i, w in enumerate(vocabulary.source)}
    assert vocabulary.source_id("police") == index["police"]
    assert vocabulary.source_id("caught") == index["<unk:verb-ed>"]
    assert vocabulary.source_id("thief") == index["<unk:noun>"]
    assert vocabulary.knows("police") and not vocabulary.knows("thief") and not vocabulary.knows("<unk:noun>")
    old = mt.Vocabulary(["<pad>", "<unk>", "the"], ["<pad>", "<s>", "</s>", "<unk>"])  # no typed <unk>: plain <unk>
    assert old.source_id("thief") == mt.SOURCE_UNK


def _translation(source, tokens, weights):
    """A Translation whose steps wrote ``tokens`` (a word, or None for <unk>) with the given attention weights."""
    steps = []
    for token, w in zip(tokens, weights, strict=True):
        token_id = mt.UNK if token is None else 10
        attention = None if w is None else mt.Attention(scores=np.log(np.asarray(w)), weights=np.asarray(w))
        steps.append(mt.Step(token or "<unk>", token_id, 0.9, np.zeros(20), attention))
    steps.append(mt.Step("</s>", mt.EOS, 0.9, np.zeros(20), None))
    target = [s.token for s in steps[:-1]]
    return mt.Translation("rnnsearch", source, [], target, steps, -1.0, {})


def test_an_unk_is_replaced_by_the_dictionary_word_of_the_source_word_attention_points_to():
    source = ["the", "police", "caught", "the", "thief"]
    t = _translation(
        source, ["警察", "抓住", "了", None], [[0.1, 0.6, 0.1, 0.1, 0.1]] * 3 + [[0.05, 0.05, 0.1, 0.1, 0.7]]
    )
    (r,) = mt.replace_unknown(t)
    assert r == mt.Replacement(position=3, source=4, word="小偷", origin="dictionary")
    assert mt.output_words(t) == ["警察", "抓住", "了", "小偷"]
    moved = _translation(source, [None], [[0.05, 0.7, 0.1, 0.1, 0.05]])  # attention on police: 警察, its word
    assert mt.output_words(moved) == ["警察"]


def test_a_word_in_no_dictionary_is_kept_in_english_and_rnnencdec_keeps_its_unk():
    t = _translation(
        ["i", "like", "zorbing"], ["我", "喜欢", None], [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.2, 0.7]]
    )
    assert mt.replace_unknown(t)[0] == mt.Replacement(2, 2, "zorbing", "english")
    no_attention = _translation(["i", "like", "zorbing"], ["我", None], [None, None])
    assert mt.replace_unknown(no_attention) == [mt.Replacement(1, None, "<unk>", "none")]
    assert mt.output_words(no_attention) == ["我", "<unk>"]


def test_a_manner_adverb_gets_its_de_unless_the_model_wrote_it():
    careful = mt_dictionary.lookup("careful").chinese
    t = _translation(["he", "walks", "carefully"], [None], [[0.1, 0.1, 0.8]])
    assert mt.output_words(t) == [careful + "地"]
    wrote_de = _translation(["he", "walks", "carefully"], [None, "地"], [[0.1, 0.1, 0.8], [0.1, 0.1, 0.8]])
    assert mt.output_words(wrote_de) == [careful, "地"]  # not 小心地 地


def test_the_transformer_points_with_the_mean_of_its_last_layers_heads():
    """Layer 0 looks at "the"; in the last layer one head of two looks at "the" a little more than at "thief", the
    other firmly at "thief": the mean points at thief (a single head's argmax, or the first layer's, would not)."""
    weights = np.array(
        [
            [[0.9, 0.05, 0.05], [0.9, 0.05, 0.05]],  # layer 0
            [[0.5, 0.1, 0.4], [0.1, 0.1, 0.8]],  # layer 1 (last): mean [0.3, 0.1, 0.6]
        ]
    )  # (layers, heads, n_source)
    t = _translation(["the", "old", "thief"], [None], [weights])
    assert mt.replace_unknown(t)[0].source == 2 and mt.output_words(t) == ["小偷"]


@pytest.mark.parametrize(
    ("text", "forms"),
    [
        ("Lisa met Dr Gruber", ["Lisa", "met", "Dr", "Gruber"]),
        ("I'm sure I am", ["I", "am", "sure", "I", "am"]),  # the am read from I'm moves nothing after it
        ("NASA's 3 cats", ["NASA", "'s", "three", "cats"]),  # a number read in words stays as read
        ("Tom’s mother can’t see Zorg", ["Tom", "'s", "mother", "can", "not", "see", "Zorg"]),
        ("we saw we", ["we", "saw", "we"]),
    ],
)
def test_each_word_read_is_shown_as_the_sentence_typed_it(text, forms):
    assert mt.typed_forms(text, mt.source_words(text)) == forms


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=st.sampled_from("aAbBzZ09 '’.,-<>:"), max_size=40))
def test_a_typed_form_is_its_word_in_another_case_or_the_word_itself(text):
    words = mt.source_words(text)
    forms = mt.typed_forms(text, words)
    assert len(forms) == len(words)
    assert all(form.lower() == word for form, word in zip(forms, words, strict=True))


def test_the_page_shows_a_word_kept_in_english_as_typed_and_checks_it_as_read(client):
    """Lisa is in no dictionary (the list of names has no Lisa): the translation keeps it in English, as typed;
    the check of the translation reads the words in lower case, as the model does, so it is the same either way."""
    answers = [
        client.get("/api/attention", params={"source": source, "model": "transformer-mt"}).json()["translation"]
        for source in ("Lisa likes apples", "lisa likes apples")
    ]
    typed, lower = answers
    assert {"position": 0, "source": 0, "word": "Lisa", "origin": "english"} in typed["replaced"]
    assert typed["output"][0] == "Lisa" and lower["output"][0] == "lisa"
    assert [w.lower() for w in typed["output"]] == lower["output"]
    assert typed["check"] == lower["check"] and typed["source"] == lower["source"] == ["lisa", "likes", "apples"]


def test_a_plural_lemminflect_does_not_make_is_read_but_not_written_by_the_corpus():
    """LemmInflect knows monday and website only as proper nouns, so the forms (and the corpus, written from them)
    have no mondays or websites; mt/plurals.tsv reads them (mt_dictionary.reading), lookup stays as trained."""
    assert mt_dictionary.lookup("websites") is None and mt_dictionary.lookup("mondays") is None
    websites, mondays = mt_dictionary.reading("websites"), mt_dictionary.reading("mondays")
    assert (websites.lemma, websites.tag, websites.chinese) == ("website", "plural", "网站")
    assert (mondays.lemma, mondays.tag, mondays.chinese) == ("monday", "plural", "星期一")
    assert mt_dictionary.reading("harms") is None  # a verb's -s: LemmInflect knows harm as a noun, plural harm
    assert mt_dictionary.reading("cats") == mt_dictionary.lookup("cats")  # the forms' reading first
    assert mt.dictionary_word("websites") == "网站" and "星期一" in mt_check.counterparts("mondays")


def test_every_plural_read_is_of_a_noun_and_no_word_of_the_forms():
    plurals = mt_dictionary.plurals()
    assert len(plurals) > 100
    core, wide = mt_dictionary.parts()
    for form, lemma in plurals.items():
        assert form not in core.forms and form not in wide.forms and form not in core.senses, form
        senses = core.senses.get(lemma, ()) + wide.senses.get(lemma, ())
        assert any(sense.role == "noun" for sense in senses), (form, lemma)


def test_no_name_or_place_is_read_as_a_plural_but_the_calendars_are(client):
    """Frances was read as France's plural (法国 喜欢 茶): a name typed may look like a plural of a name or a place,
    whose plural nobody types. The calendar's names are proper nouns in CC-CEDICT too, but on mondays is everyday."""
    core, wide = mt_dictionary.parts()
    for word in ("frances", "johns", "harries", "londons", "lis"):
        assert mt_dictionary.reading(word) is None, word
    assert mt_dictionary.reading("sundays").chinese == "星期天" and mt_dictionary.reading("julies").chinese == "七月"
    for lemma in mt_dictionary.plurals().values():
        nouns = [
            sense.chinese for sense in core.senses.get(lemma, ()) + wide.senses.get(lemma, ()) if sense.role == "noun"
        ]
        assert all(nouns) and lemma not in ("france", "china", "london", "paris", "john"), lemma
    answer = client.get("/api/attention", params={"source": "Frances likes tea", "model": "rnnsearch"}).json()
    assert answer["translation"]["output"] == ["Frances", "喜欢", "茶"]
    assert answer["translation"]["replaced"][0]["origin"] == "english"


def test_a_plural_read_from_the_list_replaces_its_unk_and_is_marked_when_dropped(client):
    """RNNsearch writes <unk> for websites and the page puts 网站 there; the Transformer drops mondays, and the
    check marks it left out (the end guard does not wait for it, as for a name of the list)."""

    def translation(source, model):
        return client.get("/api/attention", params={"source": source, "model": model}).json()["translation"]

    websites = translation("the websites are slow", "rnnsearch")
    assert websites["output"][0] == "网站"
    assert websites["replaced"][0] == {"position": 0, "source": 1, "word": "网站", "origin": "dictionary"}
    mondays = translation("we have english on mondays", "transformer-mt")
    assert "mondays" in [mondays["source"][j] for j in mondays["check"]["left_out"]]
