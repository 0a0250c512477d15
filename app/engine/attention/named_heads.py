"""Named heads: attention heads a student can read, each asking one question in words.

A trained Transformer learns W_Q and W_K; here they are written by hand over the lexicon's named
features (and, when positions are on, the position code), so every number has a meaning:

    q = x_query · W_Q    each column of W_Q is a question; a row says how much a feature of the query asks it
    k = x_key   · W_K    each column of W_K is the same question; a row says how much a feature of the key answers it
    score = q · k / √d_k

W_V is the identity (the output keeps the named features) and W_O averages the heads, so the output of
several heads is still a vector of named features.

The word vectors name a word's meaning (16 features), its role (noun, verb, adjective, ...) and, with
positions on, where it stands. A head that asks about grammar ("which noun do I describe?") asks with
the query's role, is answered by the key's role, and prefers keys a few places away in one direction:
its W_Q moves the query's position code by those places (``shifts``), so q · k is largest there.

Each head also says which words ask its question (``asked_by``: roles, or "pronoun" and "ambiguous"
for words with that meaning feature or with two meanings); focus.py picks, for each query word, the
head whose question it asks.

Self-attention and encoder-decoder attention ask different questions: a word in a sentence asks about
its context ("which word tells me what I mean?"), a target word asks for its counterpart in the source
("which source word means what I mean?"). ``named_heads(kind, n)`` gives the first n heads of a kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.engine.text.embed import POSITION_DIM, position_names
from app.engine.text.lexicon import FEATURES, ROLES

SHARPNESS = 16.0  # position questions are asked this firmly: neighbouring position codes differ only a little
NEARBY = 4.0  # grammar heads ask about places nearby this firmly (the role question decides, places break ties)
ROLE = 4.0  # a role question and its answer: 4 x 4 / sqrt(d_k), above any difference of places nearby


@dataclass(frozen=True)
class NamedHead:
    """One head: its question in words, what each feature asks and answers (name -> weight), who asks it."""

    name: str  # short id: "sense", "pronoun", ...
    question: dict[str, str]  # language -> the head's question
    asks: dict[str, dict[str, float]]  # question dimension -> {query feature: weight}
    answers: dict[str, dict[str, float]]  # question dimension -> {key feature: weight}
    shifts: dict[int, float] = field(default_factory=dict)  # places away -> how firmly (-1: the word before)
    asked_by: tuple[str, ...] = ()  # roles (or "pronoun", "ambiguous") of the words that ask this question
    # inputs -> (W_Q, W_K), read-only: the matrices depend only on the head and the column names
    _matrices: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def dimensions(self) -> tuple[str, ...]:
        return tuple(self.asks)

    def matrices(self, inputs: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """W_Q and W_K, each (len(inputs), d_k), for input vectors whose columns are named `inputs`.

        Written once per set of column names (a handful: the embedding and the position code's width) and
        kept read-only: every request of that kind reads the same two matrices."""
        inputs = tuple(inputs)
        if inputs not in self._matrices:
            W_Q, W_K = self.written_matrices(inputs)
            W_Q.setflags(write=False)
            W_K.setflags(write=False)
            self._matrices[inputs] = (W_Q, W_K)
        return self._matrices[inputs]

    def written_matrices(self, inputs: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """W_Q and W_K written out from the head's questions (``matrices`` keeps them)."""
        W_Q = np.zeros((len(inputs), len(self.dimensions)))  # (d_model, d_k)
        W_K = np.zeros((len(inputs), len(self.dimensions)))  # (d_model, d_k)
        for column, dimension in enumerate(self.dimensions):
            for feature, weight in self.asks[dimension].items():
                if feature in inputs:  # without positions, a position question asks nothing
                    W_Q[inputs.index(feature), column] = weight
            for feature, weight in self.answers[dimension].items():
                if feature in inputs:
                    W_K[inputs.index(feature), column] = weight
        if self.shifts and set(position_names()) <= set(inputs):
            rows = [inputs.index(name) for name in position_names()]
            positions = np.zeros_like(W_Q)  # (d_model, d_k) the position rows alone
            positions[rows] = W_Q[rows]
            W_Q = W_Q - positions + sum(w * rotate_positions(positions, inputs, s) for s, w in self.shifts.items())
        return W_Q, W_K


def rotate_positions(W_Q: np.ndarray, inputs: tuple[str, ...], shift: int) -> np.ndarray:
    """Make a head that asks "where am I" ask "where is the word `shift` places away" instead.

    The position code of word p is (sin pω, cos pω) for each frequency ω; rotating each pair by shift·ω
    turns it into the code of word p + shift (sin and cos of a sum), so q · k is largest for the key
    `shift` places away (-1: the word before). Rows other than the position code are left as they are.
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
_NEARBY = {name: {name: NEARBY} for name in position_names()}


def grammar_head(
    name: str,
    question: dict[str, str],
    asked_by: tuple[str, ...],
    answered_by: dict[str, float],
    shifts: dict[int, float],
) -> NamedHead:
    """A head that asks with the query's role and is answered by the key's role, nearby (``shifts``)."""
    return NamedHead(
        name,
        question,
        asks={"role": {role: ROLE for role in asked_by if role in ROLES}, **_NEARBY},
        answers={"role": {feature: ROLE * weight for feature, weight in answered_by.items()}, **_POSITION_ANSWERS},
        shifts=shifts,
        asked_by=asked_by,
    )


BEFORE = {-1: 1.0, -2: 0.6, -3: 0.3}  # nearby, before the word: the nearest first
AFTER = {1: 1.0, 2: 0.6, 3: 0.3}  # nearby, after the word
NEXT = {1: 1.0, 2: 0.8, 3: 0.4}  # the next few words, a word or two between them mattering less (the old red book)
AROUND = {-1: 0.6, 1: 1.0, 2: 0.4, -2: 0.3}  # nearby on either side, after a little more

SENSE = NamedHead(
    "sense",
    {
        "en": "Which word tells me what I mean here? (a place or a thing asks: water, money or nature nearby?)",
        "zh": "哪个词告诉我在这里是什么意思？（地点或事物会问：附近有水、钱还是自然？）",
    },
    asks={topic: {"place": 1.0, "object": 0.5} for topic in ("water", "money", "nature")},
    # A word that is itself a place is not what tells a place its meaning: places answer less.
    answers={topic: {topic: 1.0, "place": -0.5} for topic in ("water", "money", "nature")},
    asked_by=("ambiguous",),
)
PRONOUN = NamedHead(
    "pronoun",
    {
        "en": "Which noun does this pronoun point to? (it asks for an animal or a thing, he and she for a person)",
        "zh": "这个代词指的是哪个名词？（“它”找动物或事物，“他”“她”找人）",
    },
    asks={kind: {kind: 1.0} for kind in ("animal", "person", "object")} | {"noun": {"pronoun": 1.0}},
    # Another pronoun is no antecedent: pronouns answer less; a noun answers the pronoun's "which noun?".
    answers={kind: {kind: 1.0, "pronoun": -1.0} for kind in ("animal", "person", "object")}
    | {"noun": {"noun": 2.0, "pronoun": -1.0}},
    asked_by=("pronoun",),
)
PREVIOUS = NamedHead(
    "previous",
    {
        "en": "Which word is just before me? (needs positions: the position code, moved back one word)",
        "zh": "我前面紧挨着的是哪个词？（需要位置编码：把位置编码往前移一个词）",
    },
    asks=_POSITIONS,
    answers=_POSITION_ANSWERS,
    shifts={-1: 1.0},
)
DOER = grammar_head(
    "doer",
    {
        "en": "Who does this action? (a verb asks for the noun just before it)",
        "zh": "这个动作是谁做的？（动词找它前面最近的名词）",
    },
    asked_by=("verb",),
    answered_by={"noun": 1.0},
    shifts=BEFORE,
)
OBJECT = grammar_head(
    "object",
    {
        "en": "What does this action happen to? (a verb asks for the noun just after it)",
        "zh": "这个动作作用于什么？（动词找它后面最近的名词）",
    },
    asked_by=("verb",),
    answered_by={"noun": 1.0},
    shifts=AFTER,
)
DESCRIBES = grammar_head(
    "describes",
    {
        "en": "Which noun do I describe? (an adjective, a number or a word like my, the, this asks for the next noun)",
        "zh": "我修饰哪个名词？（形容词、数词或“我的”“这个”这样的词找后面的名词）",
    },
    asked_by=("adjective", "determiner"),
    answered_by={"noun": 1.0},
    shifts=NEXT,
)
PLACE_OF = grammar_head(
    "preposition",
    {
        "en": "What is my object? (a preposition such as in, by, with asks for the noun after it)",
        "zh": "我的宾语是什么？（“在”“和”“用”这样的介词找后面的名词）",
    },
    asked_by=("preposition",),
    answered_by={"noun": 1.0},
    shifts=NEXT,
)
VERB = grammar_head(
    "verb",
    {
        "en": "Which action do I belong to? (a noun, an adverb or a joining word asks for the verb nearby)",
        "zh": "我属于哪个动作？（名词、副词或连词找附近的动词）",
    },
    asked_by=("noun", "adverb", "conjunction"),
    answered_by={"verb": 1.0},
    shifts=AROUND,
)
COUNTERPART = NamedHead(
    "counterpart",
    {
        "en": "Which source word means what I mean? (every feature and role asks for the same one)",
        "zh": "哪个源词和我的意思一样？（每个特征、每个词性都找相同的）",
    },
    asks=_same(FEATURES, 2.0) | _same(ROLES, 2.0),
    answers=_same(FEATURES, 2.0) | _same(ROLES, 2.0),
    asked_by=(*ROLES, "pronoun", "ambiguous"),
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
    # a word asks about its context: its meaning, what it points to, its neighbours, its grammar
    "self": (SENSE, PRONOUN, PREVIOUS, DOER, OBJECT, DESCRIBES, PLACE_OF, VERB),
    # a target word asks for its source counterpart (content finds it wherever word order moved it)
    "cross": (COUNTERPART, ALIGNED, SENSE, DOER),
}
MAX_NAMED_HEADS = max(len(heads) for heads in NAMED_HEADS.values())


def named_heads(kind: str, n_heads: int | None = None) -> tuple[NamedHead, ...]:
    """The first n_heads named heads of a kind of attention ("self" or "cross"); all of them by default."""
    heads = NAMED_HEADS[kind]
    if n_heads is None:
        return heads
    if not 1 <= n_heads <= len(heads):
        raise ValueError(f"{len(heads)} named heads for {kind}-attention (asked for {n_heads})")
    return heads[:n_heads]
