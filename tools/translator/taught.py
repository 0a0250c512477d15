"""What the corpus teaches beyond the dictionary: app/engine/models/mt/taught.tsv.

    python -m tools.translator.taught           # writes the file from the pinned corpus's training split

The translation check (app/engine/models/mt_check.py) asks whether each Chinese word translates an English word of
the sentence by the dictionary. The grammars also write Chinese no dictionary gives the English word: "it rained"
-> 下雨 (rained: 下雨), "showed her a map" -> 给 她 看 (show: 看), "every morning" -> 每 天 早上 (every: 天),
"last night" -> 昨天 晚上. Each such (English word, Chinese content word) link of the training split's gold
alignments is a row, by the English word's lemma where the dictionary knows the word (showed, shows: show; every
form is then taught), with the number of links: what the translators were taught, so the check does not call it
made up. tests/test_translator_figures.py writes the file again and compares it byte for byte.
"""

from __future__ import annotations

import collections

from app.engine.models import mt_check, mt_dictionary
from tools.translator import dataset

HEADER = (
    "# What the translators' corpus aligns an English word with beyond the dictionary and the lexicon: written by\n"
    "# `python -m tools.translator.taught` from the training split's gold alignments, do not edit. pairs: links.\n"
)


def lemma(word: str) -> str:
    """The dictionary's lemma of the word (showed: show), so that every form of it is taught (shows -> 看); a word
    the dictionary lacks stays as it is (rained: the dictionary knows rain only as a noun)."""
    reading = mt_dictionary.lookup(word)
    return reading.lemma if reading else word


def taught_links(train: list[dict]) -> collections.Counter:
    """(English word, Chinese content word) -> gold links in ``train`` where the dictionary does not give it."""
    links: collections.Counter = collections.Counter()
    content = mt_check.content_words()
    phrasal = mt_dictionary.load().phrasal
    particles = {particle for _, particle in phrasal}
    for pair in train:
        english, chinese = pair["en"].split(), pair["zh"].split()
        for i, sources in enumerate(pair["align"]):
            for j in sources:
                after_verb = j > 0 and english[j] in particles
                if after_verb and phrasal.get((lemma(english[j - 1]), english[j])) == chinese[i]:
                    continue  # the up of get up -> 起床: the verb's (the dictionary's phrasal verb), not the particle's
                if chinese[i] in content and chinese[i] not in mt_check.counterparts(english[j], with_taught=False):
                    links[lemma(english[j]), chinese[i]] += 1
    return links


def render(links: collections.Counter) -> str:
    rows = sorted(links.items(), key=lambda item: (-item[1], item[0]))
    return HEADER + "\t".join(mt_check.TAUGHT_COLUMNS) + "\n" + "".join(f"{en}\t{zh}\t{n}\n" for (en, zh), n in rows)


def main() -> None:
    text = render(taught_links(dataset.generate()["train"]))
    mt_check.TAUGHT_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {mt_check.TAUGHT_PATH} ({text.count(chr(10)) - 3} rows)")


if __name__ == "__main__":
    main()
