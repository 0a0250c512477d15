"""Training pairs with several unknown nouns: `train.py --more-unknowns N` adds N of them to the corpus's.

A teacher's sentence often has two or three words beyond the vocabulary at once: names and rare nouns (*the
platypus and the wombat live in Australia*). The corpus writes such sentences rarely (one training pair in 24 has
two <unk> or more), and RNNsearch, which tells two unknown words apart only by their places in the sentence,
pointed its attention at the same one twice and dropped the other. These pairs are made from the corpus's own
training pairs: in each, two or three nouns that the gold alignments link alone to one Chinese content word (and to
nothing else, so no measure word or 的 depends on which noun it is) become their typed <unk> in English and <unk>
in Chinese, as `everyday_grammar.unknown_words` writes a hidden word. The alignments stay as they were. A time
word is never hidden (yesterday, on monday, every morning: Chinese moves it to the front, so a hidden one would teach
that an unknown noun at the front of the Chinese is a time).
"""

from __future__ import annotations

import random

from app.engine.models import mt_check, mt_dictionary
from tools.translator import everyday_grammar
from tools.translator.dictionary import WEEKDAYS

NOUN_TOKENS = ("<unk:noun>", "<unk:nouns>")
TIME_WORDS = frozenset(
    {w for english, _, _ in everyday_grammar.TIMES for w in english} | everyday_grammar.TIME_NOUNS | set(WEEKDAYS)
)


def is_time(word: str) -> bool:
    reading = mt_dictionary.lookup(word)
    return word in TIME_WORDS or (reading is not None and reading.lemma in TIME_WORDS)


def hideable(pair: dict, content: frozenset[str]) -> list[tuple[int, int]]:
    """(English position, Chinese position) of each noun that can be hidden: the only Chinese word aligned to it is
    a content word aligned to it alone, and the dictionary's Chinese for it where the dictionary reads it (a name or a
    story word it lacks is hidden too)."""
    english, chinese = pair["en"].split(), pair["zh"].split()
    linked: dict[int, list[int]] = {}  # English position -> the Chinese positions aligned with it
    for i, sources in enumerate(pair["align"]):
        for j in sources:
            linked.setdefault(j, []).append(i)
    found = []
    for j, word in enumerate(english):
        if word.startswith("<") or mt_dictionary.unknown_token(word) not in NOUN_TOKENS or len(linked.get(j, [])) != 1:
            continue
        if is_time(word):
            continue
        i = linked[j][0]
        reading = mt_dictionary.lookup(word)
        as_noun = reading is None or reading.chinese == chinese[i]  # drink -> 喝 is a verb there, not the noun 饮料
        if pair["align"][i] == [j] and chinese[i] in content and as_noun:
            found.append((j, i))
    return found


def hidden(pair: dict, chosen: list[tuple[int, int]]) -> dict:
    """The pair with the chosen nouns written as their typed <unk> and their Chinese as <unk>."""
    english, chinese = pair["en"].split(), pair["zh"].split()
    for j, i in chosen:
        english[j] = mt_dictionary.unknown_token(english[j])
        chinese[i] = "<unk>"
    return {"en": " ".join(english), "zh": " ".join(chinese), "align": pair["align"], "grammar": pair["grammar"]}


def extra_pairs(train: list[dict], count: int, seed: int) -> list[dict]:
    """``count`` pairs, each a training pair (drawn without repeats, seeded) with 2 or 3 of its nouns hidden."""
    rng = random.Random(seed)
    content = mt_check.content_words()
    order = list(range(len(train)))
    rng.shuffle(order)
    made = []
    for index in order:
        if len(made) == count:
            break
        candidates = hideable(train[index], content)
        if len(candidates) < 2:
            continue
        chosen = rng.sample(candidates, min(len(candidates), rng.choice((2, 2, 3))))
        made.append(hidden(train[index], sorted(chosen)))
    return made
