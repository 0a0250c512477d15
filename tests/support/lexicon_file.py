"""lexicon.tsv read line by line, independently of app.engine.text.lexicon, for the tests that check it."""

from app.engine.text.lexicon import LEXICON_PATH


def lexicon_rows() -> list[tuple]:
    """(line number, en, zh, features) for every row; the header must be exactly en, zh, features."""
    rows, header = [], None
    for number, line in enumerate(LEXICON_PATH.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if header is None:
            header = line.split("\t")
            continue
        rows.append((number, *line.split("\t")))
    assert header == ["en", "zh", "features"]
    return rows
