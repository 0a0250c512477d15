"""Text to vectors: the tokenizer, the curated lexicon, hashed and positional vectors."""

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.engine.text.embed import LEXICON_DIM, MEANING_DIM, embed_tokens, hashed_vector, sinusoidal_positions
from app.engine.text.lexicon import FEATURES, LEXICON_PATH, ROLES, inflection_candidates, load_lexicon
from app.engine.text.tokenize import WholeFileMarshal, tokenize
from tests.support.lexicon_file import lexicon_rows

ROOT = Path(__file__).resolve().parents[1]


def texts(sentence):
    return [token.text for token in tokenize(sentence)]


# ---------------------------------------------------------------------------
# Tokenizer
# ---------------------------------------------------------------------------


def test_english_words_and_punctuation():
    assert texts("Tom chased Jerry.") == ["Tom", "chased", "Jerry", "."]
    assert texts("Hello, World! It's well-known.") == ["Hello", ",", "World", "!", "It's", "well-known", "."]
    assert texts("  walk   by river\tbank \n") == ["walk", "by", "river", "bank"]


def test_original_spelling_is_kept_and_the_key_is_lower_case():
    tokens = tokenize("The RIVER Bank")
    assert [t.text for t in tokens] == ["The", "RIVER", "Bank"]
    assert [t.key for t in tokens] == ["the", "river", "bank"]


def test_chinese_with_spaces_keeps_the_users_tokens():
    assert texts("汤姆 追逐 杰瑞") == ["汤姆", "追逐", "杰瑞"]


def test_chinese_without_spaces_is_segmented_by_jieba():
    assert texts("汤姆追逐杰瑞") == ["汤姆", "追逐", "杰瑞"]


def test_jiebas_cache_file_reads_back_as_marshal_reads_it(tmp_path):
    """The segmenter's jieba reads its dictionary's cache file with WholeFileMarshal: the same objects."""
    path = tmp_path / "jieba.cache"
    prefixes = ({"银行": 3, "银": 0, "汤姆": 12, "a\u0000b": 1}, 16)  # (FREQ, total), as jieba dumps them
    with path.open("wb") as file:
        WholeFileMarshal.dump(prefixes, file)
    with path.open("rb") as file:
        assert WholeFileMarshal.load(file) == prefixes
    with path.open("rb") as file:
        assert marshal.load(file) == prefixes


def test_mixed_english_and_chinese():
    assert texts("I love 北京") == ["I", "love", "北京"]
    assert texts("Tom 追逐 Jerry") == ["Tom", "追逐", "Jerry"]


def test_punctuation_is_a_function_token_not_unknown():
    x, unknown = embed_tokens(tokenize("river , bank"))
    assert unknown == []
    assert x[1, FEATURES.index("function")] == 4.0  # the one feature, at the vector length √16
    assert np.count_nonzero(x[1]) == 1


# ---------------------------------------------------------------------------
# The lexicon file
# ---------------------------------------------------------------------------

ALLOWED_WEIGHTS = {"0.25", "0.5", "0.75"}


def test_the_sixteen_features_and_eight_roles():
    assert len(FEATURES) == 16 == MEANING_DIM and len(ROLES) == 8 and LEXICON_DIM == 24
    assert len(set(FEATURES)) == 16 and not set(FEATURES) & set(ROLES)
    assert {"person", "animal", "motion", "water", "money", "place"} <= set(FEATURES)
    # the file documents the same names in the same order
    declared = next(
        line for line in LEXICON_PATH.read_text(encoding="utf-8").splitlines() if line.startswith("# Features")
    )
    assert declared.split(":", 1)[1].split() == list(FEATURES)


def test_every_lexicon_row_is_valid():
    rows = lexicon_rows()
    problems = []
    for row in rows:
        if len(row) != 4:
            problems.append(f"line {row[0]}: {len(row) - 1} columns")
            continue
        number, en, zh, features = row
        if not en or en != en.strip() or en != en.lower():
            problems.append(f"line {number}: English word {en!r} is not lower-case and trimmed")
        if not zh.strip() or any(not word.strip() for word in zh.split("|")):
            problems.append(f"line {number}: empty Chinese alternative in {zh!r}")
        items = features.split()
        names = [item.partition(":")[0] for item in items]
        if not 1 <= len(items) <= 4:
            problems.append(f"line {number}: {len(items)} features (1 to 4 allowed)")
        if len(set(names)) != len(names) or not set(names) <= set(FEATURES):
            problems.append(f"line {number}: bad feature names {names}")
        for item in items:
            _, colon, weight = item.partition(":")
            if colon and weight not in ALLOWED_WEIGHTS:
                problems.append(f"line {number}: weight {weight!r}")
    assert problems == []


def test_lexicon_covers_at_least_300_english_words_and_their_chinese():
    rows = lexicon_rows()
    english = {row[1] for row in rows} - {"-"}  # "-": a Chinese word with no one-word English counterpart
    assert len(english) >= 300
    lexicon = load_lexicon()
    assert lexicon.english_words == english
    chinese = {word for row in rows for word in row[2].split("|") if word != "-"}
    assert lexicon.chinese_words == chinese
    assert len(chinese) >= 300


def test_sense_vectors():
    lexicon = load_lexicon()
    water, money = FEATURES.index("water"), FEATURES.index("money")
    # "bank" is half money bank, half river bank; 银行 and 河岸 are one sense each
    assert lexicon.lookup("bank")[water] == 0.375 and lexicon.lookup("bank")[money] == 0.5  # (0.75 + 0) / 2
    assert lexicon.lookup("银行")[money] == 1.0 and lexicon.lookup("银行")[water] == 0.0
    assert lexicon.lookup("河岸")[water] == 0.75
    # its two meanings, each with its Chinese word, for reading it in a sentence (read_in_context)
    assert [chinese for _, chinese in lexicon.sense_vectors["bank"]] == ["银行", "河岸"]
    assert "miss" not in lexicon.sense_vectors  # to miss (a verb) and Miss (a noun): the role decides
    # a Chinese word gets exactly its English counterpart's vector
    np.testing.assert_array_equal(lexicon.lookup("汤姆"), lexicon.lookup("tom"))
    np.testing.assert_array_equal(lexicon.lookup("杰瑞"), lexicon.lookup("jerry"))
    assert not np.array_equal(lexicon.lookup("tom"), lexicon.lookup("jerry"))


# ---------------------------------------------------------------------------
# Inflections
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("word, base", [("chased", "chase"), ("rivers", "river"), ("cats", "cat"), ("stopped", "stop")])
def test_inflection_fallback(word, base):
    lexicon = load_lexicon()
    assert word not in lexicon.vectors  # the fallback is what finds it
    assert base in list(inflection_candidates(word))
    np.testing.assert_array_equal(lexicon.lookup(word), lexicon.lookup(base))


def test_inflected_word_is_not_unknown():
    x, unknown = embed_tokens(tokenize("Tom chased Jerry"))
    assert unknown == []
    chase = load_lexicon().lookup("chase")
    np.testing.assert_allclose(x[1, :16], chase / np.linalg.norm(chase) * 4.0, rtol=1e-12)  # same direction, length √16
    np.testing.assert_array_equal(x[1, 16:], np.eye(8)[ROLES.index("verb")])  # the role of chase: a verb


def test_unknown_words_get_hashed_vectors_and_are_listed_once_in_original_spelling():
    x, unknown = embed_tokens(tokenize("the Zorblax met a Zorblax near the qwxjv bank"))
    assert unknown == ["Zorblax", "qwxjv"]  # in order, as written, the repeated word once
    np.testing.assert_allclose(x[1, :16], hashed_vector("zorblax", MEANING_DIM) * 4.0, rtol=1e-12)
    np.testing.assert_array_equal(x[1, 16:], np.eye(8)[ROLES.index("noun")])  # no rule fits: taken for a noun
    np.testing.assert_array_equal(x[1], x[4])
    assert load_lexicon().lookup("zorblax") is None


# ---------------------------------------------------------------------------
# Hashed and positional vectors
# ---------------------------------------------------------------------------


def test_hashed_vectors_are_unit_length_and_distinct():
    a, b = hashed_vector("river", 32), hashed_vector("bank", 32)
    assert a.shape == (32,)
    assert abs(np.linalg.norm(a) - 1.0) < 1e-12
    assert not np.allclose(a, b)
    np.testing.assert_array_equal(hashed_vector("river", 32), a)
    # wider vectors than one sha256 digest supplies (64 values need 128 bytes)
    wide = hashed_vector("river", 64)
    assert wide.shape == (64,) and len(np.unique(wide)) > 60


CHILD = """
import json
from app.engine.text.embed import embed_tokens, hashed_vector
from app.engine.text.tokenize import tokenize
x, unknown = embed_tokens(tokenize("walk by the qwxjv river"), embedding="lexicon")
h, _ = embed_tokens(tokenize("walk by the qwxjv river"), embedding="hash", dim=24)
print(json.dumps({"hashed": hashed_vector("zorblax", 40).tolist(),
                  "lexicon": x.tolist(), "hash": h.tolist(), "unknown": unknown}))
"""


def child_vectors(hashseed):
    env = {**os.environ, "PYTHONHASHSEED": str(hashseed), "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # two child processes import the engine
def test_hashed_vectors_are_the_same_in_every_process():
    first, second = child_vectors(1), child_vectors(987654)
    assert first == second
    # and equal to this process's
    assert first["hashed"] == hashed_vector("zorblax", 40).tolist()
    assert first["unknown"] == ["qwxjv"]


def test_hash_embedding_hashes_every_word():
    tokens = tokenize("river bank")
    x, unknown = embed_tokens(tokens, embedding="hash", dim=8)
    assert x.shape == (2, 8)
    np.testing.assert_allclose(x[0], hashed_vector("river", 8) * np.sqrt(8), rtol=1e-12)
    assert unknown == []  # the baseline has no lexicon to miss


def test_positional_encodings_are_appended():
    tokens = tokenize("walk by river bank")
    plain, _ = embed_tokens(tokens)
    with_positions, _ = embed_tokens(tokens, positional=True)
    np.testing.assert_array_equal(with_positions[:, :24], plain)
    added = with_positions[:, 24:]
    # PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(p / 10000^(2i/d)), d = 16
    assert added.shape == (4, 16)
    np.testing.assert_allclose(added[0], [0, 1] * 8, atol=1e-15)  # position 0: sin 0 = 0, cos 0 = 1
    np.testing.assert_allclose(added[1, :2], [np.sin(1.0), np.cos(1.0)], rtol=1e-12)
    np.testing.assert_allclose(
        added[2, 2:4], [np.sin(2 / 10000 ** (2 / 16)), np.cos(2 / 10000 ** (2 / 16))], rtol=1e-12
    )
    np.testing.assert_allclose(added, sinusoidal_positions(4, 16), rtol=1e-12, atol=1e-15)
