"""What every real model shares: tokenize, run all layers, pool a sentence embedding.

A model is a ``bert.BertParams`` (the numbers), a ``PieceTokenizer`` (text -> word pieces with
character offsets) and a ``ModelCard`` (what the page says about it). ``EncoderModel`` puts them
together; ``minilm.py`` and ``e5.py`` only find, verify and read their files.

    run = model.run("汤姆追逐杰瑞")
    run.tokens          # ['<s>', '▁passage', ':', '▁', '汤', '姆', '追逐', '杰', '瑞', '</s>']
    run.kinds           # ['special', 'prefix', 'prefix', 'prefix', 'text', ..., 'special']
    run.offsets[4]      # (0, 1): the characters of the user's sentence this piece covers
    run.weights[l, h]   # (n, n) softmax rows over the pieces the model actually read
    run.embedding       # (d_model,) the sentence embedding, as the model's reference pools it
"""

from __future__ import annotations

import hashlib
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from . import bert, row_process

SPECIAL, PREFIX, TEXT = "special", "prefix", "text"  # the kinds of piece in a run


class ModelUnavailable(Exception):
    """The pretrained model cannot be used. ``args[0]`` is a message meant for humans (no server paths)."""


# --------------------------------------------------------------------------- description


@dataclass(frozen=True)
class ModelCard:
    """What the app says about a model; nothing here is needed to compute it."""

    name: str  # the API's model=... value
    label: str  # e.g. "all-MiniLM-L6-v2"
    package: str  # the pip package that ships its files
    languages: str  # human readable
    weights_note: str | None  # e.g. "4-bit weights"; None for the original float32 weights
    prefix: str  # text the model card says to put before a passage ("" for none)
    pooling: str  # how the sentence embedding is made, in words


# --------------------------------------------------------------------------- tokenizing


@dataclass(frozen=True)
class Piece:
    """One word piece of the text given to the tokenizer."""

    token: str  # as in the vocabulary ("##s", "▁cat", "<unk>")
    id: int
    start: int  # character offsets into that text
    end: int


class PieceTokenizer(Protocol):
    """Text -> word pieces without the special tokens; the special tokens it adds around them."""

    first: Piece  # e.g. [CLS] or <s> (offsets 0, 0)
    last: Piece  # e.g. [SEP] or </s>
    unk_id: int

    def pieces(self, text: str) -> list[Piece]: ...


@dataclass
class Encoding:
    tokens: list[str]  # the pieces the model reads, specials and prefix included
    ids: list[int]
    kinds: list[str]  # per piece: "special", "prefix" (added by the engine) or "text" (the user's sentence)
    offsets: list[tuple[int, int] | None]  # per piece: characters of the user's sentence, None if not "text"
    unknown: list[str]  # characters or words of the sentence that became the unknown token, in order, once each
    truncated: bool  # the sentence needed more than max_pieces pieces and was cut
    n_pieces: int  # pieces the whole sentence needs (before any cut), specials and prefix included


@dataclass
class ModelRun:
    """Everything one sentence computed: the encoding, every layer and head, the sentence embedding."""

    model: str  # the model's name ("minilm", "e5")
    text: str  # the user's sentence, without the engine's prefix
    tokens: list[str]
    ids: list[int]
    kinds: list[str]
    offsets: list[tuple[int, int] | None]
    unknown: list[str]
    truncated: bool
    n_pieces: int
    q: np.ndarray  # (n_layers, n_heads, n_tokens, d_head)
    k: np.ndarray  # (n_layers, n_heads, n_tokens, d_head)
    v: np.ndarray  # (n_layers, n_heads, n_tokens, d_head)
    scores: np.ndarray  # (n_layers, n_heads, n_tokens, n_tokens)  q.k / sqrt(d_head), before softmax
    weights: np.ndarray  # (n_layers, n_heads, n_tokens, n_tokens)  softmax rows
    context: np.ndarray  # (n_layers, n_heads, n_tokens, d_head)  weights @ v
    hidden: np.ndarray  # (n_layers + 1, n_tokens, d_model)  embeddings output, then each layer's output
    embedding: np.ndarray  # (d_model,) sentence embedding (see EncoderModel.sentence_embedding)


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without surrounding whitespace; a span of whitespace only is kept as it is."""
    s, e = start, end
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return (s, e) if s < e else (start, end)


def mean_pooled_l2(hidden: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """sum_i h_i / n over the tokens, then divided by max(||.||_2, eps). (n, d) -> (d,).

    What sentence-transformers' Pooling(mean) + Normalize and e5.c's ``embed_n`` both compute for
    one unpadded sentence: every token counts, the special tokens (and e5's prefix) included,
    because the attention mask of a sentence without padding is 1 everywhere.
    """
    mean = hidden.astype(np.float64).mean(axis=0)  # (d,)
    return (mean / max(float(np.linalg.norm(mean)), eps)).astype(np.float32)


# --------------------------------------------------------------------------- the model


class EncoderModel:
    """A loaded, verified model. Immutable after construction, safe to share between threads."""

    def __init__(self, card: ModelCard, params: bert.BertParams, tokenizer: PieceTokenizer, max_pieces: int):
        cfg = params.config
        self.card = card
        self.params = params
        self.tokenizer = tokenizer
        self.name: str = card.name
        self.label: str = card.label
        self.languages: str = card.languages
        self.weights_note: str | None = card.weights_note
        self.quantized: bool = card.weights_note is not None
        self.prefix: str = card.prefix
        self.n_layers: int = cfg.n_layers
        self.n_heads: int = cfg.n_heads
        self.d_model: int = cfg.d_model
        self.d_head: int = cfg.d_head
        self.max_positions: int = cfg.max_positions
        self.max_pieces: int = min(max_pieces, cfg.max_positions)
        self.special_tokens: dict[str, str] = {
            "first": tokenizer.first.token,
            "last": tokenizer.last.token,
            "unknown": _token_of(tokenizer.unk_id, tokenizer),
        }

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}: {self.label}>"

    def describe(self) -> dict:
        """The model's shape and description as plain data (what the API and page can show)."""
        return {
            "name": self.name,
            "label": self.label,
            "languages": self.languages,
            "weights": self.weights_note,
            "quantized": self.quantized,
            "prefix": self.prefix,
            "n_layers": self.n_layers,
            "n_heads": self.n_heads,
            "d_model": self.d_model,
            "d_head": self.d_head,
            "max_pieces": self.max_pieces,
            "special_tokens": dict(self.special_tokens),
            "pooling": self.card.pooling,
        }

    # ----------------------------------------------------------------- tokens

    def count_pieces(self, text: str) -> int:
        """How many pieces the model would read for ``text`` (specials and prefix included), uncut.

        Tokenizes only: cheap enough to refuse a sentence longer than ``max_pieces`` before a run.
        """
        return len(self.tokenizer.pieces(self.prefix + _checked_text(text))) + 2

    def tokenize(self, text: str) -> Encoding:
        """The pieces the model reads for ``text``: first special, prefix, sentence, last special.

        A sentence needing more than ``max_pieces`` is cut (``truncated``); the app refuses those.
        """
        text = _checked_text(text)
        tok = self.tokenizer
        model_text = self.prefix + text
        pieces = tok.pieces(model_text)
        n_pieces = len(pieces) + 2
        truncated = n_pieces > self.max_pieces
        pieces = pieces[: self.max_pieces - 2]
        n_prefix_chars = len(self.prefix)
        tokens, ids, kinds, offsets, unknown = [tok.first.token], [tok.first.id], [SPECIAL], [None], []
        for p in pieces:
            start, end = _strip_span(model_text, p.start, p.end)
            if start < n_prefix_chars:
                kind, span = PREFIX, None
            else:
                kind, span = TEXT, (start - n_prefix_chars, end - n_prefix_chars)
                word = text[span[0] : span[1]]
                if p.id == tok.unk_id and word and word not in unknown:
                    unknown.append(word)
            tokens.append(p.token)
            ids.append(p.id)
            kinds.append(kind)
            offsets.append(span)
        tokens.append(tok.last.token)
        ids.append(tok.last.id)
        kinds.append(SPECIAL)
        offsets.append(None)
        return Encoding(tokens, ids, kinds, offsets, unknown, truncated, n_pieces)

    # ----------------------------------------------------------------- running

    def run(self, text: str) -> ModelRun:
        """Tokenize ``text`` and compute all layers once, keeping every intermediate."""
        enc = self.tokenize(text)
        out = bert.encode(self.params, enc.ids, other_half=row_process.encode_with_helper)  # its helper process
        return ModelRun(
            model=self.name,
            text=text,
            tokens=enc.tokens,
            ids=enc.ids,
            kinds=enc.kinds,
            offsets=enc.offsets,
            unknown=enc.unknown,
            truncated=enc.truncated,
            n_pieces=enc.n_pieces,
            q=out.q,
            k=out.k,
            v=out.v,
            scores=out.scores,
            weights=out.weights,
            context=out.context,
            hidden=out.hidden,
            embedding=mean_pooled_l2(out.hidden[-1]),
        )

    def sentence_embedding(self, run: ModelRun) -> np.ndarray:
        """The run's sentence embedding (d_model,), L2-normalised: see ``ModelCard.pooling``."""
        return mean_pooled_l2(run.hidden[-1])


def _token_of(token_id: int, tok: PieceTokenizer) -> str:
    for special in (tok.first, tok.last):
        if special.id == token_id:
            return special.token
    return getattr(tok, "unk_token", "<unk>")


def _checked_text(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError("text must be a str")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text is not valid Unicode (it contains a lone surrogate)") from None
    return text


# --------------------------------------------------------------------------- file checks


def read_sized(path: Path, expected_size: int, count: int, package: str, hint: str) -> bytes:
    """The first ``count`` bytes of ``path`` (``expected_size + 1``: all of them), after checking that the
    file has exactly the expected size. Raises ModelUnavailable naming the file and its ``package`` with the
    reinstall ``hint``; neither the message nor its cause names a server path."""
    name = path.name
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size != expected_size:
                raise ModelUnavailable(
                    f"{name} of the package {package} has the wrong size: "
                    f"expected {expected_size:,} bytes, got {size:,}; {hint}"
                )
            return f.read(count)
    except FileNotFoundError:
        raise ModelUnavailable(f"{name} is missing from the package {package}; {hint}") from None
    except OSError as e:
        raise ModelUnavailable(f"{name} of the package {package} cannot be read ({e.strerror}); {hint}") from None


def read_verified(path: Path, expected_size: int, expected_sha256: str, package: str, hint: str) -> bytes:
    """The bytes of ``path``, after checking that they have exactly the expected size and sha256.

    The digest is taken (``hashlib.file_digest``) of the very bytes returned, so what is parsed is
    what was checked. Raises ModelUnavailable as ``read_sized`` does, or naming the failed sha256 check.
    """
    data = read_sized(path, expected_size, expected_size + 1, package, hint)
    digest = hashlib.file_digest(io.BytesIO(data), "sha256").hexdigest()
    if len(data) != expected_size or digest != expected_sha256:
        raise ModelUnavailable(
            f"{path.name} of the package {package} failed its sha256 check: "
            f"expected {expected_sha256}, got {digest}; {hint}"
        )
    return data
