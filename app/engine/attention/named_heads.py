"""Named heads: attention heads a student can read, each asking one question in words.

A trained Transformer learns W_Q and W_K; here they are written by hand over the lexicon's named
features (and, when positions are on, the position code), so every number has a meaning:

    q = x_query · W_Q    each column of W_Q is a question; a row says how much a feature of the query asks it
    k = x_key   · W_K    each column of W_K is the same question; a row says how much a feature of the key answers it
    score = q · k / √d_k

W_V is the identity (the output keeps the named features) and W_O averages the heads, so the output of
several heads is still a vector of named features.

Self-attention and encoder-decoder attention ask different questions: a word in a sentence asks about
its context ("which word tells me what I mean?"), a target word asks for its counterpart in the source
("which source word means what I mean?"). ``named_heads(kind, n)`` gives the first n heads of a kind.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.engine.text.embed import POSITION_DIM, position_names
from app.engine.text.lexicon import FEATURES

SHARPNESS = 16.0  # position questions are asked this firmly: neighbouring position codes differ only a little


@dataclass(frozen=True)
class NamedHead:
    """One head: its question in words, and what each feature asks and answers (name -> weight)."""

    name: str  # short id: "sense", "pronoun", ...
    question: dict[str, str]  # language -> the head's question
    asks: dict[str, dict[str, float]]  # question dimension -> {query feature: weight}
    answers: dict[str, dict[str, float]]  # question dimension -> {key feature: weight}
    rotate: int = 0  # position heads: the query's position code is moved this many words (-1: the word before)

    @property
    def dimensions(self) -> tuple[str, ...]:
        return tuple(self.asks)

    def matrices(self, inputs: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """W_Q and W_K, each (len(inputs), d_k), for input vectors whose columns are named `inputs`."""
        W_Q = np.zeros((len(inputs), len(self.dimensions)))  # (d_model, d_k)
        W_K = np.zeros((len(inputs), len(self.dimensions)))  # (d_model, d_k)
        for column, dimension in enumerate(self.dimensions):
            for feature, weight in self.asks[dimension].items():
                if feature in inputs:  # without positions, a position question asks nothing
                    W_Q[inputs.index(feature), column] = weight
            for feature, weight in self.answers[dimension].items():
                if feature in inputs:
                    W_K[inputs.index(feature), column] = weight
        if self.rotate and set(position_names()) <= set(inputs):
            W_Q = rotate_positions(W_Q, inputs, self.rotate)
        return W_Q, W_K


def rotate_positions(W_Q: np.ndarray, inputs: tuple[str, ...], shift: int) -> np.ndarray:
    """Make a head that asks "where am I" ask "where is the word `shift` places away" instead.

    The position code of word p is (sin pω, cos pω) for each frequency ω; rotating each pair by -ω
    turns it into the code of word p - 1 (sin and cos of a difference), so q · k is largest for the
    key one place before.
    """
    W = W_Q.copy()
    names = position_names()
    for pair in range(POSITION_DIM // 2):
        sin_row, cos_row = inputs.index(names[2 * pair]), inputs.index(names[2 * pair + 1])
        omega = 1.0 / 10000 ** (2 * pair / POSITION_DIM)
        angle = shift * omega
        c, s = np.cos(angle), np.sin(angle)
        sin_q, cos_q = W_Q[sin_row].copy(), W_Q[cos_row].copy()
        # code(p + shift) = (sin p c + cos p s, cos p c - sin p s), written as rows of W
        W[sin_row] = c * sin_q - s * cos_q
        W[cos_row] = s * sin_q + c * cos_q
    return W


def _same(features: tuple[str, ...], weight: float = 1.0) -> dict[str, dict[str, float]]:
    return {feature: {feature: weight} for feature in features}


# The position questions: the query's own position code asks, each key's position code answers.
_POSITIONS = {name: {name: SHARPNESS} for name in position_names()}
_POSITION_ANSWERS = {name: {name: 1.0} for name in position_names()}

SENSE = NamedHead(
    "sense",
    {
        "en": "Which word tells me what I mean here? (a place or a thing asks: water, money or nature nearby?)",
        "zh": "哪个词告诉我在这里是什么意思？（地点或事物会问：附近有水、钱还是自然？）",
    },
    asks={topic: {"place": 1.0, "object": 0.5} for topic in ("water", "money", "nature")},
    # A word that is itself a place is not what tells a place its meaning: places answer less.
    answers={topic: {topic: 1.0, "place": -0.5} for topic in ("water", "money", "nature")},
)
PRONOUN = NamedHead(
    "pronoun",
    {
        "en": "Which noun does this pronoun point to? (it asks for an animal or a thing, he and she for a person)",
        "zh": "这个代词指的是哪个名词？（“它”找动物或事物，“他”“她”找人）",
    },
    asks={kind: {kind: 1.0} for kind in ("animal", "person", "object")},
    # Another pronoun is no antecedent: pronouns answer less.
    answers={kind: {kind: 1.0, "pronoun": -1.0} for kind in ("animal", "person", "object")},
)
PREVIOUS = NamedHead(
    "previous",
    {
        "en": "Which word is just before me? (needs positions: the position code, moved back one word)",
        "zh": "我前面紧挨着的是哪个词？（需要位置编码：把位置编码往前移一个词）",
    },
    asks=_POSITIONS,
    answers=_POSITION_ANSWERS,
    rotate=-1,
)
DOER = NamedHead(
    "doer",
    {
        "en": "Who does this action? (a verb of motion asks for a person or an animal)",
        "zh": "这个动作是谁做的？（动作动词找人或动物）",
    },
    asks={"who": {"motion": 1.0}},
    answers={"who": {"person": 1.0, "animal": 1.0, "pronoun": 0.5}},
)
COUNTERPART = NamedHead(
    "counterpart",
    {
        "en": "Which source word means what I mean? (every feature asks for the same feature)",
        "zh": "哪个源词和我的意思一样？（每个特征都找相同的特征）",
    },
    asks=_same(FEATURES),
    answers=_same(FEATURES),
)
ALIGNED = NamedHead(
    "aligned",
    {
        "en": "Which source word is at my position? (needs positions: the same position code)",
        "zh": "哪个源词和我在同一个位置？（需要位置编码：相同的位置编码）",
    },
    asks=_POSITIONS,
    answers=_POSITION_ANSWERS,
)

NAMED_HEADS = {
    "self": (SENSE, PRONOUN, PREVIOUS, DOER),  # a word asks about its context
    "cross": (COUNTERPART, ALIGNED, SENSE, DOER),  # a target word asks for its source counterpart
}
MAX_NAMED_HEADS = 4


def named_heads(kind: str, n_heads: int) -> tuple[NamedHead, ...]:
    """The first n_heads named heads of a kind of attention ("self" or "cross")."""
    heads = NAMED_HEADS[kind]
    if not 1 <= n_heads <= len(heads):
        raise ValueError(f"{len(heads)} named heads for {kind}-attention (asked for {n_heads})")
    return heads[:n_heads]
