"""Token -> vector.

``lexicon``: the curated vectors of 16 named meaning features (``lexicon.py``), then the word's role
(noun, verb, ... : 8 more named columns, 1 for the word's role, ``roles.py``); a word the lexicon lacks
gets a hashed meaning and a guessed role, and is reported as unknown. ``hash``: every word hashed, the random-embedding
baseline. Hashing uses sha256 of the word, never Python's per-process salted ``hash()``, so the same
word has the same vector in every process.

Every word's meaning has length √d (a unit vector times √d, d its width). Then a scaled dot product
q·k/√d_k of two meanings is √d times their cosine: between -4 and 4 for the lexicon's 16 features,
the spread a trained model's scores have, so the softmax weights show visible contrast at temperature 1.
The role columns are 0 or 1 (a word with senses of two roles: their mean).

``positional`` appends a sinusoidal position code of POSITION_DIM numbers after the word's features
(a Transformer adds it instead; appended, a student sees the word and its position apart, and a head
can ask about either).
"""

import functools
import hashlib
from collections.abc import Sequence

import numpy as np

from app.engine.text.lexicon import FEATURES, ROLES, load_lexicon
from app.engine.text.roles import token_roles
from app.engine.text.tokenize import Token

MEANING_DIM = len(FEATURES)  # 16 named meaning features
LEXICON_DIM = MEANING_DIM + len(ROLES)  # a lexicon word vector: its meaning, then its role
POSITION_DIM = 16  # numbers of the position code: 8 (sin, cos) pairs


@functools.cache  # a constant, asked for on every request with positions
def position_names() -> tuple[str, ...]:
    """Names of the position code's columns: sin0, cos0, sin1, cos1, ... (pair i has frequency 10000^(-2i/16))."""
    return tuple(f"{wave}{pair}" for pair in range(POSITION_DIM // 2) for wave in ("sin", "cos"))


@functools.lru_cache(maxsize=4096)  # a typed word comes back with every edit of its sentence
def hashed_vector(word: str, dim: int) -> np.ndarray:
    """A deterministic unit vector for a word, from sha256(word); read-only (kept for the next request)."""
    digest = b""
    counter = 0
    while len(digest) < 2 * dim:
        digest += hashlib.sha256(f"{counter}:{word}".encode()).digest()
        counter += 1
    raw = np.frombuffer(digest[: 2 * dim], dtype=">u2").astype(float)  # (dim,) integers in [0, 65535]
    vector = raw / 32767.5 - 1.0  # (dim,) in [-1, 1]
    vector = vector / np.linalg.norm(vector)
    vector.setflags(write=False)
    return vector


def punctuation_vector() -> np.ndarray:
    """Punctuation marks are function tokens: they carry no meaning feature."""
    vector = np.zeros(MEANING_DIM)
    vector[FEATURES.index("function")] = 1.0
    return vector


@functools.lru_cache(maxsize=256)  # one per sentence length
def sinusoidal_positions(n_tokens: int, dim: int = POSITION_DIM) -> np.ndarray:
    """The Transformer's position codes: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...); read-only."""
    positions = np.arange(n_tokens)[:, None]  # (n_tokens, 1)
    pair = np.arange(dim)[None, :] // 2  # (1, dim)
    angles = positions / np.power(10000.0, 2 * pair / dim)  # (n_tokens, dim)
    codes = np.where(np.arange(dim) % 2 == 0, np.sin(angles), np.cos(angles))  # (n_tokens, dim)
    codes.setflags(write=False)
    return codes


def to_length_sqrt_d(x: np.ndarray) -> np.ndarray:
    """Each row scaled to length √d (d = its width); a zero row stays zero."""
    # x (n_tokens, d)
    norms = np.sqrt(np.add.reduce(x * x, axis=1, keepdims=True))  # (n_tokens, 1) each row's length, as linalg.norm
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0) * np.sqrt(x.shape[1])


def embed_tokens(
    tokens: Sequence[Token], *, embedding: str = "lexicon", dim: int = LEXICON_DIM, positional: bool = False
) -> tuple[np.ndarray, list[str]]:
    """Vectors for a list of tokens: (matrix (n_tokens, dim [+ POSITION_DIM]), unknown token texts in order)."""
    lexicon = load_lexicon()
    width = MEANING_DIM if embedding == "lexicon" else dim
    rows, unknown = [], []
    for token in tokens:
        if embedding == "hash":
            rows.append(hashed_vector(token.key, width))
            continue
        vector = lexicon.lookup(token.key)
        if vector is None and not token.is_word:
            vector = punctuation_vector()
        if vector is None:
            vector = hashed_vector(token.key, width)
            if token.text not in unknown:
                unknown.append(token.text)
        rows.append(vector)
    x = to_length_sqrt_d(np.array(rows, dtype=float).reshape(len(tokens), width))  # (n_tokens, width)
    if embedding == "lexicon":
        roles, _ = token_roles(tokens)  # (n_tokens, n_roles)
        x = np.concatenate([x, roles], axis=1)  # (n_tokens, LEXICON_DIM)
    if positional:
        x = np.concatenate([x, sinusoidal_positions(len(tokens))], axis=1)  # (n_tokens, dim + POSITION_DIM)
    return x, unknown


def read_in_context(tokens: Sequence[Token], x: np.ndarray) -> tuple[np.ndarray, list[dict]]:
    """The source sentence as an encoder has read it: an English word with two meanings of one role takes
    the one its neighbours share (bank beside river: the river bank, 河岸; beside money: 银行). A word whose
    meanings differ in role (miss: to miss, Miss) keeps the mean: its role in the sentence decides, not
    its neighbours' topics.

    The lexicon gives such a word the mean of its meanings; here each meaning is compared with every other
    word of the sentence (the sum of cosines), and the closest replaces the mean, scaled like every word to
    length √d. x (n_tokens, width >= MEANING_DIM) is changed in a copy; returns it and, per word changed,
    {"word", "sense": the Chinese word of the meaning chosen}.
    """
    lexicon = load_lexicon()
    meanings = x[:, :MEANING_DIM]  # (n_tokens, MEANING_DIM)
    unit = meanings / np.maximum(np.linalg.norm(meanings, axis=1, keepdims=True), 1e-12)  # (n_tokens, MEANING_DIM)
    read, chosen = x.copy(), []
    for i, token in enumerate(tokens):
        senses = lexicon.sense_vectors.get(lexicon.entry(token.key) or "")
        if not senses:
            continue
        others = np.delete(unit, i, axis=0)  # (n_tokens - 1, MEANING_DIM)
        fit = [float((others @ (vector / np.linalg.norm(vector))).sum()) for vector, _ in senses]
        vector, chinese = senses[int(np.argmax(fit))]
        read[i, :MEANING_DIM] = vector / np.linalg.norm(vector) * np.sqrt(MEANING_DIM)
        chosen.append({"word": token.text, "sense": chinese})
    return read, chosen


def column_names(embedding: str, dim: int, positional: bool) -> tuple[str, ...] | None:
    """Column names of embed_tokens' vectors: the named features and roles (d0, d1, ... when hashed), then positions."""
    words = FEATURES + ROLES if embedding == "lexicon" else tuple(f"d{i}" for i in range(dim))
    return words + (position_names() if positional else ())
