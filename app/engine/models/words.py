"""From word pieces to words: which pieces make a word, and attention between words.

A model reads word pieces ("▁bank", "##s", "银行", "<s>"); people read words. ``word_units(run)``
groups a run's pieces into units:

* each special token (``[CLS]``, ``</s>``, ...) is a unit of its own;
* the pieces of e5's "passage: " prefix together are one unit;
* the pieces of the user's sentence are grouped by the words of the sentence: Chinese words by
  jieba (``app.engine.text.tokenize.word_spans``, the segmenter the toy engine uses), other
  scripts by spaces and punctuation (each punctuation mark is a word). A piece that spans two
  words joins them into one unit (a unit never splits a piece). A piece of only a space (e5's
  "▁" before a Chinese word) belongs to the word after it.

Merging an (n_pieces, n_pieces) attention matrix into (n_units, n_units) follows Clark et al. 2019
("What Does BERT Look At?", section 4.1): attention TO a word is the SUM of the attention to its
pieces, attention FROM a word is the MEAN over its pieces, so every row still sums to 1.
With G the (n_pieces, n_units) 0/1 membership matrix and c_u the number of pieces of unit u:

    W_words = diag(1 / c) G^T W G

Vectors (q, k, v, context, hidden states) of a word are the mean of its pieces' vectors:
diag(1 / c) G^T X. Scores (before the softmax) are averaged over both words' pieces,
diag(1 / c) G^T S G diag(1 / c); word-level weights are NOT the softmax of word-level scores.
"""

from __future__ import annotations

import bisect
import unicodedata
from dataclasses import dataclass

import numpy as np

from app.engine.text.tokenize import word_spans

from .base import PREFIX, SPECIAL, TEXT, ModelRun


@dataclass(frozen=True)
class WordUnits:
    labels: list[str]  # per unit: the word as the user wrote it, the special token, or the prefix ("passage:")
    kinds: list[str]  # per unit: "special", "prefix" or "text"
    offsets: list[tuple[int, int] | None]  # per unit: characters of the user's sentence (None if not "text")
    pieces: list[list[int]]  # per unit: the indices of its pieces, in order
    membership: np.ndarray  # (n_pieces,) the unit of each piece

    @property
    def n_units(self) -> int:
        return len(self.labels)

    def matrix(self) -> np.ndarray:
        """G: (n_pieces, n_units), G[i, u] = 1 if piece i belongs to unit u."""
        g = np.zeros((self.membership.shape[0], self.n_units), np.float32)
        g[np.arange(self.membership.shape[0]), self.membership] = 1.0
        return g

    def counts(self) -> np.ndarray:
        """(n_units,) how many pieces each unit has (always >= 1)."""
        return np.bincount(self.membership, minlength=self.n_units).astype(np.float32)


def word_units(run: ModelRun) -> WordUnits:
    """Group a run's pieces into units (see the module docstring). ``run``: a base.ModelRun or Encoding
    with ``text``, ``tokens``, ``kinds`` and ``offsets``."""
    return group_pieces(run.text, run.tokens, run.kinds, run.offsets)


def group_pieces(text: str, tokens: list[str], kinds: list[str], offsets: list[tuple[int, int] | None]) -> WordUnits:
    """The grouping itself, from the pieces' kinds and character offsets into ``text``."""
    words = word_spans(text, split_by_lexicon=False)  # [(start, end)], in order, never overlapping
    word_starts = [start for start, _ in words]
    units: list[dict] = []  # {"kind", "pieces", "first_word", "last_word", "label"}
    waiting_spaces: list[int] = []  # pieces of only a space, waiting for the next word

    def new_unit(kind: str, **extra) -> dict:
        units.append({"kind": kind, "pieces": [], **extra})
        return units[-1]

    def add(unit: dict, piece: int) -> None:
        unit["pieces"].append(piece)

    for i, (token, kind, span) in enumerate(zip(tokens, kinds, offsets, strict=True)):
        if kind == SPECIAL:
            add(new_unit(SPECIAL, label=token), i)
        elif kind == PREFIX:
            unit = units[-1] if units and units[-1]["kind"] == PREFIX else new_unit(PREFIX, label="")
            add(unit, i)
        else:
            first, last = _words_overlapping(words, word_starts, span)
            if first is None:  # a piece of only a space
                waiting_spaces.append(i)
                continue
            current = units[-1] if units and units[-1]["kind"] == TEXT else None
            if current is not None and first <= current["last_word"]:  # this piece continues the word
                current["last_word"] = max(current["last_word"], last)
            else:
                current = new_unit(TEXT, first_word=first, last_word=last)
            for waiting in waiting_spaces:
                add(current, waiting)
            waiting_spaces.clear()
            add(current, i)
    _place_trailing_spaces(units, waiting_spaces, kinds)

    labels, unit_offsets, membership = [], [], np.empty(len(tokens), np.intp)
    for u, unit in enumerate(units):
        unit["pieces"].sort()
        membership[unit["pieces"]] = u
        if unit["kind"] == TEXT and "first_word" in unit:
            start, end = words[unit["first_word"]][0], words[unit["last_word"]][1]
            labels.append(text[start:end])
            unit_offsets.append((start, end))
        elif unit["kind"] == TEXT:  # spaces with no word anywhere
            labels.append(" ")
            unit_offsets.append(None)
        else:
            label = unit["label"] or "".join(tokens[p] for p in unit["pieces"]).replace("\u2581", " ").strip()
            labels.append(label)
            unit_offsets.append(None)
    return WordUnits(
        labels=labels,
        kinds=[unit["kind"] for unit in units],
        offsets=unit_offsets,
        pieces=[unit["pieces"] for unit in units],
        membership=membership,
    )


def _words_overlapping(
    words: list, word_starts: list[int], span: tuple[int, int] | None
) -> tuple[int | None, int | None]:
    """Indices of the first and last word overlapping the span, or (None, None)."""
    if span is None:
        return None, None
    start, end = span
    first = max(bisect.bisect_right(word_starts, start) - 1, 0)
    while first < len(words) and words[first][1] <= start:
        first += 1
    last = first
    while last + 1 < len(words) and words[last + 1][0] < end:
        last += 1
    if first >= len(words) or words[first][0] >= end:
        return None, None
    return first, last


def _place_trailing_spaces(units: list[dict], waiting: list[int], kinds: list[str]) -> None:
    """Space pieces with no word after them join the last word; with no word at all, they are a unit."""
    if not waiting:
        return
    text_units = [unit for unit in units if unit["kind"] == TEXT]
    if text_units:
        text_units[-1]["pieces"].extend(waiting)
        return
    position = next((u for u, unit in enumerate(units) if unit["pieces"][0] > waiting[0]), len(units))
    units.insert(position, {"kind": TEXT, "pieces": list(waiting)})


# --------------------------------------------------------------------------- merging matrices


def merge_attention(weights: np.ndarray, units: WordUnits) -> np.ndarray:
    """(..., n_pieces, n_pieces) attention -> (..., n_units, n_units): to a word = sum over its pieces,
    from a word = mean over its pieces (Clark et al. 2019). Rows that summed to 1 still do."""
    g = units.matrix().astype(weights.dtype)  # (n, m)
    to_words = weights @ g  # (..., n, m)
    return (g.T @ to_words) / units.counts().astype(weights.dtype)[:, None]  # (..., m, m)


def merge_vectors(x: np.ndarray, units: WordUnits) -> np.ndarray:
    """(..., n_pieces, d) -> (..., n_units, d): each unit's vector is the mean of its pieces' vectors."""
    g = units.matrix().astype(x.dtype)  # (n, m)
    return (g.T @ x) / units.counts().astype(x.dtype)[:, None]  # (..., m, d)


def merge_scores(scores: np.ndarray, units: WordUnits) -> np.ndarray:
    """(..., n_pieces, n_pieces) -> (..., n_units, n_units): the mean score over both words' pieces."""
    g = units.matrix().astype(scores.dtype)  # (n, m)
    c = units.counts().astype(scores.dtype)  # (m,)
    return (g.T @ scores @ g) / np.outer(c, c)  # (..., m, m)


# --------------------------------------------------------------------------- punctuation


def is_punctuation(surface: str) -> bool:
    """True if the text is not empty and every character is Unicode punctuation (category P*)."""
    surface = surface.strip().replace("\u2581", "")
    return bool(surface) and all(unicodedata.category(ch).startswith("P") for ch in surface)


def punctuation_mask(run: ModelRun) -> np.ndarray:
    """(n_pieces,) bool: pieces that are punctuation, judged on the characters they cover.

    Sentence pieces are judged on the user's characters; prefix pieces on their own text (e5's
    "passage:" has a colon the model reads); special tokens never count.
    """
    mask = np.zeros(len(run.tokens), bool)
    for i, (token, kind, span) in enumerate(zip(run.tokens, run.kinds, run.offsets, strict=True)):
        if kind == TEXT and span is not None:
            mask[i] = is_punctuation(run.text[span[0] : span[1]])
        elif kind == PREFIX:
            mask[i] = is_punctuation(token)
    return mask


def unit_punctuation_mask(units: WordUnits) -> np.ndarray:
    """(n_units,) bool: units that are punctuation (special tokens never are)."""
    pairs = zip(units.labels, units.kinds, strict=True)
    return np.array([kind != SPECIAL and is_punctuation(label) for label, kind in pairs], bool)
