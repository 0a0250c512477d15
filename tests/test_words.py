"""Word-level units: pieces grouped into words, attention merged (Clark et al. 2019)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from app.engine.models import registry, words
from app.engine.models.base import PREFIX, SPECIAL, TEXT
from tests.support.examples import examples

# --------------------------------------------------------------------------- merging, by hand


def units_of(membership: list[int]) -> words.WordUnits:
    """WordUnits for a membership list like [0, 1, 1, 2] (labels and kinds do not matter here)."""
    m = max(membership) + 1
    return words.WordUnits(
        labels=[str(u) for u in range(m)],
        kinds=[TEXT] * m,
        offsets=[None] * m,
        pieces=[[i for i, u in enumerate(membership) if u == unit] for unit in range(m)],
        membership=np.array(membership),
    )


def test_merge_attention_by_hand():
    # pieces: [CLS] play ##ing [SEP]  -> units: [CLS] playing [SEP]
    w = np.array(
        [
            [0.1, 0.2, 0.3, 0.4],
            [0.5, 0.1, 0.1, 0.3],
            [0.0, 0.6, 0.2, 0.2],
            [0.25, 0.25, 0.25, 0.25],
        ]
    )
    merged = words.merge_attention(w, units_of([0, 1, 1, 2]))
    expected = np.array(
        [
            [0.1, 0.5, 0.4],  # to "playing" = 0.2 + 0.3
            [(0.5 + 0.0) / 2, (0.2 + 0.8) / 2, (0.3 + 0.2) / 2],  # from "playing" = mean of its two rows
            [0.25, 0.5, 0.25],
        ]
    )
    np.testing.assert_allclose(merged, expected, atol=1e-12)


def test_merge_vectors_and_scores_are_means():
    x = np.arange(8.0).reshape(4, 2)
    np.testing.assert_allclose(words.merge_vectors(x, units_of([0, 1, 1, 2])), [[0, 1], [3, 4], [6, 7]])
    s = np.arange(16.0).reshape(4, 4)
    merged = words.merge_scores(s, units_of([0, 0, 1, 1]))
    np.testing.assert_allclose(merged, [[(0 + 1 + 4 + 5) / 4, (2 + 3 + 6 + 7) / 4], [(8 + 9 + 12 + 13) / 4, 12.5]])


@st.composite
def attention_and_units(draw):
    n = draw(st.integers(1, 12))
    logits = draw(arrays(np.float64, (draw(st.integers(1, 3)), n, n), elements=st.floats(-8, 8)))
    weights = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    starts = sorted(draw(st.sets(st.integers(1, max(1, n - 1)), max_size=n - 1)) if n > 1 else [])
    membership = np.zeros(n, int)
    for start in starts:
        membership[start:] += 1
    return weights, membership.tolist()


@given(attention_and_units())
@settings(max_examples=examples(200), deadline=None)
def test_merged_rows_still_sum_to_one(case):
    weights, membership = case
    units = units_of(membership)
    merged = words.merge_attention(weights, units)
    assert merged.shape == (*weights.shape[:-2], units.n_units, units.n_units)
    assert np.all(merged >= 0)
    np.testing.assert_allclose(merged.sum(-1), 1.0, atol=1e-9)
    vectors = words.merge_vectors(weights, units)  # any (..., n, d) works; rows of means
    assert vectors.shape == (*weights.shape[:-2], units.n_units, weights.shape[-1])


@given(attention_and_units())
@settings(max_examples=examples(100), deadline=None)
def test_one_piece_per_word_changes_nothing(case):
    weights, _ = case
    n = weights.shape[-1]
    np.testing.assert_allclose(words.merge_attention(weights, units_of(list(range(n)))), weights, atol=1e-12)


# --------------------------------------------------------------------------- grouping real pieces


@pytest.fixture(scope="module", params=["minilm", "e5"])
def model(request):
    return registry.get_model(request.param)


def check_units(run, units):
    assert sorted(p for unit in units.pieces for p in unit) == list(range(len(run.tokens)))  # each piece once
    for u, pieces in enumerate(units.pieces):
        assert all(units.membership[p] == u for p in pieces)
        assert pieces == sorted(pieces) and pieces[-1] - pieces[0] == len(pieces) - 1  # contiguous
    assert units.kinds[0] == units.kinds[-1] == SPECIAL
    assert units.labels[0] == run.tokens[0] and units.labels[-1] == run.tokens[-1]
    merged = words.merge_attention(run.weights, units)
    np.testing.assert_allclose(merged.sum(-1), 1.0, atol=1e-5)
    assert words.merge_vectors(run.hidden, units).shape == (run.hidden.shape[0], units.n_units, run.hidden.shape[-1])


def text_labels(units):
    return [label for label, kind in zip(units.labels, units.kinds, strict=True) if kind == TEXT]


def test_english_words_join_their_pieces(model):
    run = model.run("The bank's river-side path, don't you think?")
    units = words.word_units(run)
    check_units(run, units)
    assert text_labels(units) == ["The", "bank's", "river-side", "path", ",", "don't", "you", "think", "?"]


def test_chinese_words_come_from_jieba(model):
    run = model.run("我们在河岸上散步。")
    units = words.word_units(run)
    check_units(run, units)
    if model.name == "e5":  # its piece "我们在" spans jieba's 我们 and 在: a unit never splits a piece
        assert text_labels(units) == ["我们在", "河岸", "上", "散步", "。"]
    else:
        assert text_labels(units) == ["我们", "在", "河岸", "上", "散步", "。"]


def test_mixed_sentence(model):
    run = model.run("I love 北京 very much")
    units = words.word_units(run)
    check_units(run, units)
    assert text_labels(units) == ["I", "love", "北京", "very", "much"]
    assert all(off is not None for off, kind in zip(units.offsets, units.kinds, strict=True) if kind == TEXT)


def test_e5_prefix_is_one_unit_and_a_piece_spanning_two_words_joins_them():
    run = registry.get_model("e5").run("汤姆追逐杰瑞!!")
    units = words.word_units(run)
    check_units(run, units)
    assert units.labels[1] == "passage:" and units.kinds[1] == PREFIX
    assert [run.tokens[p] for p in units.pieces[1]] == ["▁passage", ":", "▁"]
    assert text_labels(units) == ["汤姆", "追逐", "杰瑞", "!!"]  # one piece "!!" covers two marks


def test_trailing_and_only_spaces(model):
    run = model.run("hi   ")
    check_units(run, words.word_units(run))
    empty = model.run("   ")
    check_units(empty, words.word_units(empty))


def test_punctuation_masks(model):
    run = model.run("Yes, 好。")
    mask = words.punctuation_mask(run)
    covered = [run.text[s:e] for s, e in (span or (0, 0) for span in run.offsets)]
    assert [c for c, is_p in zip(covered, mask, strict=True) if is_p and c] == [",", "。"]
    assert not mask[0] and not mask[-1]
    units = words.word_units(run)
    assert text_labels(units) == ["Yes", ",", "好", "。"]
    unit_mask = words.unit_punctuation_mask(units)
    assert [label for label, p in zip(units.labels, unit_mask, strict=True) if p] == [",", "。"]
    assert words.is_punctuation("！？") and not words.is_punctuation("a.") and not words.is_punctuation(" ")
