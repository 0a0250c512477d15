"""A translation checked word by word against the dictionary: what each Chinese word translates, what it made up,
and which English words it left out.

A translator that meets a sentence beyond its corpus does not say so: it writes fluent Chinese, sometimes with a
word no English word asked for ("are the students in the classroom" -> 学生 们 在 教室 里 吹 吗) or without one
that was asked for ("she drinks coffee every morning" -> 她 每 天 早上 喝). Attention alone does not show it
(吹 still points somewhere). The check reads the translation against the English words' counterparts:

    counterparts(word)  every Chinese word the project's lexicon, the translators' dictionary (every sense of every
                        lemma the word may be a form of, and its phrasal verbs: sit → 坐下) or the corpus's own
                        grammar (mt/taught.tsv: "it rained" -> 下雨, "showed" -> 看 in 给 X 看) give the English word;
                        what the corpus taught only beside or before certain words (last night -> 昨天, go home -> 回)
                        counts only in a sentence that has them (meanings)
    check(source, output)
        translates[i]   the English positions whose counterparts include Chinese word i (alone, or joined with the
                        word beside it: 每 天 is 每天)
        invented        the Chinese content words (noun, verb, adjective) that translate no English word
        left_out        the English words a translation must not lose (must_translate: content words, a question
                        word asking, a number, a name, a word no dictionary reads) none of whose counterparts is in
                        the output

No model is read: the check is the dictionary's, beside what attention shows. The trained translators use it on
their output (app/view); tools/translator/everyday.py measures with it. Pure Python.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

from app.engine.models import mt_dictionary
from app.engine.text.lexicon import lexicon_rows

TAUGHT_PATH = Path(__file__).parent / "mt" / "taught.tsv"
TAUGHT_COLUMNS = ["en", "zh", "pairs", "with", "before"]
CONTENT_ROLES = {"noun", "verb", "adjective"}
# Chinese words the grammars write for no content word: the copula, the past marker, 在 (at, and the progressive),
# 会 (will), 能 (can), 想 (want to), 有 (there is), 给 (the ditransitives' 给 X Y), the particles, place words
# (里 上 边 ...) and function words (的 地 们 很 ...). Every measure word is a grammar word too. Some are also a
# content word's Chinese in the dictionary (的 as "target"); here they are grammar.
GRAMMAR = {"是", "了", "在", "会", "能", "想", "有", "给", "的", "地", "得", "们", "吗", "很", "不", "没", "请", "正在",
           "一", "这", "那", "这些", "那些", "一些", "因为", "所以", "但是", "不要", "真", "里", "上", "边", "附近",
           "下面", "后面"}  # fmt: skip
# English words of the grammar that Chinese often writes with no word of their own (the copula before an
# adjective, do in a question, have as a helper): never "left out"; nor are contractions (isn't: 没 在, 不 是 ...).
ENGLISH_GRAMMAR = {"be", "do", "have"}
# Beside the content words, two kinds of word a translation must not lose: one that asks (without it a translation
# is no longer a question: where did the problem appear -> 问题 出现 了) and one that counts (our class has forty
# students -> 我们的 班 学生).
QUESTION_WORDS = frozenset({"who", "whom", "whose", "what", "which", "when", "where", "why", "how"})
NUMERALS = frozenset("零一二两三四五六七八九十百千万")


class Taught(NamedTuple):
    """Where a link of mt/taught.tsv holds: beside one of ``beside`` (last -> 昨天 in *last night*), right before one
    of ``before`` (go -> 回 in *go home*, not in *go by bus*); empty: anywhere."""

    beside: frozenset[str]  # English lemmas; one must be in the sentence
    before: frozenset[str]  # English lemmas; one must be the word right after


class Check(NamedTuple):
    translates: tuple[tuple[int, ...], ...]  # (n_output,) for each Chinese word, the English positions it translates
    content: tuple[bool, ...]  # (n_output,) whether each Chinese word is a content word
    invented: tuple[int, ...]  # output positions: content words that translate no English word
    left_out: tuple[int, ...]  # source positions: content words with no counterpart in the output


def _lemmas(word: str) -> set[str]:
    """The word itself and every lemma the dictionary says it may be a form of (walked: walked, walk; mondays:
    monday, a plural the forms lack: mt_dictionary.unmade_plural); none for a name typed as one (Grace: not grace,
    mt_dictionary.is_typed_name); for an -ing word that is also a noun of its own (mt_dictionary.own_noun: meeting),
    the noun only where it is read so (mt_dictionary.as_noun: "meeting (noun)"), else only the verb it is a form of
    (meet: the 会议 of *when meeting* translates nothing)."""
    if mt_dictionary.is_typed_name(word):
        return set()
    noun = mt_dictionary.marked_noun(word)  # "meeting (noun)": the noun meeting only, not the verb meet
    if noun is not None:
        return {noun}
    key = mt_dictionary.normalise(word)
    found = {lemma for part in mt_dictionary.parts() for lemma, _ in part.forms.get(key, ())}
    if mt_dictionary.own_noun(key) is None:  # meeting unmarked is meet's form only, not the noun 会议
        found.add(key)
    plural = mt_dictionary.unmade_plural(key)
    return found | {plural} if plural else found


@functools.cache
def _lexicon() -> dict[str, frozenset[str]]:
    counterparts: dict[str, set[str]] = {}
    for row in lexicon_rows():
        if row.en != "-":
            counterparts.setdefault(row.en, set()).update(row.chinese)
    return {en: frozenset(zh) for en, zh in counterparts.items()}


@functools.cache
def taught(path: Path = TAUGHT_PATH) -> dict[str, dict[str, Taught]]:
    """mt/taught.tsv: English lemma -> each Chinese word the corpus's grammar aligns it with beyond the dictionary
    -> where the link holds (Taught: the lemmas it was only ever written beside, and only ever right before)."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    if not lines or lines[0].split("\t") != TAUGHT_COLUMNS:
        raise ValueError(f"{path.name}: expected the header {' '.join(TAUGHT_COLUMNS)}")
    links: dict[str, dict[str, Taught]] = {}
    for number, line in enumerate(lines[1:], start=2):
        row = line.split("\t")
        if len(row) != len(TAUGHT_COLUMNS):
            raise ValueError(f"{path.name} row {number}: expected {len(TAUGHT_COLUMNS)} tab-separated columns")
        beside, before = (frozenset() if column == "-" else frozenset(column.split()) for column in row[3:])
        links.setdefault(row[0], {})[row[1]] = Taught(beside, before)
    return links


@functools.cache
def counterparts(word: str, with_taught: bool = True) -> frozenset[str]:
    """Every Chinese word given for the English word: the lexicon's and the dictionary's for each lemma it may be a
    form of (walked: walk's), and (with_taught) what the corpus taught it anywhere (taught; rained: 下雨)."""
    found = dictionary_senses(word)
    for lemma in _lemmas(word):
        found.update(_lexicon().get(lemma, ()))
    return frozenset(found | taught_to(word) if with_taught else found)


def taught_to(word: str, sentence: frozenset[str] = frozenset(), following: frozenset[str] = frozenset()) -> set[str]:
    """What the corpus taught the word (each lemma it may be a form of): the links it taught anywhere, those it
    taught only beside other words when one of their lemmas is in ``sentence``, and those it taught only right
    before other words when one of their lemmas is ``following`` (the next word's lemmas)."""
    links = (taught().get(lemma, {}).items() for lemma in _lemmas(word))
    return {
        zh
        for pairs in links
        for zh, where in pairs
        if (not where.beside or where.beside & sentence) and (not where.before or where.before & following)
    }


def meanings(source: list[str]) -> list[frozenset[str]]:
    """(n_source,) for each English word of a sentence, every Chinese word given for it: its counterparts, and what
    the corpus taught it beside another word of this sentence (last beside night: 昨天; not in *last summer*) or
    right before the word after it (go before home: 回; not in *go by bus*)."""
    lemmas = [frozenset(_lemmas(word)) for word in source]
    sentence = frozenset().union(*lemmas)
    after = [*lemmas[1:], frozenset()]  # (n_source,) the next word's lemmas; none after the last
    pairs = zip(source, after, strict=True)
    return [counterparts(word) | taught_to(word, sentence, next_word) for word, next_word in pairs]


def dictionary_senses(word: str) -> set[str]:
    """Every Chinese word the dictionary gives the English word, in every sense of every lemma it may be a form of,
    and in its phrasal verbs (sat: 坐, and 坐下 of sit down), or the list of names (chen: 陈)."""
    lemmas = _lemmas(word)
    found = set()
    for part in mt_dictionary.parts():  # the core and the wide part
        found |= {s.chinese for lemma in lemmas for s in part.senses.get(lemma, ()) if s.chinese}
        found |= {chinese for (verb, _), chinese in part.phrasal.items() if verb in lemmas}
    name = mt_dictionary.name(word)  # chen: 陈, from the list of names
    return found | {name} if name else found


@functools.cache
def content_words() -> frozenset[str]:
    """Chinese words the lexicon or the dictionary's core gives a noun, verb or adjective sense, less the grammar's
    words and every measure word. Not the wide part's: the translators write only words of the corpus, which is
    written from the core, and a wide Chinese word (even a common one given for a rare English word) must not
    change which of them the candidate list lets through."""
    words: set[str] = set()
    for row in lexicon_rows():
        if row.role in CONTENT_ROLES:
            words.update(row.chinese)
    senses = mt_dictionary.load().senses.values()
    words.update(s.chinese for group in senses for s in group if s.role in CONTENT_ROLES and s.chinese)
    words.update(mt_dictionary.load().phrasal.values())  # 起床, 坐下: verbs
    measures = {s.measure for group in senses for s in group if s.measure}
    return frozenset(words - GRAMMAR - measures)


def is_english_content(word: str) -> bool:
    """A noun, verb or adjective with a Chinese counterpart (not be, do, have, nor a contraction), by the
    dictionary's first reading."""
    reading = mt_dictionary.reading(word)
    return (
        reading is not None
        and reading.role in CONTENT_ROLES
        and reading.lemma not in ENGLISH_GRAMMAR
        and "'" not in reading.lemma
        and bool(counterparts(word))
    )


def is_number(word: str) -> bool:
    """A number from two up (two, ten, forty, thousand): a determiner the dictionary gives Chinese of numerals only.
    Not one, as often a pronoun as a count (this one -> 这 个, no one, one should ...)."""
    reading = mt_dictionary.reading(word)
    return (
        reading is not None
        and reading.role == "determiner"
        and reading.lemma != "one"
        and bool(reading.chinese)
        and set(reading.chinese) <= NUMERALS
    )


def is_asking(source: list[str], j: int) -> bool:
    """Whether source[j] is a question word that asks: not right after a noun or pronoun, where it opens a relative
    clause that Chinese writes with no word of its own (the man who lives here -> 住 在 这里 的 男人)."""
    if source[j].lower() not in QUESTION_WORDS:
        return False
    if j == 0:
        return True
    if source[j - 1].startswith("<unk:noun"):  # the corpus's typed <unk:noun>, <unk:nouns>: nouns
        return False
    before = mt_dictionary.reading(source[j - 1])
    return before is None or before.role not in ("noun", "pronoun")


def must_translate(source: list[str], j: int) -> bool:
    """Whether a translation that has no counterpart of source[j] leaves something out: a content word, a number, a
    name of the list of names or a word no dictionary reads (weighed_word), or a question word asking."""
    return weighed_word(source[j]) or is_asking(source, j)


@functools.lru_cache(maxsize=65536)  # per word: a beam checks many translations, taught.py a million corpus words
def weighed_word(word: str) -> bool:
    """must_translate's part that reads the word alone, wherever it stands: a content word, a number (in words or in
    digits), or a word no dictionary reads (a name of the list of names among them: its names are words of letters,
    a name of several words read as one, New York, letters and spaces)."""
    return is_english_content(word) or is_number(word) or is_digits(word) or is_unread(word)


def is_digits(word: str) -> bool:
    """A number typed in digits that source_words keeps so (21, 35, 2026: it reads 0-20 and the tens in words): no
    dictionary reads it, and a translation that drops it loses it unmarked unless the check weighs it. Kept as typed,
    it translates itself."""
    return word.isascii() and word.isdigit()


def is_unread(word: str) -> bool:
    """A word of letters that no dictionary reads (kilograms, platypus, a name, chen of the list of names): the model
    cannot translate it, and a translation that drops it loses it unmarked unless the check weighs it. Kept in
    English, it translates itself."""
    return word.replace(" ", "").isalpha() and mt_dictionary.reading(word) is None  # New York: one word, read so


def is_listed_name(word: str) -> bool:
    """A name the dictionary does not read and the list of names gives Chinese (chen: 陈, xiamen: 厦门市)."""
    return mt_dictionary.reading(word) is None and mt_dictionary.name(word) is not None


def allowed_content(source: list[str]) -> frozenset[str]:
    """The content words a translation of ``source`` may write: those that translate one of its words (their
    counterparts). A decoder that writes only these and non-content words makes nothing up (Jean et al. 2015's
    candidate list, here from the dictionary)."""
    return frozenset().union(*meanings(source)) & content_words()


def check(source: list[str], output: list[str]) -> Check:
    """``source``: the English words as the model read them; ``output``: the Chinese words a reader sees (every
    <unk> replaced). A word kept in English counts as the translation of itself."""
    translated_by, weighed = _reading(tuple(source))  # Chinese word -> English positions; the words weighed
    translates = []
    for i, word in enumerate(output):
        joined = [output[k] + output[k + 1] for k in (i - 1, i) if 0 <= k < len(output) - 1]  # with either neighbour
        forms = {word, word.removesuffix("地") or word, *joined}  # 小心地: a manner adverb put in for an <unk>
        translates.append(tuple(sorted({j for form in forms for j in translated_by.get(form, ())})))
    content = tuple(word in content_words() for word in output)
    invented = tuple(i for i, found in enumerate(translates) if content[i] and not found)
    covered = {j for found in translates for j in found}
    left_out = tuple(j for j in weighed if j not in covered)
    return Check(tuple(translates), content, invented, left_out)


@functools.lru_cache(maxsize=64)
def _reading(source: tuple[str, ...]) -> tuple[dict[str, tuple[int, ...]], tuple[int, ...]]:
    """check's reading of a sentence: each Chinese word given for one of its English words (meanings, or the English
    word itself, kept in English) -> the positions of the English words it translates; and the positions of the
    words a translation must not lose (must_translate). Kept for the last sentences (a beam search checks many
    translations of one sentence); read only."""
    words = list(source)
    translated_by: dict[str, list[int]] = {}
    for j, (word, found) in enumerate(zip(words, meanings(words), strict=True)):
        for chinese in found | {word}:
            translated_by.setdefault(chinese, []).append(j)
    weighed = tuple(j for j in range(len(words)) if must_translate(words, j))
    return {chinese: tuple(positions) for chinese, positions in translated_by.items()}, weighed
