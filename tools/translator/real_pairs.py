"""Sentence pairs written by people: the HSK 3.0 graded sentences of the `hsk-sentences-audio` package.

The grammars (corpus.py, everyday_grammar.py) write every other pair the translators learn from, so a sentence a
teacher types in their own words often has a shape no grammar writes. The package holds 4,354 Chinese sentences of
a textbook's six levels, each with an English translation and its Chinese words, every word glossed in English from
CC-CEDICT (its data: CC BY-SA 4.0). They measure the translators on sentences nobody wrote for them
(`items`: every sentence, for weights never trained on any, which the committed ones are; `held_out` picks a tenth by
the sha256 of the English, never by Python's salted hash), and `train.py --real-pairs` trains on the other nine
tenths (`training_pairs`), REPEAT times each, beside the grammars' pairs: a trial, measured and not kept
(tools/translator/README.md).

How a pair is read: its English as the translators read it (translator.source_words); its Chinese in the package's
own words, except that 的 after a pronoun is joined to it as the corpus writes it (我 的 书 -> 我的 书). Left out: the
package's placeholders (no translation), the hand-written sentences (dataset.HAND_WRITTEN, which measure the models),
and a second translation of an English sentence already read.

The vocabulary (the trial's). A word of either side is the models' when the grammars' training pairs have it, or
the kept pairs have it at least MIN_COUNT times. A rarer English word is read as its typed <unk> and the one Chinese
word whose gloss names it (the word or its lemma) becomes <unk>, as the grammar hides a word
(everyday_grammar.unknown_words), so that the model learns to write <unk> for a word it cannot read, never another
word; a pair where that match is not exactly one word, or with a rare Chinese word that no rare English word names,
is left out (training on it would teach a known English word -> <unk>).

    python -m tools.translator.real_pairs                               # what is read, held out and kept
    python -m tools.translator.real_pairs --measure --level 1 2 3       # the held-out sentences of HSK 1-3
    python -m tools.translator.real_pairs --measure rnnsearch --every   # every sentence (weights never trained on them)
"""

from __future__ import annotations

import argparse
import collections
import functools
import hashlib
import json
import re
from collections.abc import Sequence

from hsk_sentences_audio import load_sentences

from app.engine.models import mt_check, mt_dictionary, translator
from app.engine.models.translator import source_words
from tools.translator import dataset, everyday

HELD_OUT_SHARE = 0.1
MIN_COUNT = 2
REPEAT = 8  # each kept pair this many times in an epoch: about 7% of the training pairs
UNK = "<unk>"
PRONOUN_DE = {"我", "你", "他", "她", "我们", "你们", "他们", "谁"}  # the corpus writes 我的, 他们的 as one word


class Sentence(collections.namedtuple("Sentence", "id level english words zh glosses")):
    """One sentence of the package: `words` the English as the translators read it, `zh` its Chinese words,
    `glosses` each Chinese word's English gloss (lower case)."""


@functools.cache
def sentences() -> tuple[Sentence, ...]:
    """Every usable sentence of the package, once per English sentence, in the package's order."""
    hand_written = dataset.hand_written_sentences()
    kept, seen = [], set()
    for record in load_sentences():
        english = record["translation"]["en"]
        words = source_words(english)
        key = " ".join(words)
        if not words or english.startswith("placeholder") or key in hand_written or key in seen:
            continue
        seen.add(key)
        zh: list[str] = []
        glosses: list[str] = []
        for token in record["tokens"]:
            if token["word"] == "的" and zh and zh[-1] in PRONOUN_DE:
                zh[-1] += "的"
                continue
            zh.append(token["word"])
            glosses.append(token["gloss_en"].lower())
        kept.append(Sentence(record["id"], record["hsk_level"], english, tuple(words), tuple(zh), tuple(glosses)))
    return tuple(kept)


def is_held_out(sentence: Sentence) -> bool:
    digest = hashlib.sha256(" ".join(sentence.words).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") < HELD_OUT_SHARE * 2**32


def names(word: str) -> set[str]:
    """The English word and its lemma (walked: walk, by the dictionary's reading): what a gloss may name it by."""
    reading = mt_dictionary.lookup(word)
    return {word, reading.lemma} if reading else {word}


def naming(sentence: Sentence, word: str) -> list[int]:
    """The Chinese words whose gloss names the English word or its lemma (walked: walk), as whole words."""
    return [i for i, gloss in enumerate(sentence.glosses) if names(word) & set(re.findall(r"[a-z]+", gloss))]


def hide_rare(
    words: Sequence[str], chinese: Sequence[str], naming_rare: dict[int, list[int]], rare_zh: set[int]
) -> tuple[list[str], list[str]] | None:
    """The pair with each rare English word read as its typed <unk> and the one Chinese word that translates it
    written <unk> (`naming_rare`: each rare English word's position, in order -> the Chinese positions naming it);
    None when a rare English word has not exactly one such word left, or a rare Chinese word (positions `rare_zh`)
    is not hidden so (training on it would teach a known English word -> <unk>)."""
    hidden: dict[int, int] = {}  # English position -> the Chinese position that becomes <unk>
    for j, positions in naming_rare.items():
        named = [i for i in positions if i not in hidden.values()]
        if len(named) != 1:
            return None
        hidden[j] = named[0]
    if not rare_zh <= set(hidden.values()):
        return None
    en = [mt_dictionary.unknown_token(w) if j in hidden else w for j, w in enumerate(words)]
    zh = [UNK if i in hidden.values() else w for i, w in enumerate(chinese)]
    return en, zh


def training_pairs(corpus_train: list[dict]) -> list[dict]:
    """The kept training pairs, each once ({"en", "zh", "grammar": "real"}), read against the vocabulary of the
    grammars' training pairs (`corpus_train`): see the module's text."""
    corpus_en = {w for pair in corpus_train for w in pair["en"].split()}
    corpus_zh = {w for pair in corpus_train for w in pair["zh"].split()}
    train = [s for s in sentences() if not is_held_out(s)]
    en_count = collections.Counter(w for s in train for w in s.words)
    zh_count = collections.Counter(w for s in train for w in s.zh)
    pairs = []
    for s in train:
        rare_en = [j for j, w in enumerate(s.words) if w not in corpus_en and en_count[w] < MIN_COUNT]
        rare_zh = {i for i, w in enumerate(s.zh) if w not in corpus_zh and zh_count[w] < MIN_COUNT}
        kept = hide_rare(s.words, s.zh, {j: naming(s, s.words[j]) for j in rare_en}, rare_zh)
        if kept:
            pairs.append({"en": " ".join(kept[0]), "zh": " ".join(kept[1]), "grammar": "real"})
    return pairs


def is_suggestion(words: Sequence[str], j: int) -> bool:
    """Whether words[j] is the *let* of a suggestion (let's, let us, let me), not a permission (let him go)."""
    return words[j] == "let" and j + 1 < len(words) and words[j + 1] in ("'s", "us", "me")


def items(every: bool = False) -> list[everyday.Item]:
    """The held-out sentences (every one: `every`) as a hand-written set's items (everyday.Item), each English
    content word (mt_check.is_english_content) judged: right when the output has the reference's word for it (the
    Chinese word whose gloss names it, not one of the grammar's words such as 的) or a word the lexicon or the
    dictionary gives it (mt_check.counterparts, without what the corpus taught). A word with neither is not judged:
    a word in no dictionary that the reference says otherwise; a sentence with nothing to judge is left out. Nor is
    *let* before 's, us or me when no word of the reference names it: a suggestion (let's go: 我们 走 吧; let me
    introduce: 我 来 介绍), which Chinese writes with no word for *let*, where the dictionary's 让 would be wrong. The
    words are read as everyday.score reads them (everyday.judged_words): an -ing word read as its noun of its own (the
    meeting) is judged as the noun (会议, or the reference's 开会), not as the verb (见面)."""
    items = []
    for s in sentences():
        if not (every or is_held_out(s)):
            continue
        content = {}
        for j, word in enumerate(everyday.judged_words(s.english)):  # the meeting: the noun, as read
            if not mt_check.is_english_content(word):
                continue
            named = [s.zh[i] for i in naming(s, word) if s.zh[i] not in mt_check.GRAMMAR]
            if is_suggestion(s.words, j) and not named:
                continue
            alternatives = tuple(dict.fromkeys(named + sorted(mt_check.counterparts(word, with_taught=False))))
            if alternatives:
                content[word] = alternatives
        if content:
            items.append(everyday.Item(s.english, s.zh, content))
    return items


def checksum(pairs: list[dict]) -> str:
    """sha256 of the kept training pairs, as vocab.json records it beside the grammars' corpus."""
    lines = (json.dumps(p, ensure_ascii=False, separators=(",", ":")) + "\n" for p in pairs)
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--measure",
        nargs="*",
        choices=list(translator.MODELS),
        help="the held-out sentences through these committed translators (none: all three), as everyday.py does",
    )
    parser.add_argument("--level", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6], help="HSK levels measured")
    parser.add_argument("--every", action="store_true", help="every sentence, not the held-out tenth")
    args = parser.parse_args()
    if args.measure is not None:
        trained_on = "real_pairs_sha256" in json.loads(translator.DIRECTORY.joinpath(translator.VOCAB_FILE).read_text())
        if args.every and trained_on:
            parser.error("--every: the committed weights were trained on nine tenths of these sentences")
        levels = {s.english: s.level for s in sentences()}
        chosen = [item for item in items(args.every) if levels[item.en] in args.level]
        print(everyday.table([everyday.evaluate(name, chosen) for name in args.measure or translator.MODELS]))
        return
    every = sentences()
    held = [s for s in every if is_held_out(s)]
    pairs = training_pairs(dataset.generate()["train"])
    hidden = sum(UNK in p["zh"].split() for p in pairs)
    print(f"{len(load_sentences())} in the package, {len(every)} read, {len(held)} held out, {len(pairs)} kept for "
          f"training ({hidden} with a word hidden), sha256 {checksum(pairs)}")  # fmt: skip
    for pair in pairs[:: max(1, len(pairs) // 12)]:
        print(" ", pair["en"], "|", pair["zh"])


if __name__ == "__main__":
    main()
