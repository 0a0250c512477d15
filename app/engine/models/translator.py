"""Three trained English→Chinese translators, run in numpy through the engine's stage functions.

The weights were trained by tools/translator/train.py on the generated corpus of
tools/translator/dataset.py (the story grammar and everyday sentences over the dictionary's common words: about
3,900 English and 1,700 Chinese words; sentences of up to 25 words); the Transformer's on 25,000 of Tatoeba's
sentence pairs too (tools/translator/tatoeba.py), which gave it a vocabulary of its own (about 4,100 English and
2,600 Chinese words). They are committed in ``mt/`` as float32 ``.npz``, each pinned by size and sha256 (checked on
load), with ``vocab.json`` (the RNNs') and ``transformer-mt.vocab.json``.

    rnnencdec       the encoder squeezes the sentence into ONE context vector c; every step uses it
    rnnsearch       additive attention: e_ij = vᵀ tanh(W s_{i-1} + U h_j), a_i = softmax(e_i),
                    c_i = Σ_j a_ij h_j  (stages.additive_scores, softmax_weights, weighted_sum)
    transformer-mt  scaled dot-product attention with several heads (stages.scaled_dot_scores …):
                    encoder self-attention, decoder masked self-attention over the words produced so
                    far (its keys and values cached, one row more per word), cross-attention

    model = load("rnnsearch")
    result = translate(model, "Tom chase Jerry")                  # greedy; beam=3 for beam search
    result.target          # ['汤姆', '追逐', '杰瑞']
    result.steps[2].attention.weights    # (n_source,) where 杰瑞 looked
    forced(model, "Tom chase Jerry", "汤姆 追逐 杰瑞")            # each given word's probability

Everything is computed in float64 from the float32 weights (the upcast is exact), so the numbers
match the PyTorch reference run in float64 to rounding (tests/test_translator.py).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.engine.attention.norms import head_rows
from app.engine.attention.stages import additive_scores, scaled_dot_scores, softmax_weights, weighted_sum
from app.engine.models import mt_check, mt_dictionary

DIRECTORY = Path(__file__).parent / "mt"
MAX_SOURCE_WORDS = 30  # the corpus has sentences of up to 25 words; longer input is refused
MAX_TARGET_WORDS = 40
# The beam width the page decodes with unless the link says otherwise (app/view/state.py), among the candidates
# with the end guard: 8, by HSK 1-3 sentences and by cost (tools/translator/README.md, "Beam search by default")
DEFAULT_BEAM = 8
PAD, BOS, EOS, UNK = 0, 1, 2, 3  # target vocabulary
SOURCE_UNK = 1
SOURCE_SPECIALS = ("<pad>", "<unk>", *mt_dictionary.UNKNOWN_TOKENS)  # <unk> typed by role and form
VOCAB_FILE = "vocab.json"  # the vocabulary the two RNNs share (trained on the grammars' corpus alone)
# name -> its weights file, its vocabulary's file and what the page calls it. The Transformer has a vocabulary of its
# own: it was trained on Tatoeba's pairs too (tools/translator/README.md, "Installed: the Transformer on Tatoeba's
# pairs"), which gave it words the RNNs do not have
MODELS = {
    "rnnencdec": {"file": "rnnencdec.npz", "vocabulary": VOCAB_FILE, "label": "RNNencdec (no attention)"},
    "rnnsearch": {"file": "rnnsearch.npz", "vocabulary": VOCAB_FILE, "label": "RNNsearch (additive attention)"},
    "transformer-mt": {
        "file": "transformer-mt.npz",
        "vocabulary": "transformer-mt.vocab.json",
        "label": "Transformer (4 heads)",
        "heads": 4,
    },
}
# file -> (size in bytes, sha256): the committed files, checked on every load
PINNED = {
    "rnnencdec.npz": (5925046, "23543f9467323d14721937f03716652c9c904e8a534700492b9fddb8b8352376"),
    "rnnsearch.npz": (6057374, "1d3a8c24e520261cd0a0f13a850d1c1862350d014efc22014794b280e3558438"),
    "transformer-mt.npz": (7448466, "120030203cb390aa988636c2474db5e8d9c57cf249dc4610c68b2e22a9a21137"),
    "transformer-mt.vocab.json": (67780, "bb4937b232d5b610a71a97995a4d8e3d78295f09ea3092649c09441852a741f1"),
    "vocab.json": (56567, "81734eb887838f2f5c333b125ef2b8b676f95b7fc592ea92d840c154cc020ff6"),
}


class TranslatorUnavailable(Exception):
    """A weights file is missing or not the committed one."""


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def _verified_bytes(name: str, directory: Path) -> bytes:
    path = directory / name
    if not path.is_file():
        raise TranslatorUnavailable(f"{name} is missing")
    data = path.read_bytes()
    size, sha256 = PINNED[name]
    if len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
        raise TranslatorUnavailable(f"{name} is not the committed file (size or sha256 differ)")
    return data


@dataclass(frozen=True)
class Vocabulary:
    source: list[str]
    target: list[str]

    def __post_init__(self):
        object.__setattr__(self, "_source_index", {w: i for i, w in enumerate(self.source)})

    def source_id(self, word: str) -> int:
        """The word's id; for a word beyond the vocabulary, its typed <unk>'s (caught -> <unk:verb-ed>)."""
        return self._source_index[word] if word in self._source_index else self.unknown_id(word)

    def unknown_id(self, word: str) -> int:
        """The id of the <unk> this word is read as when it is unknown (leave-one-out reads a known word so)."""
        return self._source_index.get(mt_dictionary.unknown_token(word), SOURCE_UNK)

    def knows(self, word: str) -> bool:
        return word in self._source_index and word not in SOURCE_SPECIALS

    @functools.cached_property
    def may_double(self) -> frozenset[int]:
        """The target ids a translation may write twice in a row: <unk> (each stands for the word attention points
        to) and the Chinese of the dictionary's verbs, which Chinese doubles (看 看, 试 试: have a look, have a try);
        never a pronoun, noun, adjective or particle (我 我, 学生 学生, 自由 自由: what RNNsearch wrote in a tenth of
        the measured sentences). translator.ruled_after reads it."""
        verbs = mt_dictionary.verb_chinese()
        return frozenset([UNK, *(i for i, word in enumerate(self.target) if word in verbs)])


def read_vocabulary(directory: Path = DIRECTORY, verify: bool = True, file: str = VOCAB_FILE) -> Vocabulary:
    data = _verified_bytes(file, directory) if verify else (directory / file).read_bytes()
    raw = json.loads(data)
    return Vocabulary(raw["source"], raw["target"])


def read_weights(name: str, directory: Path = DIRECTORY, verify: bool = True) -> dict[str, np.ndarray]:
    file = MODELS[name]["file"]
    if verify:
        _verified_bytes(file, directory)
    with np.load(directory / file) as npz:
        return {key: npz[key].astype(np.float64) for key in npz.files}  # float32 -> float64 is exact


# ---------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def gru_step(x: np.ndarray, h: np.ndarray, w_ih, w_hh, b_ih, b_hh) -> np.ndarray:
    """One GRU step (PyTorch's gate order r, z, n):
    r = σ(W_ir x + b_ir + W_hr h + b_hr), z = σ(…), n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)),
    h' = (1 − z) ⊙ n + z ⊙ h."""
    # x (d_in,), h (d_h,), w_ih (3 d_h, d_in), w_hh (3 d_h, d_h); or k rows of each, x (k, d_in), h (k, d_h)
    gi = x @ w_ih.T + b_ih  # (3 d_h,) or (k, 3 d_h)
    gh = h @ w_hh.T + b_hh  # (3 d_h,) or (k, 3 d_h)
    d = h.shape[-1]
    i_r, i_z, i_n = gi[..., :d], gi[..., d : 2 * d], gi[..., 2 * d :]  # slices: np.split's overhead was a fifth
    h_r, h_z, h_n = gh[..., :d], gh[..., d : 2 * d], gh[..., 2 * d :]
    r = sigmoid(i_r + h_r)
    z = sigmoid(i_z + h_z)
    n = np.tanh(i_n + r * h_n)
    return (1.0 - z) * n + z * h  # (d_h,) or (k, d_h)


def bidirectional_gru(x: np.ndarray, p: dict, prefix: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Annotations h_j = [forward_j; backward_j] (n, 2 d_h), the forward's last and the backward's first state."""
    n = x.shape[0]
    d_h = p[prefix + "weight_hh_l0"].shape[1]
    forward = np.zeros((n, d_h))
    backward = np.zeros((n, d_h))
    h = np.zeros(d_h)
    for j in range(n):
        h = gru_step(x[j], h, *(p[prefix + f"{w}_l0"] for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")))
        forward[j] = h
    h = np.zeros(d_h)
    for j in reversed(range(n)):
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        h = gru_step(x[j], h, *(p[prefix + f"{w}_l0_reverse"] for w in names))
        backward[j] = h
    return np.concatenate([forward, backward], axis=1), forward[-1], backward[0]


def log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max()
    return shifted - np.log(np.exp(shifted).sum())


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """Each row of x (n, d) to mean 0 and (biased) variance 1, then scaled and shifted. A sum divided by d is
    bit for bit what ndarray.mean computes, without its Python-level overhead (a third of the time here)."""
    d = x.shape[-1]
    centred = x - x.sum(-1, keepdims=True) / d  # (n, d)
    var = np.square(centred).sum(-1, keepdims=True) / d  # (n, 1)
    return centred / np.sqrt(var + eps) * weight + bias


def sinusoidal_positions(n: int, d: int) -> np.ndarray:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(…) (computed in float32, as in training)."""
    pos = np.arange(n)[:, None]
    i = np.arange(0, d, 2)[None, :]
    angle = pos / np.power(10000.0, i / d)
    code = np.zeros((n, d), dtype=np.float32)
    code[:, 0::2] = np.sin(angle)
    code[:, 1::2] = np.cos(angle)
    return code.astype(np.float64)


# ---------------------------------------------------------------------------
# What one decoding step shows
# ---------------------------------------------------------------------------


@dataclass
class Attention:
    """Stage 1 scores, stage 2 weights, stage 3 context of one target word over the source words.

    rnnsearch: scores/weights (n_source,), context (2 d_h,), query s_{i-1} (d_h,).
    transformer-mt: scores/weights (layers, heads, n_source) of the cross-attention, its queries
    query (layers, heads, d_head) and outputs context (layers, heads, d_head); and the decoder's masked
    self-attention over the words so far: self_query (layers, heads, d_head), self_scores and
    self_weights (layers, heads, i+1), self_context (layers, heads, d_head).
    """

    scores: np.ndarray
    weights: np.ndarray
    context: np.ndarray | None = None
    query: np.ndarray | None = None
    self_weights: np.ndarray | None = None
    self_scores: np.ndarray | None = None
    self_query: np.ndarray | None = None
    self_context: np.ndarray | None = None


@dataclass
class Step:
    token: str
    token_id: int
    probability: float  # of this word, given the words before it
    logits: np.ndarray  # (n_target_vocab,)
    attention: Attention | None  # None for rnnencdec: every step has the same c
    preferred: tuple[str, float] | None = None  # the model's own first choice and its probability, when the
    # candidate list ruled it out (translate(candidates=True)): a content word that translates no English word, or a
    # word that would repeat a run of words a third time in a row (loop_breakers) or itself (ruled_after)
    ruled_by: str | None = None  # why it was ruled out: "made_up" (no English word asks for it), "loop", or
    # "left_out" (</s>, while English words were left out: the end guard)
    left_out: tuple[str, ...] = ()  # where the end guard ruled </s> out (the first choice, or the likeliest
    # candidate after a first choice ruled out): the English words it would have left out


@dataclass
class Translation:
    model: str
    source: list[str]  # the words the model read
    unknown: list[str]  # words not in its vocabulary (read as <unk>)
    target: list[str]  # the words it produced (without </s>)
    steps: list[Step]  # one per target word, and one for </s>
    log_probability: float
    extra: dict = field(default_factory=dict)

    def with_steps(self, steps: list[Step], log_probability: float = 0.0, extra: dict | None = None) -> Translation:
        """The same sentence translated by ``steps`` (its target: their words, less </s>)."""
        target = [step.token for step in steps if step.token_id != EOS]
        return Translation(self.model, self.source, self.unknown, target, steps, log_probability, extra or {})


# ---------------------------------------------------------------------------
# The three models: encode once, then one step at a time from a small state
# ---------------------------------------------------------------------------


class Decoder:
    """What the three networks share: ``start(source_ids)`` encodes a sentence into a state, ``steps(states, ys)``
    takes k partial translations of it one word further at once, and ``step`` is steps() with one."""

    def step(self, state: dict, y_prev: int) -> tuple[np.ndarray, dict, Attention | None]:
        """One partial translation's next step: -> its logits (n_target_vocab,), new state and attention."""
        (logits,), (state,), (attention,) = self.steps([state], [y_prev])
        return logits, state, attention


class RNNSearch(Decoder):
    def __init__(self, p: dict):
        self.p = p

    def start(self, source_ids: list[int]) -> dict:
        p = self.p
        x = p["encoder.embed.weight"][source_ids]  # (n, d_emb)
        h, _, backward_first = bidirectional_gru(x, p, "encoder.gru.")
        s0 = np.tanh(p["init.weight"] @ backward_first + p["init.bias"])  # (d_h,)
        return {"h": h, "s": s0}

    def steps(self, states: list[dict], ys: list[int]) -> tuple[np.ndarray, list[dict], list[Attention]]:
        """The next step of k partial translations of one sentence at once (a beam; k = 1 for greedy decoding):
        -> the logits (k, n_target_vocab), each one's new state and its attention."""
        p = self.p
        h = states[0]["h"]  # (n, 2 d_h): keys and values, the same sentence for every partial translation
        s_prev = np.stack([state["s"] for state in states])  # (k, d_h): the queries
        # stage 1: e_j = vᵀ tanh(W s_{i-1} + U h_j)
        scores = additive_scores(s_prev, h, p["W.weight"], p["U.weight"], p["v.weight"][0])  # (k, n)
        # stage 2 and 3
        weights = softmax_weights(scores, np.ones(scores.shape, dtype=bool))  # (k, n)
        context = weighted_sum(weights, h)  # (k, 2 d_h)
        e = p["embed.weight"][ys]  # (k, d_emb)
        s = gru_step(np.concatenate([e, context], axis=1), s_prev, p["cell.weight_ih"], p["cell.weight_hh"],
                     p["cell.bias_ih"], p["cell.bias_hh"])  # fmt: skip
        logits = np.concatenate([s, context, e], axis=1) @ p["out.weight"].T + p["out.bias"]  # (k, n_target_vocab)
        attentions = [Attention(scores=scores[b], weights=weights[b], context=context[b], query=s_prev[b])
                      for b in range(len(states))]  # fmt: skip
        return logits, [{"h": h, "s": row} for row in s], attentions

    def context_readout(self) -> np.ndarray:
        """What plays W_O for weight × value norm (app/engine/attention/norms.py): the readout's columns for the
        context, (2 d_h, n_target_vocab), transposed for h_j @ W.

        The context c_i = Σ_j a_ij h_j enters the decoder twice: into the next state through the GRU's gates (not
        linear in c_i) and into this step's word scores, logits = W_out [s_i; c_i; e] + b, linearly. There
        W_out's context columns turn each annotation into its share of the logits, a_ij · h_j W_c, as W_O turns
        a Transformer head's values into its share of the layer's output; so f(h_j) = h_j W_c and the measure is
        a_ij ‖h_j W_c‖ (the readout's bias b left out, as the paper leaves out W_O's)."""
        d_h = self.p["cell.weight_hh"].shape[1]
        return self.p["out.weight"][:, d_h : 3 * d_h].T  # (2 d_h, n_target_vocab): [s (d_h); c (2 d_h); e]


class RNNEncDec(Decoder):
    def __init__(self, p: dict):
        self.p = p

    def start(self, source_ids: list[int]) -> dict:
        p = self.p
        x = p["encoder.embed.weight"][source_ids]
        _, forward_last, backward_first = bidirectional_gru(x, p, "encoder.gru.")
        c = np.concatenate([forward_last, backward_first])  # (2 d_h,): the whole sentence in one vector
        return {"c": c, "s": np.tanh(p["init.weight"] @ c + p["init.bias"])}

    def steps(self, states: list[dict], ys: list[int]) -> tuple[np.ndarray, list[dict], list[None]]:
        """The next step of k partial translations at once: -> the logits (k, n_target_vocab), each one's new
        state, and None for each: no attention."""
        p = self.p
        c = states[0]["c"]  # (2 d_h,): the same sentence for every partial translation
        cs = np.broadcast_to(c, (len(states), c.shape[0]))  # (k, 2 d_h)
        e = p["embed.weight"][ys]  # (k, d_emb)
        s = gru_step(np.concatenate([e, cs], axis=1), np.stack([state["s"] for state in states]),
                     p["cell.weight_ih"], p["cell.weight_hh"], p["cell.bias_ih"], p["cell.bias_hh"])  # fmt: skip
        logits = np.concatenate([s, cs, e], axis=1) @ p["out.weight"].T + p["out.bias"]  # (k, n_target_vocab)
        return logits, [{"c": c, "s": row} for row in s], [None] * len(states)


class TransformerMT(Decoder):
    def __init__(self, p: dict, heads: int):
        self.p = p
        self.heads = heads
        self.d = p["src_embed.weight"].shape[1]
        self.layers = len({k.split(".")[1] for k in p if k.startswith("dec.")})
        self.positions = sinusoidal_positions(64, self.d)

    def project(self, prefix: str, name: str, x: np.ndarray) -> np.ndarray:
        """x (n, d) -> (heads, n, d_head) through the layer's W_name."""
        y = x @ self.p[f"{prefix}.{name}.weight"].T + self.p[f"{prefix}.{name}.bias"]
        return y.reshape(x.shape[0], self.heads, -1).transpose(1, 0, 2)

    def attend(self, prefix: str, q: np.ndarray, k: np.ndarray, v: np.ndarray):
        """Scaled dot-product attention of every head: the three stages, then W_O. q (heads, n_q, d_head), k and v
        (heads, n_k, d_head); or each with a leading axis of k partial translations and one query each."""
        scores = scaled_dot_scores(q, k)  # (heads, n_q, n_k)
        weights = softmax_weights(scores, np.ones(scores.shape[-2:], dtype=bool))  # (heads, n_q, n_k)
        out = weighted_sum(weights, v)  # (heads, n_q, d_head)
        joined = np.swapaxes(out, -3, -2).reshape(-1, self.d)  # (n_q, d); or (k, d), k partial translations
        return joined @ self.p[f"{prefix}.o.weight"].T + self.p[f"{prefix}.o.bias"], scores, weights, out

    def output_rows(self, prefix: str, head: int) -> np.ndarray:
        """Head `head`'s rows of W_O of the attention `prefix` (e.g. "dec.0.cross_attn"): (d_head, d), transposed
        for x @ W like attend's product, its bias left out (weight × value norm, app/engine/attention/norms.py)."""
        return head_rows(self.p[f"{prefix}.o.weight"].T, head, self.d // self.heads)  # (d_head, d)

    def feed_forward(self, prefix: str, x: np.ndarray) -> np.ndarray:
        p = self.p
        y = layer_norm(x, p[f"{prefix}.ln3.weight"], p[f"{prefix}.ln3.bias"])
        y = np.maximum(y @ p[f"{prefix}.ff1.weight"].T + p[f"{prefix}.ff1.bias"], 0.0)
        return x + y @ p[f"{prefix}.ff2.weight"].T + p[f"{prefix}.ff2.bias"]

    def start(self, source_ids: list[int]) -> dict:
        p = self.p
        n = len(source_ids)
        x = p["src_embed.weight"][source_ids] * math.sqrt(self.d) + self.positions[:n]  # (n, d)
        for layer in range(self.layers):
            pre = f"enc.{layer}"
            y = layer_norm(x, p[f"{pre}.ln1.weight"], p[f"{pre}.ln1.bias"])
            a, _, _, _ = self.attend(f"{pre}.self_attn", *(self.project(f"{pre}.self_attn", w, y) for w in "qkv"))
            x = self.feed_forward(pre, x + a)
        memory = layer_norm(x, p["enc_ln.weight"], p["enc_ln.bias"])
        cross = [
            (self.project(f"dec.{layer}.cross_attn", "k", memory), self.project(f"dec.{layer}.cross_attn", "v", memory))
            for layer in range(self.layers)
        ]  # the source's keys and values for every decoder layer, computed once
        cache = [(np.zeros((self.heads, 0, self.d // self.heads)),) * 2 for _ in range(self.layers)]
        return {"cross": cross, "cache": cache, "position": 0}

    def steps(self, states: list[dict], ys: list[int]) -> tuple[np.ndarray, list[dict], list[Attention]]:
        """The next step of k partial translations of one sentence at once (a beam; k = 1 for greedy decoding),
        each as long as the others: -> the logits (k, n_target_vocab), each one's new state and its attention."""
        p = self.p
        k, position = len(states), states[0]["position"]
        x = p["tgt_embed.weight"][ys] * math.sqrt(self.d) + self.positions[[position]]  # (k, d)
        cache = []
        seen: dict[str, list] = {name: [] for name in ("scores", "weights", "query", "context")}
        seen_self: dict[str, list] = {name: [] for name in ("scores", "weights", "query", "context")}
        for layer in range(self.layers):
            pre = f"dec.{layer}"
            y = layer_norm(x, p[f"{pre}.ln1.weight"], p[f"{pre}.ln1.bias"])
            # each partial translation's query, key and value: (k, heads, 1, d_head)
            q, new_k, new_v = (self.project(f"{pre}.self_attn", w, y).transpose(1, 0, 2)[:, :, None] for w in "qkv")
            keys = np.concatenate([np.stack([s["cache"][layer][0] for s in states]), new_k], axis=2)  # one row more
            values = np.concatenate([np.stack([s["cache"][layer][1] for s in states]), new_v], axis=2)
            cache.append((keys, values))  # (k, heads, i+1, d_head)
            a, s_self, w_self, o_self = self.attend(f"{pre}.self_attn", q, keys, values)  # only its own past: causal
            for name, value in zip(("scores", "weights", "query", "context"), (s_self, w_self, q, o_self), strict=True):
                seen_self[name].append(value[:, :, 0])  # (k, heads, …)
            x = x + a
            y = layer_norm(x, p[f"{pre}.ln2.weight"], p[f"{pre}.ln2.bias"])
            q = self.project(f"{pre}.cross_attn", "q", y)  # (heads, k, d_head): k queries of the same source
            a, scores, weights, out = self.attend(f"{pre}.cross_attn", q, *states[0]["cross"][layer])
            x = self.feed_forward(pre, x + a)
            for name, value in zip(("scores", "weights", "query", "context"), (scores, weights, q, out), strict=True):
                seen[name].append(value.swapaxes(0, 1))  # (k, heads, …)
        out = layer_norm(x, p["dec_ln.weight"], p["dec_ln.bias"])  # (k, d)
        logits = out @ p["out.weight"].T + p["out.bias"]  # (k, n_target_vocab)
        # each name's layers stacked once for the beam: (k, layers, heads, …); each partial translation's row of it
        cross = {name: np.stack(values, axis=1) for name, values in seen.items()}
        own = {f"self_{name}": np.stack(values, axis=1) for name, values in seen_self.items()}
        attentions = [  # cross (layers, heads, n_source); self (layers, heads, i+1)
            Attention(**{name: value[b] for name, value in (cross | own).items()}) for b in range(k)
        ]
        new_states = [
            {"cross": states[0]["cross"], "cache": [(kv[0][b], kv[1][b]) for kv in cache], "position": position + 1}
            for b in range(k)
        ]
        return logits, new_states, attentions


@dataclass
class Translator:
    name: str
    vocabulary: Vocabulary
    network: RNNSearch | RNNEncDec | TransformerMT


def load(name: str, directory: Path = DIRECTORY, verify: bool = True) -> Translator:
    """The model called ``name`` (one of MODELS), its files checked against their pinned size and sha256."""
    if name not in MODELS:
        raise KeyError(f"unknown translator {name!r}; one of {', '.join(MODELS)}")
    vocabulary = read_vocabulary(directory, verify, MODELS[name]["vocabulary"])
    p = read_weights(name, directory, verify)
    if name == "rnnsearch":
        network = RNNSearch(p)
    elif name == "rnnencdec":
        network = RNNEncDec(p)
    else:
        network = TransformerMT(p, MODELS[name]["heads"])
    return Translator(name, vocabulary, network)


# ---------------------------------------------------------------------------
# Reading English, decoding Chinese
# ---------------------------------------------------------------------------


# The contractions the corpus writes as one word (she doesn't like tea); every other contraction is read as the
# words the corpus writes in its place: i'm → i am, it's → it is, can't → can not, we'll → we will.
KEPT_CONTRACTIONS = frozenset({"don't", "doesn't", "didn't", "won't", "isn't", "aren't", "hasn't", "haven't"})
CONTRACTED = {"'m": "am", "'re": "are", "'ll": "will", "'ve": "have", "'d": "would"}
IS_CONTRACTED = ("it", "he", "she", "that", "there", "here", "where", "who", "how")  # it's: it is
POSSESSIVE = re.compile(rf"\b(?!(?:{'|'.join(IS_CONTRACTED)})'s\b)(\w+)'s\b")  # tom's: tom 's (not it's)
# A whole number of one or two digits standing alone, not part of a word (5pm, 3x3, 7th), a decimal (1.4), a time
# (7:30), a score (3-1), a date (5/12) or a thousands' group (1,000): read as the corpus writes numbers, in words,
# when it is one English word (0-20 and the tens: number_words); 21-99 otherwise stay digits (see source_words).
DIGITS = re.compile(r"(?<![\w:/-])(?<!\d[.,])\d{1,2}(?![\w:/-]|[.,]\d)")
ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")  # fmt: skip
TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}


def number_words(number: int) -> str | None:
    """A number from 0 to 99 as the one English word the corpus would write for it (3 -> three, 40 -> forty), or None
    for a number of two words (25: twenty five), which the models read as an unknown tens word beside a unit they
    know and write wrong (三十 两 for 32: 两 does not stand inside a number) or apart (四十 了 五): it stays digits,
    which Chinese writes too."""
    if number <= 20:
        return ONES[number] if number < 20 else TENS[2]
    tens, ones = divmod(number, 10)
    return None if ones else TENS[tens]


def _expanded(word: str, following: str | None) -> list[str]:
    """One typed word as the corpus would write it (see KEPT_CONTRACTIONS)."""
    stem, apostrophe, ending = word.partition("'")
    if not apostrophe or word in KEPT_CONTRACTIONS:
        return [word]
    ending = "'" + ending
    if ending == "'t" and stem.endswith("n"):  # can't → can not, wasn't → was not
        return [{"ca": "can", "sha": "shall"}.get(stem[:-1], stem[:-1]), "not"]  # won't is kept
    if ending in CONTRACTED:
        return [stem, CONTRACTED[ending]]
    if ending == "'s" and stem in IS_CONTRACTED:  # she's gone, it's been: has
        return [stem, "has" if following in ("been", "got", "gone") else "is"]
    return [word]


def source_words(text: str) -> list[str]:
    """Lower-case words as the corpus writes them: "Tom's mother." -> ['tom', "'s", 'mother']; "I'm sure it's
    here" -> ['i', 'am', 'sure', 'it', 'is', 'here'] (a contraction the corpus never writes, read in full); "I have
    3 cats" -> ['i', 'have', 'three', 'cats'] (a number of one or two digits standing alone, in words: DIGITS).

    The corpus's own placeholders for unknown words (<unk>, <unk:noun>, ...) are read as one word each, so a
    test sentence from the corpus is read exactly as training read it.
    """
    text = re.sub(r"\bcannot\b", "can't", text.lower().replace("’", "'"))
    text = DIGITS.sub(lambda found: number_words(int(found.group())) or found.group(), text)
    text = POSSESSIVE.sub(r"\1 's", text)
    typed = re.findall(r"<unk(?::[a-z-]+)?>|'s|[a-z0-9]+(?:'[a-z]+)?", text)
    return [w for i, word in enumerate(typed) for w in _expanded(word, typed[i + 1] if i + 1 < len(typed) else None)]


TYPED_WORD = re.compile(r"[A-Za-z0-9]+")
TENS_OF = {word: tens for tens, word in TENS.items()}
# A number of two words, a tens word and then a unit (twenty-one, Thirty five): read_words reads it in digits.
TWO_WORD_NUMBER = re.compile(rf"\b({'|'.join(TENS.values())})[- ]({'|'.join(ONES[1:10])})\b", re.IGNORECASE)
# What begins a sentence: the text's start, or an end of sentence and then only spaces, quotes and brackets.
SENTENCE_START = re.compile(r"(?:^|[.!?])[\s\"'“”‘’(\[]*$")
TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr"})  # a title before a name: Mr. Brown; its dot ends no sentence
MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "must", "may", "might"})
# The words after which (right after, or with adjectives between) an -ing word that is also a noun of its own
# (mt_dictionary.own_noun: meeting) is read as the noun: the meeting, my sister's wedding, an important meeting
DETERMINERS = frozenset({"the", "a", "an", "this", "that", "my", "your", "his", "her", "our", "their", "its", "every",
                         "each", "'s"})  # fmt: skip


def _lined_up(typed: list[str], words: list[str]) -> list[int | None]:
    """For each of ``words`` (source_words(text) or read_words(text)), the index of the word of ``typed``
    (TYPED_WORD's words of the text) that it is, or None (the am of I'm, three for 3): lined up by their longest
    common subsequence (difflib), so a contraction read in full or a number read in words moves nothing after it."""
    at: list[int | None] = [None] * len(words)
    matcher = difflib.SequenceMatcher(None, [w.lower() for w in typed], [w.lower() for w in words], autojunk=False)
    for block in matcher.get_matching_blocks():
        at[block.b : block.b + block.size] = range(block.a, block.a + block.size)
    return at


def typed_forms(text: str, words: list[str]) -> list[str]:
    """Each of ``words`` (source_words(text) or read_words(text)) as the text types it where the text has it as a
    word of its own (Lisa, NASA), else as read (the am of I'm, three for 3): how a word kept in English is shown.
    typed_forms("Lisa met Dr Gruber", ["lisa", "met", "dr", "gruber"]) -> ['Lisa', 'met', 'Dr', 'Gruber']."""
    typed = TYPED_WORD.findall(text)
    return [word if j is None else typed[j] for word, j in zip(words, _lined_up(typed, words), strict=True)]


def read_words(text: str) -> list[str]:
    """The words a translator reads in a typed sentence: source_words(text), except a name that is also a word
    (mt_dictionary.name_words: Grace, Mark, Brown), kept as typed where the text shows it is a name, so that the
    dictionary does not read it as the word (优雅, 记号, 棕色) and the translator reads it as <unk:noun>:

    - a first name of the list typed with a capital, not the first word of its sentence (*My sister Grace works at a
      bank*; first in a sentence, a capital says nothing: *Grace is a virtue*), unless the word cannot be a noun
      (mt_dictionary.names_no_noun: Sue, Rob, Sandy) and the sentence's verb follows it (*Sue likes apples*);
    - a surname of the list so typed right after a title or a first name typed with a capital (*Mrs Brown*, *Mr.
      White*, *John White*; a first name of the list before it is then a name too, first in its sentence or not:
      *Mark Brown is my teacher*);
    - never in a text typed in Title Case: more than half of the words after each sentence's first that the
      dictionary reads (not *I*, a title or a name of the list) begin with a capital (*The Green Mile*).

    A name of several words of the list of names, each typed with a capital (New York, Hong Kong, the Great Wall), is
    read as one word (New York), which the translators read as <unk:noun> and the list writes (纽约); so is a full
    name, a first name and a surname each typed with a capital (mt_dictionary.is_full_name: John Smith, Mark Brown),
    whose parts' Chinese are written with a middle dot (约翰·史密斯): side by side, two unknown nouns lost one. And a
    number of two words (twenty-one, thirty five) is read as its digits (21, 35), as a number of two words typed in
    digits is (source_words: DIGITS). An -ing word that is also a noun of its own is read as the noun after a
    determiner (nouns_of_their_own: the meeting -> "meeting (noun)", which a translator reads as <unk:noun> and the
    dictionary writes 会议, not meet's 见面).

    source_words wrote the training data and is left as it was; the corpus is lower case, so it holds no such name.
    read_words("My sister Grace met Mrs Brown") -> ['my', 'sister', 'Grace', 'met', 'mrs', 'Brown']."""
    text = TWO_WORD_NUMBER.sub(lambda found: str(10 * TENS_OF[found[1].lower()] + ONES.index(found[2].lower())), text)
    words = source_words(text)
    found = list(TYPED_WORD.finditer(text))
    typed = [match.group() for match in found]
    starts = {
        i
        for i, match in enumerate(found)
        if SENTENCE_START.search(text, 0, match.start()) and not (i and typed[i - 1].lower() in TITLES)
    }
    names = mt_dictionary.name_words()
    runs = _names_of_several_words(typed)  # typed start -> its end, for New York, Hong Kong, the Great Wall
    runs |= _full_names(typed, runs)  # and for John Smith
    in_runs = {j for start, end in runs.items() for j in range(start, end)}
    plain = [  # the words that say whether the text is in Title Case: read by the dictionary, no name, no title
        word
        for i, word in enumerate(typed)
        if i not in starts and i not in in_runs and word.isalpha() and word != "I" and word.lower() not in names
        and word.lower() not in TITLES and mt_dictionary.lookup(word.lower()) is not None
    ]  # fmt: skip
    if 2 * sum(word[0].isupper() for word in plain) > len(plain):  # Title Case: a capital says nothing
        return words

    def kind(j: int) -> str | None:  # the typed word's kind in the list when typed with a capital (a title: "title")
        word = typed[j]
        if not mt_dictionary.is_capitalised(word):
            return None
        return "title" if word.lower() in TITLES else names.get(word.lower())

    no_noun = mt_dictionary.names_no_noun()
    is_name = {
        j: kind(j) == "given" and (j not in starts or typed[j].lower() in no_noun and _verb_after(typed, j))
        for j in range(len(typed))
    }
    for j in range(1, len(typed)):  # a surname after a title or a first name, and a first name before such a surname
        if kind(j) == "surname" and kind(j - 1) in ("title", "given", "first"):
            is_name[j] = True
            is_name[j - 1] = is_name[j - 1] or kind(j - 1) == "given"  # Mark Brown, first in its sentence too
    lined, read, i = _lined_up(typed, words), [], 0
    while i < len(words):
        j = lined[i]
        end = runs.get(j) if j is not None else None
        if end is not None and lined[i : i + end - j] == list(range(j, end)):  # a name of several words: one word
            read.append(" ".join(typed[j:end]))
            i += end - j
            continue
        read.append(typed[j] if j is not None and is_name[j] else words[i])
        i += 1
    return nouns_of_their_own(read)


def nouns_of_their_own(read: list[str]) -> list[str]:
    """The read words with each -ing word that is also a noun of its own (mt_dictionary.own_noun: meeting, wedding)
    after a determiner, or a determiner and adjectives (DETERMINERS: the meeting, my sister's wedding, an important
    meeting), read as that noun ("meeting (noun)", mt_dictionary.as_noun); elsewhere it is the verb's form (we are
    meeting at nine)."""
    nouns = {i for i, word in enumerate(read) if mt_dictionary.own_noun(word) and _after_a_determiner(read, i)}
    return [mt_dictionary.as_noun(word) if i in nouns else word for i, word in enumerate(read)]


def _after_a_determiner(read: list[str], i: int) -> bool:
    """Whether read[i] follows a determiner, right after it or after adjectives (the dictionary's reading)."""
    j = i - 1
    while j >= 0 and read[j] not in DETERMINERS and _is_adjective(read[j]):
        j -= 1
    return j >= 0 and read[j] in DETERMINERS


def _is_adjective(word: str) -> bool:
    reading = mt_dictionary.lookup(word)
    return reading is not None and reading.role == "adjective"


def _verb_after(typed: list[str], j: int) -> bool:
    """Whether the typed word after the j-th is a verb that has a subject before it: one the dictionary reads in
    the third person or the past (likes, is, went), or a modal (can, will)."""
    if j + 1 >= len(typed):
        return False
    word = typed[j + 1].lower()
    reading = mt_dictionary.lookup(word)
    return word in MODALS or (reading is not None and reading.role == "verb" and reading.tag in ("present-3rd", "past"))


def _full_names(typed: list[str], taken: dict[int, int]) -> dict[int, int]:
    """start -> start + 2 of each full name typed (mt_dictionary.is_full_name: John Smith; a title is no surname),
    left to right, outside the names of several words ``taken`` (start -> end)."""
    inside = {j for start, end in taken.items() for j in range(start, end)}
    found, j = {}, 0
    while j + 1 < len(typed):
        if (j not in inside and j + 1 not in inside and typed[j + 1].lower() not in TITLES
                and mt_dictionary.is_full_name(typed[j], typed[j + 1])):  # fmt: skip
            found[j], j = j + 2, j + 2
        else:
            j += 1
    return found


def _names_of_several_words(typed: list[str]) -> dict[int, int]:
    """start -> end (exclusive) of each run of typed words, each with a capital, that is a name of several words of
    the list of names (mt_dictionary.names: new york, hong kong, great wall), the longest first, left to right."""
    several, longest = mt_dictionary.names_of_several_words(), mt_dictionary.most_words_in_a_name()
    capital = [mt_dictionary.is_capitalised(word) for word in typed]  # the names' words have two letters or more
    runs, j = {}, 0
    while j < len(typed):
        end = next(
            (k for k in range(min(len(typed), j + longest), j + 1, -1)
             if all(capital[j:k]) and " ".join(typed[j:k]).lower() in several),
            None,
        )  # fmt: skip
        if end is None:
            j += 1
        else:
            runs[j], j = end, end
    return runs


def _prepare(model: Translator, text: str) -> tuple[list[str], list[int], list[str]]:
    words = read_words(text)
    if not words:
        raise ValueError("the source sentence has no English words")
    if len(words) > MAX_SOURCE_WORDS:
        raise ValueError(f"the source sentence has {len(words)} words; the translators take at most {MAX_SOURCE_WORDS}")
    ids = [model.vocabulary.source_id(w) for w in words]
    unknown = [w for w in words if not model.vocabulary.knows(w)]
    return words, ids, unknown


def _record(model: Translator, token_id: int, logits: np.ndarray, attention) -> Step:
    log_p = log_softmax(logits)
    return Step(model.vocabulary.target[token_id], token_id, float(np.exp(log_p[token_id])), logits, attention)


def candidate_mask(model: Translator, source: list[str]) -> np.ndarray:
    """(n_target_vocab,) True for each word a translation of ``source`` may write: every word that is not a content
    word (particles, measure words, pronouns, <unk>, </s>), and the content words that translate one of the source
    words by the dictionary, the lexicon or the corpus (mt_check.allowed_content). Jean et al. 2015 decode with such
    a candidate list for speed; here it keeps the decoder from writing a word no English word asked for."""
    content = mt_check.content_words()
    allowed = mt_check.allowed_content(source)
    return np.array([word not in content or word in allowed for word in model.vocabulary.target])


LOOP_LENGTHS = (1, 2, 3)  # the lengths of a repeated run of words that loop_breakers stops at its third time


def loop_breakers(written: list[int]) -> list[int]:
    """The words that would complete the third repetition in a row of a run of one to three words at the end of
    ``written`` (target ids so far): 星期天 ×3, 和 女朋友 ×3, 红 黑 黑 ×3. A decoder trained on short sentences can
    fall into such a loop and write it to its word limit; the candidate list rules these words out as well. Never
    <unk>: each is replaced by the word attention points to, so three in a row may stand for three words."""
    ruled = []
    for k in LOOP_LENGTHS:
        if len(written) >= 3 * k - 1:
            run = written[len(written) - (3 * k - 1) :][:k]  # the run, twice and then all but its last word
            if written[len(written) - (3 * k - 1) :] == run + run + run[:-1] and run[-1] != UNK:
                ruled.append(run[-1])
    return ruled


def ruled_after(model: Translator, written: list[int]) -> list[int]:
    """What the candidate list rules out after ``written`` (target ids so far): the words that would loop
    (loop_breakers), and the last word again unless Chinese may write it twice in a row (Vocabulary.may_double)."""
    again = [written[-1]] if written and written[-1] not in model.vocabulary.may_double else []
    return loop_breakers(written) + again


def translate(
    model: Translator,
    text: str,
    beam: int = 1,
    max_words: int = MAX_TARGET_WORDS,
    candidates: bool = False,
    end_guard: bool = True,
) -> Translation:
    """Greedy decoding (beam=1) or beam search of the given width; every step's attention is kept.

    ``candidates``: each word is chosen among the candidate list only (candidate_mask, less what ruled_after rules
    out after the words so far: a loop, a word twice in a row); where the model's own first choice is ruled out,
    the step keeps it in ``preferred``. The translation also may not end while an English word is left out, if a few
    more words translate it (the end guard: _greedy, and _beam_search's order of finished translations;
    ``end_guard=False`` leaves it out, to measure it). The probabilities stay the model's own."""
    words, ids, unknown = _prepare(model, text)
    state = model.network.start(ids)
    mask = candidate_mask(model, words) if candidates else None  # (n_target_vocab,)
    sentence = Translation(model.name, words, unknown, [], [], 0.0)  # nothing written yet
    likeliest = None  # beam search's likeliest finished translation, when the end guard passed it over
    if beam <= 1:
        steps, state = _greedy(model, sentence, state, max_words, mask, end_guard)
        total = sum(math.log(s.probability) for s in steps)
    else:
        steps, total, state, likeliest = _beam_search(model, sentence, state, beam, max_words, mask, end_guard)
    extra = {"beam": max(beam, 1), "state": state}  # the last state: the encoder's vectors and the cached keys
    if likeliest is not None:
        extra["likeliest"] = likeliest
    return sentence.with_steps(steps, total, extra)


END_GUARD_WORDS = 4  # how many words past the point it wanted to end the decoder may write to translate a word


def left_out(source: Translation, steps: list[Step]) -> tuple[str, ...]:
    """The English words a translation must not lose (mt_check.must_translate: content words, question words that
    ask, numbers) that the words of ``steps`` (a translation so far of ``source``'s words, with every <unk> replaced
    as a reader sees it) leave out, by the dictionary's check (mt_check.check): what the end guard waits for. Only
    words the dictionary as built reads (mt_dictionary.lookup), not a name of the list of names nor a plural of
    mt/plurals.tsv: the page marks one left out, but waiting for a name made RNNsearch write it in the wrong place
    and garble the rest (*Mr Chen is my teacher* -> 先生 陈 我的 老师; rule 46, tools/translator/README.md), and
    waiting for a plural cost RNNencdec a sentence of HSK 1-3 (rule 49)."""
    output = output_words(source.with_steps(steps))
    words = [source.source[j] for j in mt_check.check(source.source, output).left_out]
    return tuple(word for word in words if mt_dictionary.lookup(word) is not None)


@dataclass
class _Ending:
    """Where a greedy decoder wanted to end while English words were left out: what it had written, the </s> step
    it would have taken, the state after it, and the words left out."""

    steps: list[Step]
    end: Step
    state: dict
    left_out: tuple[str, ...]


def _greedy(
    model: Translator, source: Translation, state: dict, max_words: int, mask: np.ndarray | None, guard: bool
) -> tuple[list[Step], dict]:
    """The likeliest word at each step (among the candidates, with ``mask``); -> the steps (the last: </s>, unless
    ``max_words`` ran out) and the last state.

    The end guard (``guard``, with the candidates): where the decoder would write </s> while the check marks an
    English word left out (Tu et al. 2016 measure the same neglect with attention's coverage), </s> is ruled out too
    and the model goes on with its likeliest candidate. The words it writes are kept if, within END_GUARD_WORDS
    words or when it wants to end again, fewer English words are left out; otherwise the translation ends where the
    model wanted it to. "He is sick and goes to the hospital": 他 很 生病 would end with goes and hospital left out;
    the guard keeps 去 医院."""
    net = model.network
    steps: list[Step] = []
    held: _Ending | None = None  # the end the guard put off, while the words after it are on trial
    y = BOS
    while True:
        logits, state, attention = net.step(state, y)
        first = int(np.argmax(logits))  # the model's own choice
        allowed = None if mask is None else _without(mask, ruled_after(model, [s.token_id for s in steps]))
        y = first if allowed is None or allowed[first] else int(np.argmax(np.where(allowed, logits, -np.inf)))
        step = _record(model, y, logits, attention)
        if y != first:  # ruled out by the candidate list
            step.preferred, step.ruled_by = _ruled_out(model, mask, logits, first)
        if held is not None and (
            y == EOS or len(steps) - len(held.steps) >= END_GUARD_WORDS or len(steps) >= max_words
        ):
            if len(left_out(source, steps)) >= len(held.left_out):  # the words on trial translated nothing more
                return [*held.steps, held.end], held.state
            held = None  # they did: kept
        if y == EOS and guard and mask is not None and len(steps) < max_words and (missing := left_out(source, steps)):
            held = _Ending(list(steps), step, state, missing)
            y = int(np.argmax(np.where(_without(allowed, [EOS]), logits, -np.inf)))
            step = _record(model, y, logits, attention)
            step.preferred = _first_choice(model, logits, first)
            step.ruled_by = "left_out" if first == EOS else held.end.ruled_by  # </s>, or a first choice before it
            step.left_out = missing
        steps.append(step)
        if y == EOS or len(steps) > max_words:
            return steps, state


def _first_choice(model: Translator, logits: np.ndarray, first: int) -> tuple[str, float]:
    """The model's own first choice and its probability, as a step keeps it when the candidates rule it out."""
    return model.vocabulary.target[first], float(np.exp(log_softmax(logits)[first]))


def _ruled_out(model: Translator, mask: np.ndarray, logits: np.ndarray, first: int) -> tuple[tuple[str, float], str]:
    """A first choice the candidate list (``mask``, before the loop breakers) ruled out: it, and why: "made_up"
    (no English word of the sentence asks for it) or "loop" (it is a candidate, but would repeat a run)."""
    return _first_choice(model, logits, first), "made_up" if not mask[first] else "loop"


def _without(mask: np.ndarray, token_ids: list[int]) -> np.ndarray:
    """The candidate list (n_target_vocab,) less ``token_ids``."""
    if not token_ids:
        return mask
    allowed = mask.copy()
    allowed[token_ids] = False
    return allowed


def _beam_search(
    model: Translator,
    sentence: Translation,
    state: dict,
    width: int,
    max_words: int,
    mask: np.ndarray | None = None,
    guard: bool = True,
) -> tuple[list[Step], float, dict, Translation | None]:
    """Keep the ``width`` most probable partial translations; stop when the best finished one beats every open one.

    Log-probabilities only fall as words are added, so a finished hypothesis that scores above every
    open one cannot be overtaken. ``mask`` (n_target_vocab,): the candidate list, as in translate; with it and
    ``guard``, the end guard: a finished translation that leaves English words out (left_out) ranks after every
    one that leaves out fewer, and the search goes on for END_GUARD_WORDS words after the likeliest way on (the
    step's best candidate) first ends so. Not after any ending in the beam: a wide beam holds unlikely short endings
    (the first clause and </s>, early), and four words after one of them the whole translations have not ended yet.
    -> the chosen steps, their log-probability, the last state, and the likeliest finished translation of
    ``sentence`` (nothing written yet) when the end guard chose another (else None).
    """
    net = model.network
    beams = [(0.0, [], BOS, state)]  # (log p, steps, last word, state)
    finished: list[tuple[int, float, list[Step], dict]] = []  # (words left out, log p, steps, state)
    guard_ends = None  # the step at which the search stops, once a translation leaving words out has ended
    for length in range(max_words + 1):
        candidates = []
        stepped = zip(beams, *net.steps([b[3] for b in beams], [b[2] for b in beams]), strict=True)  # all at once
        for (score, steps, _, _), logits, new_state, attention in stepped:
            log_p = log_softmax(logits)
            first = int(np.argmax(log_p))  # the model's own first choice
            allowed = None if mask is None else _without(mask, ruled_after(model, [s.token_id for s in steps]))
            ruled = allowed is not None and not allowed[first]
            preferred, ruled_by = _ruled_out(model, mask, logits, first) if ruled else (None, None)
            for token_id in _best(log_p, allowed, width):
                step = Step(model.vocabulary.target[token_id], int(token_id), float(np.exp(log_p[token_id])), logits,
                            attention, preferred, ruled_by)  # fmt: skip
                candidates.append((score + float(log_p[token_id]), steps + [step], int(token_id), new_state))
        candidates.sort(key=lambda c: -c[0])  # stable: ties keep the earlier beam's order
        beams = []
        for rank, (score, steps, y, st) in enumerate(candidates[:width]):
            if y == EOS:
                missing = len(left_out(sentence, steps[:-1])) if guard and mask is not None else 0
                finished.append((missing, score, steps, st))
                if missing and guard_ends is None and rank == 0:  # the likeliest way on ends, words left out
                    guard_ends = length + END_GUARD_WORDS
            else:
                beams.append((score, steps, y, st))
        best_whole = max((f[1] for f in finished if f[0] == 0), default=-math.inf)
        if not beams or best_whole >= beams[0][0] or length == guard_ends:
            break
    if not finished:  # nothing ended within max_words: the best open one
        finished = [(0, beams[0][0], beams[0][1], beams[0][3])]
    chosen = min(finished, key=lambda f: (f[0], -f[1]))  # the fewest words left out, then the likeliest
    likeliest = max(finished, key=lambda f: f[1])  # the first of equals: stable, as min's
    passed = sentence.with_steps(likeliest[2], likeliest[1]) if likeliest is not chosen else None
    return chosen[2], chosen[1], chosen[3], passed


def _best(log_p: np.ndarray, allowed: np.ndarray | None, k: int) -> np.ndarray:
    """The ``k`` likeliest words (n_target_vocab,) -> (≤ k,), among ``allowed`` if given, likeliest first (ties: the
    lower id first, as a stable sort of the whole vocabulary would give). A partition finds them without sorting the
    whole vocabulary, which was most of a beam step's own cost."""
    scores = log_p if allowed is None else np.where(allowed, log_p, -np.inf)
    k = min(k, int(np.isfinite(scores).sum()))
    if k == 0:
        return np.arange(0)
    kth = -np.partition(-scores, k - 1)[k - 1]  # the k-th largest score
    top = np.flatnonzero(scores >= kth)  # every word scoring as high, ties included, by id
    return top[np.argsort(-scores[top], kind="stable")][:k]


def teacher_forced(model: Translator, source_ids: list[int], target_ids: list[int]) -> Iterator[tuple]:
    """Teacher forcing: the decoder fed <s> and then each of ``target_ids`` in turn, whatever it would have chosen.
    Yields, for each target word, (its id, the step's logits (n_target_vocab,), the state after the step, the
    step's attention)."""
    net = model.network
    state = net.start(source_ids)
    y = BOS
    for token_id in target_ids:
        logits, state, attention = net.step(state, y)
        yield token_id, logits, state, attention
        y = token_id


def forced(model: Translator, text: str, target: str) -> Translation:
    """The model made to produce ``target`` (Chinese words separated by spaces).

    Shows the attention it pays and the probability of each given word.
    """
    words, ids, unknown = _prepare(model, text)
    index = {w: i for i, w in enumerate(model.vocabulary.target)}
    target_words = target.split()
    target_ids = [index.get(w, UNK) for w in target_words] + [EOS]
    steps = []
    total = 0.0
    for token_id, logits, state, attention in teacher_forced(model, ids, target_ids):  # noqa: B007 (state: the last, below)
        step = _record(model, token_id, logits, attention)
        if token_id != EOS:
            step.token = target_words[len(steps)]
        steps.append(step)
        total += float(log_softmax(logits)[token_id])
    unknown_target = [w for w in target_words if w not in index]
    extra = {"unknown_target": unknown_target, "state": state}  # the last state: the encoder's and the cached keys
    return Translation(model.name, words, unknown, target_words, steps, total, extra)


# ---------------------------------------------------------------------------
# Unknown words: an emitted <unk> replaced by the dictionary's word for the source word attention points to
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Replacement:
    """What stands in the output for an emitted <unk> (Luong et al. 2015, Jean et al. 2015).

    origin: "dictionary" (the dictionary's Chinese for the source word attention pointed to), "english" (that
    word is in no dictionary: kept in English), "none" (rnnencdec: no attention to point with, <unk> stays)."""

    position: int  # the target word's position in Translation.target
    source: int | None  # the English position with the largest weight; None without attention
    word: str  # what the output shows
    origin: str


def pointer_weights(attention: Attention) -> np.ndarray:
    """The weights that say where a target word looked: RNNsearch's a_i (n_source,); the Transformer's last
    layer, the mean of its heads (n_source,), the alignment train.py measures."""
    weights = attention.weights  # (n_source,) or (layers, heads, n_source)
    return weights if weights.ndim == 1 else weights[-1].mean(axis=0)


def replace_unknown(translation: Translation) -> list[Replacement]:
    """One Replacement per <unk> in the output, in order."""
    replacements = []
    for i, step in enumerate(translation.steps[: len(translation.target)]):
        if step.token_id != UNK:
            continue
        if step.attention is None:
            replacements.append(Replacement(i, None, "<unk>", "none"))
            continue
        j = int(np.argmax(pointer_weights(step.attention)))
        source = translation.source[j]
        chinese = dictionary_word(source, translation.target[i + 1] if i + 1 < len(translation.target) else None)
        if chinese is not None:
            replacements.append(Replacement(i, j, chinese, "dictionary"))
        else:
            replacements.append(Replacement(i, j, source, "english"))
    return replacements


def dictionary_word(word: str, following: str | None = None) -> str | None:
    """What stands for an English word the translator could not write: the dictionary's Chinese (a manner adverb
    with 地: carefully -> 小心地, unless the translation's ``following`` word is the 地 the model wrote itself:
    fluently -> 流利 地), a name's Chinese from the list of names (chen -> 陈, for a word the dictionary gives none),
    or None for a word in neither or without a Chinese counterpart."""
    reading = mt_dictionary.reading(word)
    if reading is None or not reading.chinese:
        return mt_dictionary.name(word)
    return reading.chinese + ("地" if reading.tag == "adverb" and following != "地" else "")


def output_words(translation: Translation, replacements: list[Replacement] | None = None) -> list[str]:
    """The target with every <unk> replaced (by ``replacements``, else replace_unknown's): what a reader of the
    translation sees."""
    words = list(translation.target)
    for r in replace_unknown(translation) if replacements is None else replacements:
        words[r.position] = r.word
    return words


# ---------------------------------------------------------------------------
# Leave one out: what each English word is worth to each Chinese word
# ---------------------------------------------------------------------------


def forced_probabilities(model: Translator, source_ids: list[int], target_ids: list[int]) -> np.ndarray:
    """Teacher forcing: the probability of each of ``target_ids`` (n_target,) given the source and the words before
    it. -> (n_target,)."""
    probabilities = np.empty(len(target_ids))  # (n_target,)
    for i, (token_id, logits, _, _) in enumerate(teacher_forced(model, source_ids, target_ids)):
        probabilities[i] = np.exp(log_softmax(logits)[token_id])
    return probabilities


def leave_one_out(model: Translator, text: str, target_ids: list[int]) -> np.ndarray:
    """For each target word, the drop in its probability when each source word in turn is read as its typed <unk>.

    drop[i, j] = p(y_i | y_<i, x) - p(y_i | y_<i, x with x_j -> <unk>), the target words forced in both (teacher
    forcing on the same translation). Positive: word j helped y_i; negative: y_i was likelier without it; 0 for
    a word the model already reads as <unk>. One decoding of the whole target per source word (forward passes
    only). ``target_ids`` (n_target,) -> (n_target, n_source).
    """
    words, ids, _ = _prepare(model, text)
    with_every_word = forced_probabilities(model, ids, target_ids)  # (n_target,)
    drop = np.empty((len(target_ids), len(ids)))  # (n_target, n_source)
    for j in range(len(ids)):
        without_j = ids[:j] + [model.vocabulary.unknown_id(words[j])] + ids[j + 1 :]
        drop[:, j] = with_every_word - forced_probabilities(model, without_j, target_ids)
    return drop
