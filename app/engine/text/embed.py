"""Token -> vector.

``lexicon``: the curated 16-feature vectors (``lexicon.py``); a word the lexicon lacks gets a
hashed vector and is reported as unknown. ``hash``: every word hashed, the random-embedding
baseline. Hashing uses sha256 of the word, never Python's per-process salted ``hash()``, so the
same word has the same vector in every process. ``positional`` adds sinusoidal position codes.
"""

import hashlib

import numpy as np

from app.engine.text.lexicon import FEATURES, load_lexicon

LEXICON_DIM = len(FEATURES)


def hashed_vector(word, dim):
    """A deterministic unit vector for a word, from sha256(word)."""
    digest = b""
    counter = 0
    while len(digest) < 2 * dim:
        digest += hashlib.sha256(f"{counter}:{word}".encode()).digest()
        counter += 1
    raw = np.frombuffer(digest[: 2 * dim], dtype=">u2").astype(float)  # (dim,) integers in [0, 65535]
    vector = raw / 32767.5 - 1.0  # (dim,) in [-1, 1]
    return vector / np.linalg.norm(vector)


def punctuation_vector():
    """Punctuation marks are function tokens: they carry no meaning feature."""
    vector = np.zeros(LEXICON_DIM)
    vector[FEATURES.index("function")] = 1.0
    return vector


def sinusoidal_positions(n_tokens, dim):
    """The Transformer's position codes: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...)."""
    positions = np.arange(n_tokens)[:, None]  # (n_tokens, 1)
    pair = np.arange(dim)[None, :] // 2  # (1, dim)
    angles = positions / np.power(10000.0, 2 * pair / dim)  # (n_tokens, dim)
    return np.where(np.arange(dim) % 2 == 0, np.sin(angles), np.cos(angles))  # (n_tokens, dim)


def embed_tokens(tokens, *, embedding="lexicon", dim=LEXICON_DIM, positional=False):
    """Vectors for a list of tokens: (matrix (n_tokens, dim), unknown token texts in order)."""
    lexicon = load_lexicon()
    rows, unknown = [], []
    for token in tokens:
        if embedding == "hash":
            rows.append(hashed_vector(token.key, dim))
            continue
        vector = lexicon.lookup(token.key)
        if vector is None and not token.is_word:
            vector = punctuation_vector()
        if vector is None:
            vector = hashed_vector(token.key, dim)
            if token.text not in unknown:
                unknown.append(token.text)
        rows.append(vector)
    x = np.array(rows, dtype=float).reshape(len(tokens), dim)  # (n_tokens, dim)
    if positional:
        x = x + sinusoidal_positions(len(tokens), dim)
    return x, unknown
