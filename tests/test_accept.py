"""Accept-Encoding and Accept-Language are read by one parser (app.web.headers.accepted, Werkzeug's): the same
edge cases give one behaviour, seen through both headers' choices (the coding sent, the page's language)."""

import pytest

from app.web.compression import choose_encoding
from app.web.headers import accepted, pick_language

# A header with NAME standing for the coding (gzip) or the language (zh), and the q NAME gets; None: not named
# (the item is ignored).
CASES = [
    ("NAME", 1.0),
    ("NAME;q=0.5", 0.5),
    ("  NAME ;  q=0.5 ,  other ", 0.5),  # spaces around ";" and ","
    ("other,NAME;q=0.5", 0.5),
    ("NAME;q=0", 0.0),  # "not this one"
    ("NAME;q=0.000", 0.0),
    ("NAME;q=1.000", 1.0),
    ("NAME;q=0.001", 0.001),
    ("NAME;Q=0.5", 0.5),  # the parameter's name in any case
    ("NAME;q=abc", None),  # an invalid q: the item is ignored
    ("NAME;q=1.5", None),
    ("NAME;q=-1", None),
    ("NAME;q=.5", None),
    ("NAME;q=nan", None),
    ("NAME;q=1e999", None),
    ("NAME;q = 0", 1.0),  # spaces around "=": not a q parameter
    ("NAME;q=0.2, NAME;q=0.7", 0.7),  # named twice: the highest q
    ("NAME;level=1;q=0", 0.0),  # a parameter neither header defines is not part of the name
]
IDS = [header for header, _ in CASES]


@pytest.mark.parametrize("header, q", CASES, ids=IDS)
@pytest.mark.parametrize("name", ["gzip", "zh", "GZIP", "zh-CN"])
def test_the_parser_reads_every_edge_case_one_way(header, q, name):
    assert accepted(header.replace("NAME", name)).get(name.lower()) == q


@pytest.mark.parametrize("header, q", CASES, ids=IDS)
def test_accept_encoding_and_accept_language_choose_alike(header, q):
    wanted = q is not None and q > 0
    assert choose_encoding(header.replace("NAME", "gzip"), ["gzip"]) == ("gzip" if wanted else "identity")
    assert pick_language(None, header.replace("NAME", "zh")) == ("zh" if wanted else "en")
    assert pick_language(None, header.replace("NAME", "zh-Hant-TW")) == ("zh" if wanted else "en")


def test_the_wildcard():
    """`*` gives its q to every coding not named; it names no language, so the page's language stays the default."""
    assert accepted("*;q=0.3") == {"*": 0.3}
    assert choose_encoding("*;q=0.3", ["gzip"]) == "gzip" and choose_encoding("gzip;q=0, *", ["gzip"]) == "identity"
    assert pick_language(None, "*") == "en" and pick_language(None, "*, zh;q=0.5") == "zh"


def test_the_most_wanted_first_and_a_tie_in_the_headers_order():
    assert list(accepted("a;q=0.5, *, b, c;q=0.9, d;q=0.5")) == ["b", "c", "a", "d", "*"]
    assert pick_language(None, "en;q=0.5, zh;q=0.5") == "en" and pick_language(None, "zh;q=0.5, en;q=0.5") == "zh"
    assert pick_language(None, "en;q=0.5, fr, zh-TW;q=0.8") == "zh"
