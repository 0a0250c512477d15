"""The translators' English→Chinese dictionary: ``mt/dictionary.tsv``, ``mt/forms.tsv`` and ``mt/phrasal.tsv``, read
in pure Python.

Both files are written by ``python -m tools.translator.dictionary`` from wordfreq, CC-CEDICT and
lemminflect (their licences: docs/data-sources.md) and the project's lexicon; the app needs none of
those packages. A word is read as its lemma plus what its form adds:

    lookup("walked")    Reading(lemma='walk', tag='past', chinese='散步', source='lexicon', role='verb', measure=None)
    lookup("children")  Reading(lemma='child', tag='plural', chinese='孩子', ...)
    lookup("bank")      Reading(lemma='bank', tag='base', chinese='银行', ...)   senses("bank"): 银行, then 河岸
    lookup("the")       Reading(lemma='the', tag='base', chinese=None, ...)      known, no Chinese counterpart
    lookup("zyzzyva")   None

tag: base, past, past-participle, present-3rd, progressive, present, plural, comparative, superlative
adverb (an adjective's manner adverb: carefully -> careful, which Chinese writes 认真 地), or form (an
irregular form the lexicon lists that lemminflect does not generate). source: lexicon,
cedict, override or none. ``phrasal[("get", "up")]`` is 起床: the phrasal verbs read by hand.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

DIRECTORY = Path(__file__).parent / "mt"
WIDE_DIRECTORY = DIRECTORY / "wide"  # the wide part (see parts)
DICTIONARY_COLUMNS = ["lemma", "role", "chinese", "measure", "source", "rank"]
FORMS_COLUMNS = ["form", "lemma", "tag"]
PHRASAL_COLUMNS = ["verb", "particle", "chinese", "source"]
PLURALS_FILE = "plurals.tsv"  # plurals lemminflect makes only by its rules (tools/translator/dictionary.py), read only
PLURALS_COLUMNS = ["form", "lemma"]
NAMES_FILE = "names.tsv"  # surnames, given names and places from CC-CEDICT (tools/translator/names.py)
NAMES_COLUMNS = ["name", "chinese", "kind"]
NAME_KINDS = ("surname", "given", "place", "multiword")  # multiword: New York
NAME_WORDS_FILE = "name_words.tsv"  # names that are also words: Grace, Mark, Brown (tools/translator/name_words.py)
NAME_WORDS_COLUMNS = ["name", "kind", "noun"]  # noun: whether a given name can be a noun (yes, no; - else)
NAME_WORD_KINDS = ("given", "surname", "first")  # first: a first name that is no word
SOURCES = ("lexicon", "cedict", "override", "none")
TAG_ROLES = {"plural": ("noun",), "comparative": ("adjective", "adverb"), "superlative": ("adjective", "adverb")}
TAG_ROLES["adverb"] = ("adjective",)  # an adjective's manner adverb: carefully = careful + 地
TAG_ROLES |= dict.fromkeys(("past", "past-participle", "present-3rd", "progressive", "present"), ("verb",))
# What a translator reads in place of a word beyond its vocabulary: <unk> typed by the word's part of speech and
# form, so that the sentence around it still parses ("the police caught the <unk:noun>"); Luong et al. 2015.
UNKNOWN_TOKENS = ("<unk:noun>", "<unk:nouns>", "<unk:verb>", "<unk:verb-s>", "<unk:verb-ed>", "<unk:verb-ing>",
                  "<unk:adj>", "<unk:adv>", "<unk:adv-ly>")  # fmt: skip
TAGS = ("base", "past", "past-participle", "present-3rd", "progressive", "present", "plural", "comparative",
        "superlative", "adverb", "form")  # fmt: skip


class Sense(NamedTuple):
    role: str
    chinese: str | None  # None: no Chinese counterpart (the, a)
    measure: str | None  # a noun's measure word (只 for 猫), None when CC-CEDICT names none
    source: str
    rank: int | None  # the lemma's place among English words by frequency (1 = the); None beyond 50,000


class Reading(NamedTuple):
    lemma: str
    tag: str
    chinese: str | None
    source: str
    role: str
    measure: str | None


class Dictionary(NamedTuple):
    senses: dict  # lemma -> (Sense, ...), the first the usual one
    forms: dict  # form -> ((lemma, tag), ...), the likeliest reading first
    phrasal: dict  # (verb lemma, particle) -> Chinese: get up -> 起床

    def lookup(self, word: str) -> Reading | None:
        """The word as lemma + tag with the lemma's first sense of the tag's role (born: bear's verb sense, not
        the animal), else its first sense; None when the dictionary lacks the word."""
        key = normalise(word)
        readings = self.forms.get(key) or (((key, "base"),) if key in self.senses else ())
        if not readings:
            return None
        lemma, tag = readings[0]
        senses = self.senses[lemma]
        sense = next((s for s in senses if s.role in TAG_ROLES.get(tag, ())), senses[0])
        return Reading(lemma, tag, sense.chinese, sense.source, sense.role, sense.measure)

    def unknown_token(self, word: str) -> str:
        """The typed <unk> a translator reads for a word beyond its vocabulary, by this dictionary's reading."""
        return typed_unknown(word, self.lookup(word))


def typed_unknown(word: str, reading: Reading | None) -> str:
    """The typed <unk> for a word the dictionary reads so: its role and form (caught -> <unk:verb-ed>, thieves ->
    <unk:nouns>); for a word the dictionary lacks (reading None), its ending (zorbing -> <unk:verb-ing>, else
    <unk:noun>: most unknown words are names and nouns)."""
    if reading is None:
        key = word.strip().lower()
        for ending, token in (("ing", "<unk:verb-ing>"), ("ed", "<unk:verb-ed>"), ("ly", "<unk:adv-ly>")):
            if key.endswith(ending) and len(key) > len(ending) + 2:
                return token
        return "<unk:nouns>" if key.endswith("s") and not key.endswith("ss") and len(key) > 3 else "<unk:noun>"
    return _UNKNOWN_BY_READING.get((reading.role, reading.tag)) or _UNKNOWN_BY_ROLE.get(reading.role, "<unk:noun>")


_UNKNOWN_BY_ROLE = {"noun": "<unk:noun>", "verb": "<unk:verb>", "adjective": "<unk:adj>", "adverb": "<unk:adv>"}
_UNKNOWN_BY_READING = {
    ("noun", "plural"): "<unk:nouns>",
    ("verb", "present-3rd"): "<unk:verb-s>",
    ("verb", "past"): "<unk:verb-ed>",
    ("verb", "past-participle"): "<unk:verb-ed>",
    ("verb", "progressive"): "<unk:verb-ing>",
    ("adjective", "adverb"): "<unk:adv-ly>",
}


def normalise(word: str) -> str:
    """A word as the dictionary keys it: without surrounding space, lower case, ’ written '."""
    return word.strip().lower().replace("’", "'")


def _rows(path: Path, columns: list[str]) -> list[list[str]]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    if not lines or lines[0].split("\t") != columns:
        raise ValueError(f"{path.name}: expected the header {' '.join(columns)}")
    rows = [line.split("\t") for line in lines[1:]]
    for number, row in enumerate(rows, start=2):
        if len(row) != len(columns):
            raise ValueError(f"{path.name} row {number}: expected {len(columns)} tab-separated columns")
    return rows


def _none(text: str) -> str | None:
    return None if text == "-" else text


@functools.cache
def load(directory: Path = DIRECTORY) -> Dictionary:
    senses: dict[str, tuple[Sense, ...]] = {}
    for lemma, role, chinese, measure, source, rank in _rows(directory / "dictionary.tsv", DICTIONARY_COLUMNS):
        if source not in SOURCES:
            raise ValueError(f"dictionary.tsv: {lemma!r} has the unknown source {source!r}")
        sense = Sense(role, _none(chinese), _none(measure), source, None if rank == "-" else int(rank))
        senses[lemma] = (*senses.get(lemma, ()), sense)
    forms: dict[str, tuple[tuple[str, str], ...]] = {}
    for form, lemma, tag in _rows(directory / "forms.tsv", FORMS_COLUMNS):
        if lemma not in senses or tag not in TAGS:
            raise ValueError(f"forms.tsv: {form!r} points at {lemma!r} ({tag}), which dictionary.tsv lacks")
        forms[form] = (*forms.get(form, ()), (lemma, tag))
    phrasal = {}
    for verb, particle, chinese, _ in _rows(directory / "phrasal.tsv", PHRASAL_COLUMNS):
        if verb not in senses:
            raise ValueError(f"phrasal.tsv: {verb!r} {particle!r} is of a verb that dictionary.tsv lacks")
        phrasal[(verb, particle)] = chinese
    return Dictionary(senses, forms, phrasal)


def parts() -> tuple[Dictionary, Dictionary]:
    """The committed dictionary's two parts: the core (``mt/``: the corpus is written from it) and the wide part
    (``mt/wide/``: rarer English words, for reading a word beyond the core). No form is in both, and a core lemma
    is in the wide part only in a role the core lacks, for its forms (rained: the verb rain; the core's rain is the
    noun 雨), so a word's reading is the core's, else the wide part's."""
    return load(), load(WIDE_DIRECTORY)


def lookup(word: str) -> Reading | None:
    """The committed dictionary's reading of a word (the core's, else the wide part's), or None; None too for a name
    that is also a word when it is typed as a name (is_typed_name: Grace, not grace). A word read as a noun of its own
    (as_noun: "meeting (noun)") reads as that noun."""
    if is_typed_name(word):
        return None
    noun = marked_noun(word)
    if noun is not None:
        return own_noun(noun)
    core, wide = parts()
    return core.lookup(word) or wide.lookup(word)


# An -ing word read as a noun of its own (translator.read_words, after a determiner: the meeting) is read as
# "meeting (noun)": no translator knows it, so it reads <unk:noun> (unknown_token: a word with a space), and the
# dictionary gives the noun's Chinese (会议), not the verb's (见面, meet's)
NOUN_MARK = " (noun)"


def own_noun(word: str) -> Reading | None:
    """The reading of an -ing word of the core (meeting: meet's form) as the noun of its own that the wide part holds
    (tools/translator/dictionary.py, nouns_of_their_own: 会议), or None for a word that has none (painting, living)."""
    key = normalise(word)
    core, wide = parts()
    if key in core.senses or key not in core.forms:
        return None
    sense = next((s for s in wide.senses.get(key, ()) if s.role == "noun"), None)
    return None if sense is None else Reading(key, "base", sense.chinese, sense.source, sense.role, sense.measure)


def as_noun(word: str) -> str:
    """meeting -> "meeting (noun)": the word read as its noun of its own (own_noun)."""
    return word + NOUN_MARK


def marked_noun(word: str) -> str | None:
    """The word a read word marks as a noun of its own (as_noun): meeting for "meeting (noun)"; None for any other."""
    return word.removesuffix(NOUN_MARK) if word.endswith(NOUN_MARK) else None


@functools.cache
def plurals(directory: Path = DIRECTORY) -> dict[str, str]:
    """``mt/plurals.tsv``: plural -> lemma for the nouns lemminflect does not know as nouns (mondays -> monday,
    websites -> website), whose plurals the forms (and so the corpus) lack."""
    found = dict(_rows(directory / PLURALS_FILE, PLURALS_COLUMNS))
    lemmas = {lemma for part in (load(directory), load(directory / WIDE_DIRECTORY.name)) for lemma in part.senses}
    for form, lemma in found.items():
        if lemma not in lemmas:
            raise ValueError(f"{PLURALS_FILE}: {form!r} points at {lemma!r}, which neither part has")
    return found


def unmade_plural(word: str) -> str | None:
    """The lemma of a plural of plurals.tsv (mondays -> monday), or None; never for a name of the list of names."""
    key = normalise(word)
    return None if key in names() else plurals().get(key)


def reading(word: str) -> Reading | None:
    """How the app reads a word to translate or check it: lookup's reading, else the plural of a noun the forms lack
    (unmade_plural: mondays -> monday's plural). lookup alone is the dictionary the corpus, the real pairs and the
    typed <unk> were read with when the translators were trained."""
    found = lookup(word)
    lemma = unmade_plural(word) if found is None else None
    if lemma is None:
        return found
    for part in parts():
        sense = next((s for s in part.senses.get(lemma, ()) if s.role == "noun"), None)
        if sense is not None:
            return Reading(lemma, "plural", sense.chinese, sense.source, sense.role, sense.measure)
    return None


def unknown_token(word: str) -> str:
    """The typed <unk> a translator reads for a word beyond its vocabulary (by lookup's reading; a name typed as one,
    or a name of several words read as one, <unk:noun>, whatever its ending: Holly, Miles, United States)."""
    return "<unk:noun>" if is_typed_name(word) or " " in word else typed_unknown(word, lookup(word))


@functools.cache
def names(directory: Path = DIRECTORY) -> dict[str, str]:
    """``mt/names.tsv``: name (lower case) -> its Chinese, for the words the dictionary gives no Chinese: chen -> 陈,
    sydney -> 悉尼, li -> 李 (the dictionary reads li as a noun with no counterpart); and for the names that are also
    words (name_words: mark -> 马克), read only where typed as a name (name)."""
    found = {}
    for name, chinese, kind in _rows(directory / NAMES_FILE, NAMES_COLUMNS):
        if kind not in NAME_KINDS:
            raise ValueError(f"{NAMES_FILE}: {name!r} has the unknown kind {kind!r}")
        found[name] = chinese
    return found


@functools.cache
def names_of_several_words() -> frozenset[str]:
    """The names of the list of names written with several words (new york, hong kong, great wall: its multiword
    rows), which translator.read_words reads as one word where each is typed with a capital."""
    return frozenset(name for name in names() if " " in name)


@functools.cache
def most_words_in_a_name() -> int:
    """The most words a name of names_of_several_words has: how far translator.read_words looks ahead."""
    return max((name.count(" ") + 1 for name in names_of_several_words()), default=0)


@functools.cache
def _name_word_rows(directory: Path = DIRECTORY) -> tuple[tuple[str, str, str], ...]:
    rows = []
    for name, kind, noun in _rows(directory / NAME_WORDS_FILE, NAME_WORDS_COLUMNS):
        if kind not in NAME_WORD_KINDS:
            raise ValueError(f"{NAME_WORDS_FILE}: {name!r} has the unknown kind {kind!r}")
        if noun not in (("yes", "no") if kind == "given" else ("-",)):
            raise ValueError(f"{NAME_WORDS_FILE}: {name!r} ({kind}) has the noun column {noun!r}")
        rows.append((name, kind, noun))
    return tuple(rows)


@functools.cache
def name_words(directory: Path = DIRECTORY) -> dict[str, str]:
    """``mt/name_words.tsv``: name (lower case) -> "given" or "surname", for the names the dictionary reads as a
    common word (grace -> 优雅, brown -> 棕色), which translator.read_words keeps as typed where the text shows it is
    a name; "first" for the other first names (john, lisa), which show that a surname after them is a name."""
    return {name: kind for name, kind, _ in _name_word_rows(directory)}


@functools.cache
def names_no_noun(directory: Path = DIRECTORY) -> frozenset[str]:
    """The given names of name_words that cannot be a noun as a word (sue, rob, drew: verbs; rusty, sandy:
    adjectives), so that first in a sentence, before its verb, they can only be a name (*Sue likes apples*)."""
    return frozenset(name for name, kind, noun in _name_word_rows(directory) if kind == "given" and noun == "no")


@functools.cache
def verb_chinese() -> frozenset[str]:
    """The Chinese the dictionary (core and wide part) gives for a verb sense: 看, 试, 喜欢 (the words a translation
    may write twice in a row: translator.Vocabulary.may_double)."""
    return frozenset(
        chinese
        for part in parts()
        for senses in part.senses.values()
        for sense in senses
        if sense.role == "verb" and sense.chinese
        for chinese in sense.chinese.split("|")
    )


def is_capitalised(word: str) -> bool:
    """Typed with a capital and the rest in lower case, as a name is (Grace, Mr; not grace, nor NASA)."""
    return word[:1].isupper() and word[1:].islower()


def is_typed_name(word: str) -> bool:
    """Whether the word is a name of name_words as translator.read_words keeps it: typed with a capital (Grace).
    The dictionary does not read it (lookup), and a translator reads it as <unk:noun>."""
    return is_capitalised(word) and name_words().get(word.lower(), "first") != "first"


def gives_no_chinese(word: str) -> bool:
    """Whether the dictionary gives the word no Chinese, so that the list of names may: it does not read the word,
    or reads it as a noun without a counterpart (li: "not translated: a name"); never a function word (the)."""
    reading = lookup(word)
    return reading is None or (reading.chinese is None and reading.role == "noun")


def name(word: str) -> str | None:
    """The Chinese of a name the dictionary gives no Chinese (chen -> 陈; Mark, typed as a name: 马克; a full name read
    as one word: John Smith -> 约翰·史密斯), or None: not for a word it translates (mark), nor for a function word
    without a counterpart (the)."""
    if not gives_no_chinese(word):
        return None
    return names().get(normalise(word)) or full_name(word)


def is_full_name(first: str, last: str) -> bool:
    """Whether two typed words are a full name, which translator.read_words reads as one word: a first name of
    name_words (given or first: John, Grace) and a surname (name_words' surnames: White; or a word the dictionary gives
    no Chinese: Smith, Johnson), each a word of letters typed with a capital."""
    if not (first.isalpha() and last.isalpha() and is_capitalised(first) and is_capitalised(last)):
        return False
    return name_words().get(first.lower()) in ("given", "first") and (
        name_words().get(last.lower()) == "surname" or gives_no_chinese(last)
    )


def full_name(word: str) -> str | None:
    """The Chinese of a full name read as one word: its first name's and its surname's from the list of names, not the
    dictionary's word (Grant 格兰特, not 补助金; White 怀特, not 白), joined by the middle dot of transliterated names
    (约翰·史密斯); a first name the project's lexicon writes as a name keeps the lexicon's Chinese, as it has alone
    (Mike 迈克, where CC-CEDICT has 麦克). None when the list lacks either (the name is kept in English, marked)."""
    typed = word.split(" ")  # not `parts`: that is the dictionary's two parts, parts()
    if len(typed) != 2 or not is_full_name(*typed):
        return None
    given, family = (names().get(normalise(part)) for part in typed)
    reading = lookup(typed[0])
    if given and reading and reading.source == "lexicon" and reading.chinese:
        given = reading.chinese
    return f"{given}·{family}" if given and family else None
