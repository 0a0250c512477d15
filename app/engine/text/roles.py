"""What a word does in its sentence (its role: noun, verb, adjective, ...) and how many meanings it has.

A lexicon word's role is the lexicon's role column (the mean over its senses when they differ: "cold"
is an adjective and a noun). A word the lexicon lacks gets a role guessed by rules that need no
download, and the guess says how it was made, so the page can list it:

- English: a short list of function words (the, of, because, ...), then endings: -ly an adverb,
  -ing/-ed a verb, -tion/-ness/-ment/-er/-s a noun, -ful/-ous/-ive/-able/-al/-ic an adjective;
  a word with none of them is taken for a noun (most new words are).
- Chinese: jieba's part-of-speech tag for the word (jieba.posseg, from its own dictionary).
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from app.engine.text.lexicon import ROLES, load_lexicon, role_vector
from app.engine.text.tokenize import Token, chinese_segmenter

FUNCTION_WORDS = {  # English words too common to be missing, whatever the lexicon holds
    "determiner": "the a an this that these those my your his her its our their some any each every no",
    "preposition": "of in on at by with from to for about into onto under over near behind between through",
    "conjunction": "and but or because so if when while although though than unless whether",
    "adverb": "not very too also only just even still already never always often again",
    "noun": "i you he she it we they me him us them who what",
}
FUNCTION_ROLE = {word: role for role, words in FUNCTION_WORDS.items() for word in words.split()}
ENDINGS = (  # (ending, role), longest first: the first that fits decides
    ("tion", "noun"), ("sion", "noun"), ("ness", "noun"), ("ment", "noun"), ("ship", "noun"), ("ity", "noun"),
    ("ful", "adjective"), ("ous", "adjective"), ("ive", "adjective"), ("able", "adjective"), ("ible", "adjective"),
    ("less", "adjective"), ("ical", "adjective"), ("al", "adjective"), ("ic", "adjective"),
    ("ly", "adverb"), ("ing", "verb"), ("ed", "verb"), ("ize", "verb"), ("ise", "verb"), ("ify", "verb"),
    ("er", "noun"), ("or", "noun"), ("ist", "noun"), ("s", "noun"),
)  # fmt: skip
JIEBA_ROLES = {  # jieba's tag (its first letter) -> role
    "n": "noun", "t": "noun", "s": "noun", "f": "noun", "r": "noun", "v": "verb", "a": "adjective", "b": "adjective",
    "z": "adjective", "d": "adverb", "p": "preposition", "c": "conjunction", "u": "particle", "y": "particle",
    "e": "particle", "o": "particle", "m": "determiner", "q": "determiner",
}  # fmt: skip


@dataclass(frozen=True)
class Guess:
    """A role guessed for a word the lexicon lacks, and how."""

    word: str  # as written
    role: str  # one of ROLES
    how: str  # "ending -ing", "function word", "jieba tag v", "no rule: noun"


@functools.lru_cache(maxsize=4096)  # a typed word comes back with every edit of its sentence, and twice in a view
def guess_role(token: Token) -> Guess:
    """The role of a word the lexicon lacks, by the rules above."""
    key = token.key
    if any("\u3400" <= ch <= "\u9fff" for ch in key):
        tag = jieba_tag(key)
        return Guess(token.text, JIEBA_ROLES.get(tag[:1], "noun"), f"jieba tag {tag}")
    if key in FUNCTION_ROLE:
        return Guess(token.text, FUNCTION_ROLE[key], "function word")
    for ending, role in ENDINGS:
        if key.endswith(ending) and len(key) > len(ending) + 2:
            return Guess(token.text, role, f"ending -{ending}")
    return Guess(token.text, "noun", "no rule: noun")


_tagger = None
_tagger_lock = threading.Lock()


def word_tags(dictionary: BinaryIO) -> dict[str, str]:
    """jieba's dictionary file (UTF-8 lines "word frequency tag") as word -> tag, the table jieba's
    POSTokenizer.load_word_tag makes, read whole and split at once instead of line by line (0.2 s of CPU
    against 0.5 s at each process's first Chinese word the lexicon lacks). Closes the file."""
    with dictionary:
        text = dictionary.read().decode("utf-8")
    fields = text.split()
    if len(fields) % 3 or not all(map(str.isdigit, fields[1::3])):  # a word with a space in it, a line cut short
        raise ValueError("jieba's dictionary has a line that is not: word frequency tag")
    return dict(zip(fields[0::3], fields[2::3], strict=True))


@functools.lru_cache(maxsize=4096)
def jieba_tag(word: str) -> str:
    """jieba's part-of-speech tag of a Chinese word (of its last piece, when jieba cuts it).

    The tagger wraps the segmenter tokenize.py already keeps (one dictionary in memory, not a second one).
    """
    global _tagger
    import jieba.posseg

    with _tagger_lock:
        if _tagger is None:

            class Tagger(jieba.posseg.POSTokenizer):
                def load_word_tag(self, f: BinaryIO) -> None:
                    self.word_tag_tab = word_tags(f)

            _tagger = Tagger(chinese_segmenter())
        pairs = list(_tagger.cut(word, HMM=True))
    return pairs[-1].flag if pairs else "n"


def token_roles(tokens: tuple[Token, ...] | list[Token]) -> tuple[np.ndarray, list[Guess]]:
    """Each token's role vector (n_tokens, n_roles), and the guesses made for words the lexicon lacks.

    Punctuation has no role (a zero row).
    """
    lexicon = load_lexicon()
    rows, guesses = [], []
    for token in tokens:
        word = lexicon.entry(token.key)
        if word is not None:
            rows.append(lexicon.roles[word])
        elif not token.is_word:
            rows.append(np.zeros(len(ROLES)))
        else:
            guess = guess_role(token)
            rows.append(role_vector(guess.role))
            if guess.word not in {g.word for g in guesses}:
                guesses.append(guess)
    return np.array(rows, dtype=float).reshape(len(tokens), len(ROLES)), guesses


def main_roles(roles: np.ndarray) -> list[str | None]:
    """The role each role vector mostly has (None for punctuation's zero row)."""
    # roles (n_tokens, n_roles)
    strongest, any_role = roles.argmax(axis=1).tolist(), roles.any(axis=1).tolist()  # (n_tokens,) each
    return [ROLES[i] if has else None for i, has in zip(strongest, any_role, strict=True)]


def meanings(token: Token) -> int:
    """How many different meanings (sense vectors) the lexicon gives a word: bank 2, river 1, unknown 0."""
    return load_lexicon().meanings.get(load_lexicon().entry(token.key) or "", 0)
