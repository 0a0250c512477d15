"""The two hand-written sets of sentences with numbers typed in digits (tests/data/everyday_mt_digits*.jsonl) and
their counting (tools/translator/digits.py): well formed, not the corpus's, every number read as the page reads it."""

import pytest

from app.engine.models.translator import DEFAULT_BEAM, load, output_words, read_words, source_words, translate
from tools.translator import dataset
from tools.translator.digits import DIGITS2_PATH, DIGITS_PATH, numbers_kept, read_lines, spelled


@pytest.mark.parametrize("path", [DIGITS_PATH, DIGITS2_PATH])
def test_a_digits_set_is_thirty_well_formed_sentences_with_numbers(path):
    lines = read_lines(path)
    assert len(lines) == 30 and len({line.item.en for line in lines}) == 30
    generated = dataset.generate(sizes={"train": 1000, "val": 10, "test": 10})
    corpus = {pair["en"] for split in generated.values() for pair in split}
    for line in lines:
        typed = line.item.en.split()
        assert line.numbers and set(line.numbers) <= set(typed), line.item.en  # each number a word as typed
        assert all(typed.isdigit() and int(typed) < 100 for typed in line.numbers), line.item.en
        for alternatives in (*line.item.content.values(), *line.numbers.values()):
            assert alternatives[0] in line.item.zh, line.item.en  # the first is the reference's word
        words = source_words(line.item.en)
        assert set(line.item.content) <= set(words) and " ".join(words) not in corpus, line.item.en


def test_the_second_set_has_two_word_numbers_for_half_its_sentences():
    lines = read_lines(DIGITS2_PATH)
    two_words = [line for line in lines if any(20 < int(n) < 100 and int(n) % 10 for n in line.numbers)]
    assert len(two_words) == 16  # the page reads them as typed: digits
    assert all(any(n in source_words(line.item.en) for n in line.numbers) for line in two_words)


def test_a_number_is_kept_in_chinese_or_in_digits_alone_or_joined():
    lines = [line for line in read_lines(DIGITS_PATH) if len(line.numbers) == 1]
    line = next(line for line in lines if len(next(iter(line.numbers.values()))[0]) > 1)  # a number such as 二十四
    ((typed, chinese),) = line.numbers.items()
    assert numbers_kept(line, ["我", chinese[0], "个"]) == 1
    assert numbers_kept(line, ["我", typed, "个"]) == 1  # Chinese writes digits too
    assert numbers_kept(line, ["我", chinese[0][:-1], chinese[0][-1]]) == 1  # 二十 四 is 二十四
    assert numbers_kept(line, ["我", "个"]) == 0


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("I have twenty-one books", ["i", "have", "21", "books"]),
        ("There are Thirty five students", ["there", "are", "35", "students"]),
        ("ninety-nine", ["99"]),
        ("twenty books and forty-ten", ["twenty", "books", "and", "forty", "ten"]),  # a tens word alone; no unit
    ],
)
def test_a_number_of_two_words_is_read_in_digits_as_typed_digits_are(text, read):
    """The page reads 21 typed in digits as 21 (DIGITS: a number of two words stays digits); twenty-one, which the
    models read apart as twenty and one and wrote wrong (我 有 二十 的 书), is read the same way since."""
    assert read_words(text) == read
    assert source_words("I have twenty-one books") == ["i", "have", "twenty", "one", "books"]  # the training data's


def test_a_number_of_two_words_comes_out_in_digits():
    for name in ("rnnsearch", "transformer-mt"):
        result = translate(load(name), "I have twenty-one books", beam=DEFAULT_BEAM, candidates=True)
        assert "21" in output_words(result), name


def test_spelled_writes_each_two_word_number_in_words_with_a_hyphen():
    lines = read_lines(DIGITS2_PATH)
    respelled = spelled(lines)
    assert len(respelled) == 16  # the lines with a two-word number (see above)
    for line in respelled:
        assert not any(
            typed in line.item.en.split() for typed in line.numbers if 20 < int(typed) < 100 and int(typed) % 10
        )
        assert read_words(line.item.en) == source_words(next(o for o in lines if o.numbers == line.numbers).item.en)
