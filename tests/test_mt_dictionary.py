"""The translators' dictionary (app/engine/models/mt/dictionary.tsv and forms.tsv, read by mt_dictionary.py): the
seed's examples, inflected forms read as lemma + tag, unknown words, and the files' invariants. Reading the files
needs none of the data packages that built them (tests/test_mt_dictionary_build.py rebuilds them)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.models import mt_dictionary
from app.engine.models.mt_dictionary import DIRECTORY, TAG_ROLES, Reading, lookup
from app.engine.text.lexicon import ROLE_NAMES
from tests.support.lexicon_file import lexicon_roles
from tools.translator.dictionary import read_other_roles, read_overrides

DICTIONARY, WIDE = mt_dictionary.parts()  # the core, and the wide part for rarer words
FORMS = sorted(DICTIONARY.forms)
LEMMAS = sorted(DICTIONARY.senses)


def test_the_seed_examples_keep_the_lexicons_words():
    bank = DICTIONARY.senses["bank"]
    assert [sense.chinese for sense in bank] == ["银行", "河岸"]  # the money bank first, then the river's
    assert lookup("bank").chinese == "银行"
    assert {sense.source for sense in bank} == {"lexicon"}
    assert lookup("Tom")[:4] == ("tom", "base", "汤姆", "lexicon")
    assert lookup("Jerry")[:4] == ("jerry", "base", "杰瑞", "lexicon")
    assert lookup("chase")[:3] == ("chase", "base", "追逐")


@pytest.mark.parametrize(
    "form, lemma, tag",
    [
        ("walked", "walk", "past"),
        ("rises", "rise", "present-3rd"),
        ("stories", "story", "plural"),
        ("children", "child", "plural"),
        ("gave", "give", "past"),
        ("wrote", "write", "past"),
        ("better", "good", "comparative"),
        ("biggest", "big", "superlative"),
        ("running", "run", "progressive"),
        ("was", "be", "past"),
        ("carefully", "careful", "adverb"),  # a manner adverb: 认真 地 / 小心 地
        ("saw", "see", "past"),  # the verb's past, not a saw (lemminflect's likeliest lemma)
        ("Walked", "walk", "past"),
        ("don’t", "don't", "base"),  # a typographic apostrophe
    ],
)
def test_an_inflected_form_is_its_lemma_and_a_tag(form, lemma, tag):
    reading = lookup(form)
    assert (reading.lemma, reading.tag) == (lemma, tag)
    assert reading.chinese == DICTIONARY.senses[lemma][0].chinese


def test_a_form_takes_the_sense_of_its_role():
    assert [sense.chinese for sense in DICTIONARY.senses["bear"]] == ["熊", "出生"]
    assert lookup("born")[:3] == ("bear", "past-participle", "出生")  # a verb's form: the verb's sense
    assert lookup("bears")[:3] == ("bear", "plural", "熊")  # the lemma's usual role first: the animals
    assert "叶子" not in [sense.chinese for sense in DICTIONARY.senses["leave"]]  # leaves 叶子 is leaf's plural
    assert ("leaf", "plural") in DICTIONARY.forms["leaves"]
    assert lookup("glasses")[:3] == ("glasses", "base", "眼镜")  # a word of its own, not glass + plural


def test_a_noun_keeps_its_measure_word():
    assert {word: lookup(word).measure for word in ("cat", "book", "car", "cats")} == {
        "cat": "只",
        "book": "本",
        "car": "辆",
        "cats": "只",
    }


def test_an_unknown_word_is_none_and_a_function_word_is_known_without_chinese():
    assert lookup("zyzzyva") is None
    assert lookup("") is None
    assert lookup("the") == Reading("the", "base", None, "lexicon", "determiner", None)


def test_a_word_beyond_the_lexicon_comes_from_cc_cedict_or_a_correction():
    assert lookup("government")[2:4] == ("政府", "cedict")
    assert lookup("company").measure == "家"
    assert lookup("actually")[2:4] == ("其实", "override")  # CC-CEDICT's most frequent was 所
    assert lookup("governments")[:3] == ("government", "plural", "政府")


def test_every_lexicon_row_is_a_sense_or_a_form():
    """A lexicon row is a sense of its word, with the lexicon's first Chinese word and role; or the word is an
    inflected form (went, mice, the verb bit) read as a lemma that has a sense of that role."""
    missing = []
    for number, en, zh, role in lexicon_roles():
        if en == "-":
            continue
        sense = (role, None if zh == "-" else zh.split("|")[0])
        senses = [(s.role, s.chinese) for s in DICTIONARY.senses.get(en, ())]
        lemmas = [lemma for lemma, tag in DICTIONARY.forms.get(en, ()) if tag != "base"]
        if sense not in senses and not any(role in {s.role for s in DICTIONARY.senses[lemma]} for lemma in lemmas):
            missing.append((number, en, sense))
    assert missing == []
    ordered = [sense for sense in DICTIONARY.senses["left"] if sense.source == "lexicon"]
    assert [sense.chinese for sense in ordered] == ["左"] and lookup("left")[:2] == ("leave", "past")


def test_every_correction_by_hand_is_applied():
    overrides = read_overrides()
    assert len(overrides) >= 20
    for english, (role, chinese, reason) in overrides.items():
        assert reason
        if role == "phrasal":  # get up: a phrasal verb, read by hand (only those are written)
            assert DICTIONARY.phrasal[tuple(english.split())] == chinese, english
            continue
        part = DICTIONARY if english in DICTIONARY.senses else WIDE  # a core word, else a word of the wide part
        assert part.senses[english] == (part.senses[english][0],), english
        sense = part.senses[english][0]
        assert (sense.role, sense.chinese, sense.source) == (role, None if chinese == "-" else chinese, "override")
        assert reason


def test_a_core_lemmas_other_role_is_read_through_its_forms():
    assert lookup("rain")[:3] == ("rain", "base", "雨")  # the core's noun
    assert lookup("rained")[:5] == ("rain", "past", "下雨", "cedict", "verb")  # the wide part's verb
    assert lookup("booked")[:4] == ("book", "past", "预订", "override")  # corrected: CC-CEDICT's rule chose 定
    assert mt_dictionary.unknown_token("locked") == "<unk:verb-ed>"  # and 锁 where attention points
    other_roles = read_other_roles()
    assert len(other_roles) >= 100
    for (english, role), (chinese, reason) in other_roles.items():
        assert reason and english in DICTIONARY.senses, english
        sense = next(sense for sense in WIDE.senses[english] if sense.role == role)
        assert (sense.chinese, sense.source) == (None if chinese == "-" else chinese, "override"), english


def test_the_files_are_well_formed():
    assert len(LEMMAS) > 2000 and len(FORMS) > 2000
    ranked = [senses[0].rank for senses in DICTIONARY.senses.values() if senses[0].rank]
    assert sum(rank <= 3000 for rank in ranked) > 1500  # most of wordfreq's 3,000 most frequent words' lemmas
    for lemma, senses in DICTIONARY.senses.items():
        assert lemma == lemma.lower() and lemma.strip() == lemma
        assert len(set(senses)) == len(senses), lemma
        for sense in senses:
            assert sense.role in ROLE_NAMES, (lemma, sense)
            assert (sense.chinese is None) == (sense.source == "none") or sense.source != "none", (lemma, sense)
            assert sense.measure is None or sense.role == "noun", (lemma, sense)
    for form, readings in DICTIONARY.forms.items():
        assert len(set(readings)) == len(readings), form
        assert all(lemma in DICTIONARY.senses for lemma, _ in readings), form


def test_the_wide_part_reads_rarer_words_and_never_a_word_of_the_core():
    assert lookup("crowded")[:3] == ("crowded", "base", "拥挤")  # beside the core's crowd (a noun)
    assert lookup("midnight")[:4] == ("midnight", "base", "半夜", "override")  # CC-CEDICT's rule chose 三更
    assert lookup("textbooks")[:3] == ("textbook", "plural", "教科书")
    assert mt_dictionary.unknown_token("crowded") == "<unk:adj>"
    # a verb of its own (corrected so) that is another verb's past reads as a past: the typed <unk> a model knows
    assert lookup("increased")[:3] == ("increased", "past", "增加") and lookup("exceed")[:2] == ("exceed", "base")
    assert mt_dictionary.unknown_token("increased") == "<unk:verb-ed>"
    core_words = set(DICTIONARY.senses) | set(DICTIONARY.forms)
    assert len(WIDE.senses) > 5000 and not set(WIDE.forms) & core_words
    for form, readings in WIDE.forms.items():
        assert all(lemma in WIDE.senses for lemma, _ in readings), form
    # a core lemma is in the wide part only in roles the core lacks, and only for forms that read it so (rained)
    borrowed = set(WIDE.senses) & set(DICTIONARY.senses)
    assert len(borrowed) > 100
    read = {(lemma, role) for readings in WIDE.forms.values() for lemma, tag in readings for role in TAG_ROLES[tag]}
    for lemma in borrowed:
        core_roles = {sense.role for sense in DICTIONARY.senses[lemma]}
        for sense in WIDE.senses[lemma]:
            assert sense.role not in core_roles, lemma
            assert (lemma, sense.role) in read, (lemma, sense.role)  # some form of the wide part reads it so
    for word in sorted(WIDE.forms)[::40] + sorted(set(WIDE.senses) - borrowed)[::40]:  # a wide word: its reading
        assert lookup(word) == WIDE.lookup(word), word
    for word in FORMS[::20] + LEMMAS[::20]:  # a word of the core: the core's reading, as before the wide part
        assert lookup(word) == DICTIONARY.lookup(word), word


def test_every_word_of_the_files_is_read_whatever_its_case():
    for word in FORMS + LEMMAS:  # all of them: a plain loop is faster than drawing a sample
        reading = lookup(word)
        assert reading is not None and reading.lemma in DICTIONARY.senses, word
        assert lookup(word.upper()) == reading == lookup(f" {word.capitalize()} "), word
        assert reading.chinese in [sense.chinese for sense in DICTIONARY.senses[reading.lemma]], word


@settings(max_examples=50)
@given(st.text(max_size=20))
def test_any_text_is_read_or_refused_without_an_error(text):
    reading = lookup(text)
    assert reading is None or reading.lemma in DICTIONARY.senses or reading.lemma in WIDE.senses


def test_a_broken_file_is_named(tmp_path):
    (tmp_path / "dictionary.tsv").write_text((DIRECTORY / "dictionary.tsv").read_text(encoding="utf-8"))
    (tmp_path / "forms.tsv").write_text("form\tlemma\ttag\nwalked\twalkk\tpast\n", encoding="utf-8")
    with pytest.raises(ValueError, match="forms.tsv: 'walked' points at 'walkk'"):
        mt_dictionary.load(tmp_path)
    (tmp_path / "forms.tsv").write_text("form\tlemma\n", encoding="utf-8")
    with pytest.raises(ValueError, match="forms.tsv: expected the header form lemma tag"):
        mt_dictionary.load(tmp_path)
