"""The trained translators on sentences with numbers typed in digits (tests/data/everyday_mt_digits.jsonl, _digits2).

    python -m tools.translator.digits                                           # the first set, the three models
    python -m tools.translator.digits --set tests/data/everyday_mt_digits2.jsonl
    python -m tools.translator.digits --spelled    # its two-word numbers spelled with a hyphen: twenty-four

Each line is a hand-written set's line (everyday.py) with one more field, ``numbers``: each number of the sentence as
typed (3, 24) -> its Chinese, alternatives after "|" (两|二). Two figures a model, decoded as the page does:

    content right   sentences whose every content word (not the numbers) is translated, as everyday.score judges
    numbers kept    numbers whose Chinese or whose digits are in the output, alone or joined with a neighbour
                    (二十 四 is 二十四), as everyday.score joins: digits count too, since Chinese writes them

How the translators read digits: translator.source_words (a number English writes as one word is read in words).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
from pathlib import Path
from typing import NamedTuple

from app.engine.models import mt_check, translator
from tools.translator.everyday import SET_PATH, Item, score

DIGITS_PATH = SET_PATH.with_name("everyday_mt_digits.jsonl")
DIGITS2_PATH = SET_PATH.with_name("everyday_mt_digits2.jsonl")


class Line(NamedTuple):
    item: Item
    numbers: dict[str, tuple[str, ...]]  # as typed -> its Chinese alternatives


class Report(NamedTuple):
    model: str
    sentences: int
    content_right: int
    numbers: int
    numbers_kept: int


def read_lines(path: Path = DIGITS_PATH) -> list[Line]:
    lines = []
    for text in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(text)
        content = {word: tuple(alternatives.split("|")) for word, alternatives in row["content"].items()}
        numbers = {typed: tuple(alternatives.split("|")) for typed, alternatives in row["numbers"].items()}
        lines.append(Line(Item(row["en"], tuple(row["zh"].split()), content), numbers))
    return lines


def numbers_kept(line: Line, output: list[str]) -> int:
    """How many of the line's numbers the output has, in Chinese or in digits, alone or joined with a neighbour."""
    forms = set(output) | {output[i] + output[i + 1] for i in range(len(output) - 1)}
    return sum(1 for typed, chinese in line.numbers.items() if forms & {typed, *chinese})


def spelled(lines: list[Line]) -> list[Line]:
    """The lines with a number of two words (21-99 but the tens), each such number written in words with a hyphen
    (24 -> twenty-four), as some teachers type it: the lines that have one."""
    found = []
    for line in lines:
        en = line.item.en
        for typed in line.numbers:
            tens, ones = divmod(int(typed), 10)
            if 2 <= tens <= 9 and ones:
                en = re.sub(rf"\b{typed}\b", f"{translator.TENS[tens]}-{translator.ONES[ones]}", en)
        if en != line.item.en:
            found.append(Line(dataclasses.replace(line.item, en=en), line.numbers))
    return found


def evaluate(name: str, lines: list[Line]) -> Report:
    model = translator.load(name)
    content_words = mt_check.content_words()
    right = kept = 0
    for line in lines:
        result = translator.translate(model, line.item.en, beam=translator.DEFAULT_BEAM, candidates=True)
        output = translator.output_words(result)
        right += score(line.item, output, model.vocabulary.knows, content_words).content_right
        kept += numbers_kept(line, output)
    return Report(name, len(lines), right, sum(len(line.numbers) for line in lines), kept)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=DIGITS_PATH, help=f"the sentences (also: {DIGITS2_PATH.name})")
    parser.add_argument("--models", nargs="+", default=list(translator.MODELS), choices=list(translator.MODELS))
    parser.add_argument("--spelled", action="store_true", help="only the lines with a number of two words, spelled "
                        "with a hyphen (24 -> twenty-four); read_words reads it in digits again")  # fmt: skip
    args = parser.parse_args(argv)
    lines = spelled(read_lines(args.set)) if args.spelled else read_lines(args.set)
    print("| model | sentences | every content word right | numbers kept |")
    print("|---|---|---|---|")
    for report in (evaluate(name, lines) for name in args.models):
        print(f"| {report.model} | {report.sentences} | {report.content_right} | "
              f"{report.numbers_kept} of {report.numbers} |")  # fmt: skip


if __name__ == "__main__":
    main()
