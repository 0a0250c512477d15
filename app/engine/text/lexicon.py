"""The curated bilingual lexicon: ``lexicon.tsv`` beside this file.

Each row is one sense of a word: an English word, its Chinese word(s) for that sense, the sense's
part of speech (its role: noun, verb, ...), and named features with weights (``money place:0.5``).
An English word's vector is the mean of its
senses ("bank" is half river bank, half money bank); a Chinese word's vector is the mean of
the senses it translates, so "汤姆" gets exactly Tom's vector. "-" in either column means the
word has no one-word counterpart in the other language ("the", 吗). How to add words: docs/lexicon.md.
"""

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

FEATURES = (
    "person", "animal", "motion", "water", "money", "place", "nature", "food",
    "time", "feeling", "object", "speech", "big", "small", "pronoun", "function",
)  # fmt: skip
# Roles: what a word does in a sentence. A pronoun stands in for a noun, so its role column is "noun"
# (the meaning feature `pronoun` says it is one); the lexicon's role column may say "pronoun".
ROLES = ("noun", "verb", "adjective", "adverb", "determiner", "preposition", "conjunction", "particle")
ROLE_NAMES = (*ROLES, "pronoun")  # what the lexicon's role column may say
LEXICON_PATH = Path(__file__).with_name("lexicon.tsv")
ENTRIES_KEPT = 50_000  # words whose entry a worker remembers (a few MB at most)


@dataclass(frozen=True)
class Lexicon:
    vectors: dict  # word (English lower-case, or Chinese) -> (n_features,) vector
    english_words: frozenset
    chinese_words: frozenset
    roles: dict  # word -> (n_roles,) the mean of its senses' roles (one-hot each)
    meanings: dict  # word -> number of different sense vectors it has (bank: 2)
    sense_vectors: dict  # English word with two meanings of one role -> ((vector, Chinese word), ...) per meaning
    # token key -> its entry, as ``entry`` found it: a request asks for each word several times
    _entries: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def entry(self, key: str) -> str | None:
        """The lexicon's word for a token, trying simple English inflections; None when unknown."""
        if key in self._entries:
            return self._entries[key]
        word = next((c for c in inflection_candidates(key.replace("’", "'")) if c in self.vectors), None)
        if len(self._entries) >= ENTRIES_KEPT:  # typed words are unbounded: start again rather than grow
            self._entries.clear()
        self._entries[key] = word
        return word

    def lookup(self, key: str) -> np.ndarray | None:
        """The vector of a word, trying simple English inflections; None when unknown."""
        word = self.entry(key)
        return None if word is None else self.vectors[word]


ENDINGS = (  # (ending, what may replace it): plural, past, -ing, comparative, superlative, adverb
    ("ies", ("y",)), ("es", ("", "e")), ("s", ("",)),
    ("ied", ("y",)), ("ed", ("", "e")), ("ing", ("", "e")),
    ("ier", ("y",)), ("iest", ("y",)), ("er", ("", "e")), ("est", ("", "e")),
    ("ily", ("y",)), ("ly", ("",)),
)  # fmt: skip


def inflection_candidates(word: str) -> Iterator[str]:
    """The word itself, then forms with a common English ending removed (chased -> chase, bigger -> big)."""
    yield word
    if word.endswith("'s"):
        yield word[:-2]  # it's -> it, Tom's -> tom
    for ending, replacements in ENDINGS:
        if word.endswith(ending) and len(word) > len(ending) + 2:
            stem = word[: -len(ending)]
            for replacement in replacements:
                yield stem + replacement
            if len(stem) > 2 and stem[-1] == stem[-2]:
                yield stem[:-1]  # stopped -> stop, running -> run


def role_vector(role: str) -> np.ndarray:
    """A role as a one-hot vector over ROLES (a pronoun counts as a noun)."""
    vector = np.zeros(len(ROLES))  # (n_roles,)
    vector[ROLES.index("noun" if role == "pronoun" else role)] = 1.0
    return vector


def parse_features(text: str, line_number: int) -> np.ndarray:
    vector = np.zeros(len(FEATURES))  # (n_features,)
    for item in text.split():
        name, _, weight = item.partition(":")
        if name not in FEATURES:
            raise ValueError(f"lexicon.tsv line {line_number}: unknown feature {name!r}")
        vector[FEATURES.index(name)] = float(weight) if weight else 1.0
    return vector


class Row(NamedTuple):
    """One row of lexicon.tsv, checked: its English word ("-": none), Chinese words, role and feature text."""

    line_number: int
    en: str  # lower case; "-" for a Chinese-only row
    chinese: tuple[str, ...]  # the Chinese alternatives, "-" and blanks left out
    role: str
    features: str


def lexicon_rows(path: Path = LEXICON_PATH) -> list[Row]:
    """Every row of the lexicon, in file order, after the header; the one reader of the file (load_lexicon, the
    translators' dictionary and their everyday measure all read it here). Raises ValueError naming the line."""
    rows = []
    header_seen = False
    for line_number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        columns = line.split("\t")
        if not header_seen:
            header_seen = columns == ["en", "zh", "role", "features"]
            if not header_seen:
                raise ValueError(f"lexicon.tsv line {line_number}: expected the header en<TAB>zh<TAB>role<TAB>features")
            continue
        if len(columns) != 4:
            raise ValueError(f"lexicon.tsv line {line_number}: expected 4 tab-separated columns")
        en, zh, role, features = columns
        if role not in ROLE_NAMES:
            raise ValueError(f"lexicon.tsv line {line_number}: unknown role {role!r}")
        chinese = tuple(w.strip() for w in zh.split("|") if w.strip() and w.strip() != "-")
        rows.append(Row(line_number, en.strip().lower(), chinese, role, features))
    return rows


@functools.cache
def load_lexicon(path: Path = LEXICON_PATH) -> Lexicon:
    senses = {}  # word -> list of sense vectors
    roles = {}  # word -> list of sense roles (one-hot)
    labelled = {}  # English word -> list of (sense vector, its first Chinese word, its role)
    english, chinese = set(), set()
    for row in lexicon_rows(path):
        vector = parse_features(row.features, row.line_number)
        en, role = row.en, row.role
        words = [en] if en != "-" else []
        english.update(words)
        words += row.chinese
        chinese.update(row.chinese)
        for word in words:
            senses.setdefault(word, []).append(vector)
            roles.setdefault(word, []).append(role_vector(role))
        if en != "-" and len(words) > 1:
            labelled.setdefault(en, []).append((vector, words[1], role))
    vectors = {word: np.mean(rows, axis=0) for word, rows in senses.items()}
    role_means = {word: np.mean(rows, axis=0) for word, rows in roles.items()}
    counts = {word: len({row.tobytes() for row in rows}) for word, rows in senses.items()}
    distinct = {}  # English word -> its meanings, one (vector, Chinese word) per different vector
    for word, rows in labelled.items():
        kept = {}
        for vector, chinese_word, role in rows:
            kept.setdefault(vector.tobytes(), (vector, chinese_word, role))
        if len(kept) > 1 and len({role for _, _, role in kept.values()}) == 1:  # meanings of one role only
            distinct[word] = tuple((vector, chinese_word) for vector, chinese_word, _ in kept.values())
    return Lexicon(vectors, frozenset(english), frozenset(chinese), role_means, counts, distinct)
