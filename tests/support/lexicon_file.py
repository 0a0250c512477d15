"""lexicon.tsv read line by line, independently of app.engine.text.lexicon, for the tests that check it."""

from app.engine.text.lexicon import LEXICON_PATH


def lexicon_rows() -> list[tuple]:
    """(line number, en, zh, features) for every row; the header must be exactly en, zh, role, features."""
    rows, header = [], None
    for number, line in enumerate(LEXICON_PATH.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if header is None:
            header = line.split("\t")
            continue
        en, zh, _role, features = line.split("\t")
        rows.append((number, en, zh, features))
    assert header == ["en", "zh", "role", "features"]
    return rows


def lexicon_roles() -> list[tuple]:
    """(line number, en, zh, role) for every row."""
    rows = []
    for number, line in enumerate(LEXICON_PATH.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip() and not line.startswith("#") and not line.startswith("en\t"):
            en, zh, role, _features = line.split("\t")
            rows.append((number, en, zh, role))
    return rows
