"""The curated bilingual lexicon: ``lexicon.tsv`` beside this file.

Each row is one sense of a word: an English word, its Chinese word(s) for that sense, and
named features with weights (``money place:0.5``). An English word's vector is the mean of its
senses ("bank" is half river bank, half money bank); a Chinese word's vector is the mean of
the senses it translates, so "汤姆" gets exactly Tom's vector. "-" in either column means the
word has no one-word counterpart in the other language ("the", 吗). How to add words: docs/lexicon.md.
"""

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FEATURES = (
    "person", "animal", "motion", "water", "money", "place", "nature", "food",
    "time", "feeling", "object", "speech", "big", "small", "pronoun", "function",
)  # fmt: skip
LEXICON_PATH = Path(__file__).with_name("lexicon.tsv")


@dataclass(frozen=True)
class Lexicon:
    vectors: dict  # word (English lower-case, or Chinese) -> (n_features,) vector
    english_words: frozenset
    chinese_words: frozenset

    def lookup(self, key: str) -> np.ndarray | None:
        """The vector of a word, trying simple English inflections; None when unknown."""
        for candidate in inflection_candidates(key.replace("’", "'")):
            if candidate in self.vectors:
                return self.vectors[candidate]
        return None


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


def parse_features(text: str, line_number: int) -> np.ndarray:
    vector = np.zeros(len(FEATURES))  # (n_features,)
    for item in text.split():
        name, _, weight = item.partition(":")
        if name not in FEATURES:
            raise ValueError(f"lexicon.tsv line {line_number}: unknown feature {name!r}")
        vector[FEATURES.index(name)] = float(weight) if weight else 1.0
    return vector


@functools.cache
def load_lexicon(path: Path = LEXICON_PATH) -> Lexicon:
    senses = {}  # word -> list of sense vectors
    english, chinese = set(), set()
    header_seen = False
    for line_number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        columns = line.split("\t")
        if not header_seen:
            header_seen = columns == ["en", "zh", "features"]
            if not header_seen:
                raise ValueError(f"lexicon.tsv line {line_number}: expected the header en<TAB>zh<TAB>features")
            continue
        if len(columns) != 3:
            raise ValueError(f"lexicon.tsv line {line_number}: expected 3 tab-separated columns")
        en, zh, features = columns
        vector = parse_features(features, line_number)
        en = en.strip().lower()
        if en != "-":
            senses.setdefault(en, []).append(vector)
            english.add(en)
        for word in zh.split("|"):
            word = word.strip()
            if word and word != "-":
                senses.setdefault(word, []).append(vector)
                chinese.add(word)
    vectors = {word: np.mean(rows, axis=0) for word, rows in senses.items()}
    return Lexicon(vectors, frozenset(english), frozenset(chinese))
