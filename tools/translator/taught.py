"""What the corpus teaches beyond the dictionary: app/engine/models/mt/taught.tsv.

    python -m tools.translator.taught           # writes the file from the pinned corpus's training split

The translation check (app/engine/models/mt_check.py) asks whether each Chinese word translates an English word of
the sentence by the dictionary. The grammars also write Chinese no dictionary gives the English word: "it rained"
-> 下雨 (rained: 下雨), "showed her a map" -> 给 她 看 (show: 看), "every morning" -> 每 天 早上 (every: 天),
"last night" -> 昨天 晚上, "a glass of water" -> 一 杯 水 (glass: 杯), "went home" -> 回 家 (go: 回). Each such
(English word, Chinese word) link of the training split's gold alignments is a row (the rules: carriers and
taught_links), by the English word's lemma where the dictionary knows the word (showed, shows: show; every form is
then taught), with the number of links: what the translators were taught, so the check does not call it made up, nor
the English word left out. The Chinese content words among them are also candidates for the decoder
(mt_check.allowed_content), so a function word never teaches one (the to of go to -> 去 teaches nothing).

A link the corpus only ever wrote beside other English words (last -> 昨天 only in *last night*, on -> 走路 only in
*on foot*) is taught beside them: the ``with`` column lists the lemmas of the other English words its Chinese word
was aligned with, and the check accepts it only in a sentence that has one of them (last summer -> 昨天 is made up);
"-" when the link was also written alone (rained -> 下雨), or beside more than MAX_BESIDE different words: then what
it needs beside it is a kind of word, not a phrase (ever -> 过 beside any participle: has he ever <unk:verb-ed>).
Likewise a link the corpus only ever wrote right before one or two words (go -> 回 only in *go home*, what -> 几
only in *what time*, glass -> 杯 only in *a glass of*) is a phrase's: the ``before`` column lists those words' lemmas,
and the check accepts it only where one of them follows (go by bus -> 回 leaves go out); "-" when the link was also
written last in a sentence, or before more than MAX_BEFORE different words (since -> 开始 before any time word).
tests/test_translator_figures.py writes the file again and compares it byte for byte.
"""

from __future__ import annotations

import collections
import functools

from app.engine.models import mt_check, mt_dictionary
from tools.translator import dataset

HEADER = (
    "# What the translators' corpus aligns an English word with beyond the dictionary and the lexicon: written by\n"
    "# `python -m tools.translator.taught` from the training split's gold alignments, do not edit. pairs: links;\n"
    "# with: the English lemmas it was only ever written beside (one must be in the sentence), or - (alone too);\n"
    "# before: the lemmas it was only ever written right before (one must follow the word), or - (anywhere).\n"
)


MAX_BESIDE = 8  # a link taught beside more different words than this is taught as if alone (see above)
MAX_BEFORE = 2  # a link taught right before more different words than this is taught as if anywhere (see above)


@functools.cache
def lemma(word: str) -> str:
    """The dictionary's lemma of the word (showed: show), so that every form of it is taught (shows -> 看); a word
    the dictionary lacks stays as it is (rained: the dictionary knows rain only as a noun)."""
    reading = mt_dictionary.lookup(word)
    return reading.lemma if reading else word


@functools.cache
def is_content(word: str) -> bool:
    """mt_check.is_english_content, kept per word (the corpus asks it about a million times)."""
    return mt_check.is_english_content(word)


def known(word: str) -> frozenset[str]:
    """The Chinese the lexicon and the dictionary give the word (what the corpus need not teach; counterparts keeps
    it per word)."""
    return mt_check.counterparts(word, with_taught=False)


def carriers(english: list[str], chinese: str, sources: list[int]) -> list[int]:
    """Of the English words ``chinese`` is aligned with, those it teaches. A function word such as to or of is in
    most sentences: it must not make a content word a candidate by riding along. So when one of the words translates
    it by the dictionary, only the content words (river of river bank -> 河岸, which bank carries); the to of go to
    -> 去 learns nothing. When only function words share it, the first (next of next to -> 旁边). Else all (on and
    foot of on foot -> 走路)."""
    content = [j for j in sources if is_content(english[j])]
    if any(chinese in known(english[j]) for j in sources):
        return content
    if len(sources) > 1 and not content:
        return sorted(sources)[:1]
    return list(sources)


class Link:
    """How often the corpus links an English lemma to a Chinese word, beside which other English lemmas, and right
    before which."""

    __slots__ = ("pairs", "alone", "beside", "last", "before")

    def __init__(self):
        self.pairs = 0
        self.alone = False  # written at least once with no other English word aligned to the Chinese one
        self.beside: set[str] = set()  # the lemmas of the other English words aligned with it, otherwise
        self.last = False  # written at least once as the sentence's last English word
        self.before: set[str] = set()  # the lemmas of the English words right after it, otherwise

    def add(self, companions: set[str]) -> None:
        self.pairs += 1
        self.alone = self.alone or not companions
        self.beside |= companions

    def place(self, following: str | None) -> None:
        """Where the corpus wrote the link once: before the English lemma ``following``, or last (None)."""
        self.last = self.last or following is None
        self.before |= set() if following is None else {following}


def taught_links(train: list[dict]) -> dict[tuple[str, str], Link]:
    """(English word, Chinese word) -> gold links in ``train`` where the dictionary does not give it: to a Chinese
    content word; or to a word that is neither content nor grammar (a measure word, 回, 几) when it is all a word the
    check weighs (mt_check.must_translate) is aligned with beyond the dictionary (a glass of -> 一 杯, went home ->
    回 家, how old -> 几 岁; not the 只 of 一 只 猫: 猫 translates it; nor the 个 of 三 个: 三 translates three).
    Where a link was written is read from every gold link of the pair, taught or not (what is tom's name -> 汤姆 叫
    什么 名字 links name to 叫 last in the sentence, though 名字 translates it there)."""
    links: dict[tuple[str, str], Link] = collections.defaultdict(Link)
    content = mt_check.content_words()
    phrasal = mt_dictionary.load().phrasal
    particles = {particle for _, particle in phrasal}
    placed: dict[tuple[str, str], set[str | None]] = collections.defaultdict(set)  # (English lemma, Chinese word)
    # -> the lemmas right after the English word wherever the gold alignments link them (None: the last word)
    for pair in train:
        english, chinese = pair["en"].split(), pair["zh"].split()
        following = [*(lemma(word) for word in english[1:]), None]  # (n_english,) the next word's lemma
        aligned: dict[int, list[tuple[str, set[str]]]] = collections.defaultdict(list)  # English position ->
        # (its Chinese word, the lemmas of the other English words aligned with that Chinese word)
        by_dictionary: list[set[int]] = [set() for _ in english]  # (n_english,) for each English word, the Chinese
        # positions translating it by the dictionary
        for i, sources in enumerate(pair["align"]):
            for j in sources:
                if chinese[i] in known(english[j]):
                    by_dictionary[j].add(i)
        for i, sources in enumerate(pair["align"]):
            if chinese[i] in mt_check.GRAMMAR:
                continue
            for j in sources:
                placed[lemma(english[j]), chinese[i]].add(following[j])
            together = sources
            # breakfast of before breakfast -> 早饭 前 (both aligned to both): 早饭 translates it, so 前 is before's
            sources = [j for j in sources if not (is_content(english[j]) and by_dictionary[j] - {i})]
            for j in carriers(english, chinese[i], sources):
                after_verb = j > 0 and english[j] in particles
                if after_verb and phrasal.get((lemma(english[j - 1]), english[j])) == chinese[i]:
                    continue  # the up of get up -> 起床: the verb's (the dictionary's phrasal verb), not the particle's
                aligned[j].append((chinese[i], {lemma(english[k]) for k in together if k != j}))
        for j, words in aligned.items():
            translated = by_dictionary[j] or any(zh in content or zh == "<unk>" for zh, _ in words)  # 一 支 笔, 三 个
            alone = mt_check.must_translate(english, j) and not translated
            for zh, companions in words:
                if (zh in content or alone) and zh not in known(english[j]):
                    links[lemma(english[j]), zh].add(companions)
    for key, link in links.items():
        for after in placed[key]:
            link.place(after)
    return links


def beside(link: Link) -> str:
    """The ``with`` column: "-", or the lemmas the link was only ever taught beside."""
    return "-" if link.alone or len(link.beside) > MAX_BESIDE else " ".join(sorted(link.beside))


def before(link: Link) -> str:
    """The ``before`` column: "-", or the lemmas the link was only ever taught right before."""
    return "-" if link.last or len(link.before) > MAX_BEFORE else " ".join(sorted(link.before))


def render(links: dict[tuple[str, str], Link]) -> str:
    rows = sorted(links.items(), key=lambda item: (-item[1].pairs, item[0]))
    lines = [f"{en}\t{zh}\t{link.pairs}\t{beside(link)}\t{before(link)}\n" for (en, zh), link in rows]
    return HEADER + "\t".join(mt_check.TAUGHT_COLUMNS) + "\n" + "".join(lines)


def main() -> None:
    links = taught_links(dataset.generate()["train"])
    mt_check.TAUGHT_PATH.write_text(render(links), encoding="utf-8")
    print(f"wrote {mt_check.TAUGHT_PATH} ({len(links)} rows)")


if __name__ == "__main__":
    main()
