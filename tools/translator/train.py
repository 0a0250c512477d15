"""Train the three English→Chinese translators on the generated corpus, and measure them.

    /work/torchvenv/bin/python -m tools.translator.train --out app/engine/models/mt        # all three
    /work/torchvenv/bin/python -m tools.translator.train --out DIR --models rnnsearch      # one

Run in the separate torch venv (python3 -m venv /work/torchvenv && /work/torchvenv/bin/pip install -r
tools/translator/requirements.txt), from the repository root. One thread, fixed seeds, a fixed number of
epochs: the same machine and versions give the same weights (each <name>.json records torch's and numpy's).

The models (the names the app uses):

    rnnencdec       bi-GRU encoder; its last states are ONE context vector c for every target word
    rnnsearch       bi-GRU encoder, GRU decoder, additive attention e_ij = vᵀ tanh(W s_{i-1} + U h_j),
                    a_i = softmax(e_i), c_i = Σ_j a_ij h_j
    transformer-mt  a small Transformer (pre-LayerNorm, sinusoidal positions, scaled dot-product
                    attention with several heads; decoder self-attention with a causal mask, cross-attention)

Writes, per model, <name>.npz (float32 weights, the names app/engine/models/translator.py reads)
and <name>.json (settings, loss curves, test figures); vocab.json (both vocabularies);
report.json (every model's figures side by side, with the training times).
"""

import argparse
import hashlib
import json
import math
import random
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from app.engine.models import mt_dictionary, translator
from tools.translator import dataset, everyday_grammar, real_pairs, tatoeba, unknowns

PAD, BOS, EOS, UNK = 0, 1, 2, 3
SRC_SPECIALS = ["<pad>", "<unk>", *mt_dictionary.UNKNOWN_TOKENS]  # <unk> typed by role and form
SRC_UNK = 1
TGT_SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]
LENGTH_BUCKETS = [(1, 5), (6, 10), (11, 15), (16, 20), (21, 25)]

SETTINGS = {
    "rnnencdec": {"emb": 64, "hidden": 128, "epochs": 6, "lr": 2e-3, "batch": 64},
    "rnnsearch": {"emb": 64, "hidden": 128, "attn": 128, "epochs": 10, "lr": 2e-3, "batch": 64, "dropout": 0.3},
    "transformer-mt": {
        "d_model": 128,
        "heads": 4,
        "ffn": 256,
        "layers": 2,
        "epochs": 10,
        "lr": 1e-3,
        "warmup": 400,
        "batch": 64,
        "dropout": 0.3,
    },  # fmt: skip
}

# ---------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------


def dropout(p):
    """Dropout while training (a model's SETTINGS `dropout`, or `--dropout`); p = 0: none, and no random draws,
    so a model trained without it trains exactly as before dropout existed (RNNencdec has none)."""
    return nn.Dropout(p) if p else nn.Identity()


class Encoder(nn.Module):
    """Embedding + bidirectional GRU: h_j = [forward_j; backward_j], (batch, n_src, 2 hidden)."""

    def __init__(self, n_src, emb, hidden, p_drop=0.0):
        super().__init__()
        self.embed = nn.Embedding(n_src, emb, padding_idx=PAD)
        self.drop = dropout(p_drop)
        self.gru = nn.GRU(emb, hidden, batch_first=True, bidirectional=True)

    def forward(self, src, lengths):
        embedded = self.drop(self.embed(src))
        packed = nn.utils.rnn.pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        out, last = self.gru(packed)
        h, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
        return h, last  # last (2, batch, hidden): the forward's last state, the backward's first-word state


class RNNSearch(nn.Module):
    def __init__(self, n_src, n_tgt, emb, hidden, attn, p_drop=0.0):
        super().__init__()
        self.encoder = Encoder(n_src, emb, hidden, p_drop)
        self.drop = dropout(p_drop)  # on the previous word's embedding and the deep output's input
        self.embed = nn.Embedding(n_tgt, emb, padding_idx=PAD)
        self.init = nn.Linear(hidden, hidden)  # s_0 = tanh(W_init backward_1)
        self.W = nn.Linear(hidden, attn, bias=False)  # the decoder state's part of the score
        self.U = nn.Linear(2 * hidden, attn, bias=False)  # the annotations' part
        self.v = nn.Linear(attn, 1, bias=False)
        self.cell = nn.GRUCell(emb + 2 * hidden, hidden)
        self.out = nn.Linear(hidden + 2 * hidden + emb, n_tgt)

    def encode(self, src, lengths):
        h, last = self.encoder(src, lengths)
        return h, torch.tanh(self.init(last[1]))

    def step(self, y_prev, s_prev, h, keys, mask):
        """One decoder step: attention with s_{i-1}, then the new state and the logits of y_i."""
        scores = self.v(torch.tanh(self.W(s_prev)[:, None, :] + keys)).squeeze(-1)  # (batch, n_src)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        context = torch.bmm(weights[:, None, :], h).squeeze(1)  # (batch, 2 hidden)
        e = self.drop(self.embed(y_prev))
        s = self.cell(torch.cat([e, context], -1), s_prev)
        logits = self.out(self.drop(torch.cat([s, context, e], -1)))
        return logits, s, weights

    def forward(self, src, lengths, tgt_in):
        h, s = self.encode(src, lengths)
        keys = self.U(h)
        mask = src != PAD
        logits, weights = [], []
        for i in range(tgt_in.shape[1]):
            step_logits, s, w = self.step(tgt_in[:, i], s, h, keys, mask)
            logits.append(step_logits)
            weights.append(w)
        return torch.stack(logits, 1), torch.stack(weights, 1)  # (batch, n_tgt, vocab), (batch, n_tgt, n_src)

    def start(self, src, lengths):
        h, s = self.encode(src, lengths)
        return {"h": h, "keys": self.U(h), "mask": src != PAD, "s": s}

    def next(self, state, y_prev):
        logits, state["s"], weights = self.step(y_prev, state["s"], state["h"], state["keys"], state["mask"])
        return logits, weights


class RNNEncDec(nn.Module):
    """The same encoder; c = [forward_last; backward_first] is the one context of every step."""

    def __init__(self, n_src, n_tgt, emb, hidden):
        super().__init__()
        self.encoder = Encoder(n_src, emb, hidden)
        self.embed = nn.Embedding(n_tgt, emb, padding_idx=PAD)
        self.init = nn.Linear(2 * hidden, hidden)
        self.cell = nn.GRUCell(emb + 2 * hidden, hidden)
        self.out = nn.Linear(hidden + 2 * hidden + emb, n_tgt)

    def encode(self, src, lengths):
        _, last = self.encoder(src, lengths)
        c = torch.cat([last[0], last[1]], -1)  # (batch, 2 hidden)
        return c, torch.tanh(self.init(c))

    def step(self, y_prev, s_prev, c):
        e = self.embed(y_prev)
        s = self.cell(torch.cat([e, c], -1), s_prev)
        return self.out(torch.cat([s, c, e], -1)), s

    def forward(self, src, lengths, tgt_in):
        c, s = self.encode(src, lengths)
        logits = []
        for i in range(tgt_in.shape[1]):
            step_logits, s = self.step(tgt_in[:, i], s, c)
            logits.append(step_logits)
        return torch.stack(logits, 1), None

    def start(self, src, lengths):
        c, s = self.encode(src, lengths)
        return {"c": c, "s": s}

    def next(self, state, y_prev):
        logits, state["s"] = self.step(y_prev, state["s"], state["c"])
        return logits, None


def positions(n, d):
    """The sinusoidal position code (the same formula as app/engine/models/translator.py)."""
    pos = np.arange(n)[:, None]
    i = np.arange(0, d, 2)[None, :]
    angle = pos / np.power(10000.0, i / d)
    code = np.zeros((n, d), dtype=np.float32)
    code[:, 0::2] = np.sin(angle)
    code[:, 1::2] = np.cos(angle)
    return torch.from_numpy(code)


class MultiHead(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, memory, mask):
        b, n, d = x.shape
        m = memory.shape[1]
        dh = d // self.heads
        q = self.q(x).view(b, n, self.heads, dh).transpose(1, 2)  # (b, heads, n, dh)
        k = self.k(memory).view(b, m, self.heads, dh).transpose(1, 2)
        v = self.v(memory).view(b, m, self.heads, dh).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh)  # (b, heads, n, m)
        scores = scores.masked_fill(~mask[:, None], float("-inf"))
        weights = torch.softmax(scores, -1)
        out = (weights @ v).transpose(1, 2).reshape(b, n, d)
        return self.o(out), weights


class Block(nn.Module):
    def __init__(self, d, heads, ffn, cross, p_drop=0.0):
        super().__init__()
        self.drop = dropout(p_drop)  # on each sub-layer's output, before it joins the residual stream
        self.ln1 = nn.LayerNorm(d)
        self.self_attn = MultiHead(d, heads)
        self.cross = cross
        if cross:
            self.ln2 = nn.LayerNorm(d)
            self.cross_attn = MultiHead(d, heads)
        self.ln3 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, ffn)
        self.ff2 = nn.Linear(ffn, d)

    def forward(self, x, self_mask, memory=None, cross_mask=None):
        y = self.ln1(x)
        a, self_w = self.self_attn(y, y, self_mask)
        x = x + self.drop(a)
        cross_w = None
        if self.cross:
            a, cross_w = self.cross_attn(self.ln2(x), memory, cross_mask)
            x = x + self.drop(a)
        x = x + self.drop(self.ff2(F.relu(self.ff1(self.ln3(x)))))
        return x, self_w, cross_w


class Transformer(nn.Module):
    def __init__(self, n_src, n_tgt, d_model, heads, ffn, layers, p_drop=0.0):
        super().__init__()
        self.d = d_model
        self.src_embed = nn.Embedding(n_src, d_model, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(n_tgt, d_model, padding_idx=PAD)
        self.drop = dropout(p_drop)  # on the embeddings with their positions
        self.enc = nn.ModuleList(Block(d_model, heads, ffn, False, p_drop) for _ in range(layers))
        self.dec = nn.ModuleList(Block(d_model, heads, ffn, True, p_drop) for _ in range(layers))
        self.enc_ln = nn.LayerNorm(d_model)
        self.dec_ln = nn.LayerNorm(d_model)
        self.out = nn.Linear(d_model, n_tgt)
        self.register_buffer("pos", positions(64, d_model), persistent=False)
        # Embeddings start at N(0, 1/d_model): times √d_model they are about as large as the position code.
        # (PyTorch's default N(0, 1), times √128 ≈ 11, drowned the positions, whose entries are at most 1:
        # the model could hardly tell word order and its cross-attention aligned poorly.)
        for table in (self.src_embed, self.tgt_embed):
            nn.init.normal_(table.weight, 0.0, d_model**-0.5)
            with torch.no_grad():
                table.weight[PAD].zero_()

    def embed(self, table, ids):
        return self.drop(table(ids) * math.sqrt(self.d) + self.pos[: ids.shape[1]])

    def encode(self, src):
        mask = (src != PAD)[:, None, :].expand(-1, src.shape[1], -1)
        x = self.embed(self.src_embed, src)
        for block in self.enc:
            x, _, _ = block(x, mask)
        return self.enc_ln(x)

    def decode(self, memory, src, tgt_in):
        n = tgt_in.shape[1]
        causal = torch.tril(torch.ones(n, n, dtype=torch.bool))[None].expand(tgt_in.shape[0], -1, -1)
        cross_mask = (src != PAD)[:, None, :].expand(-1, n, -1)
        x = self.embed(self.tgt_embed, tgt_in)
        crosses = []
        for block in self.dec:
            x, _, cross = block(x, causal, memory, cross_mask)
            crosses.append(cross)
        return self.out(self.dec_ln(x)), torch.stack(crosses, 1)  # (b, n, vocab), (b, layers, heads, n, m)

    def forward(self, src, lengths, tgt_in):
        logits, cross = self.decode(self.encode(src), src, tgt_in)
        return logits, cross.permute(0, 3, 1, 2, 4)  # (b, n, layers, heads, m)

    def start(self, src, lengths):
        return {"memory": self.encode(src), "src": src, "ys": None}

    def next(self, state, y_prev):
        ys = y_prev[:, None] if state["ys"] is None else torch.cat([state["ys"], y_prev[:, None]], 1)
        state["ys"] = ys
        logits, cross = self.decode(state["memory"], state["src"], ys)
        return logits[:, -1], cross[:, :, :, -1]  # (b, vocab), (b, layers, heads, m)


def build(name, n_src, n_tgt):
    s = SETTINGS[name]
    if name == "rnnsearch":
        return RNNSearch(n_src, n_tgt, s["emb"], s["hidden"], s["attn"], s.get("dropout", 0.0))
    if name == "rnnencdec":
        return RNNEncDec(n_src, n_tgt, s["emb"], s["hidden"])
    return Transformer(n_src, n_tgt, s["d_model"], s["heads"], s["ffn"], s["layers"], s.get("dropout", 0.0))


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def vocabularies(train):
    """Every word of the training pairs but the rare ones (everyday_grammar.RARE_FORMS), which the models read
    as their typed <unk> and translate as <unk>, as they will read any word beyond the vocabulary."""
    en = sorted({w for p in train for w in p["en"].split()} - set(SRC_SPECIALS) - everyday_grammar.RARE_FORMS)
    zh = sorted({w for p in train for w in p["zh"].split()} - set(TGT_SPECIALS))
    return SRC_SPECIALS + en, TGT_SPECIALS + zh


def source_id(index, word):
    """The app's rule (translator.Vocabulary.source_id): the word's id, else its typed <unk>'s."""
    return index[word] if word in index else index.get(mt_dictionary.unknown_token(word), SRC_UNK)


def encode_pairs(pairs, src_vocab, tgt_vocab):
    s_index = {w: i for i, w in enumerate(src_vocab)}
    t_index = {w: i for i, w in enumerate(tgt_vocab)}
    out = []
    for p in pairs:
        src = [source_id(s_index, w) for w in p["en"].split()]
        tgt = [t_index.get(w, UNK) for w in p["zh"].split()]
        out.append((src, tgt, p))
    return out


def batch_tensors(items):
    n_src = max(len(s) for s, _, _ in items)
    n_tgt = max(len(t) for _, t, _ in items) + 1
    src = torch.full((len(items), n_src), PAD, dtype=torch.long)
    tgt_in = torch.full((len(items), n_tgt), PAD, dtype=torch.long)
    tgt_out = torch.full((len(items), n_tgt), PAD, dtype=torch.long)
    for b, (s, t, _) in enumerate(items):
        src[b, : len(s)] = torch.tensor(s)
        tgt_in[b, : len(t) + 1] = torch.tensor([BOS] + t)
        tgt_out[b, : len(t) + 1] = torch.tensor(t + [EOS])
    lengths = torch.tensor([len(s) for s, _, _ in items])
    return src, lengths, tgt_in, tgt_out


def batches(data, size, rng):
    """Batches of similar lengths (less padding), in a seeded random order."""
    order = sorted(range(len(data)), key=lambda i: (len(data[i][0]), rng.random()))
    chunks = [order[i : i + size] for i in range(0, len(order), size)]
    rng.shuffle(chunks)
    return [[data[i] for i in chunk] for chunk in chunks]


# ---------------------------------------------------------------------------
# Training and measuring
# ---------------------------------------------------------------------------


def loss_of(model, src, lengths, tgt_in, tgt_out):
    logits, _ = model(src, lengths, tgt_in)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1), ignore_index=PAD)


@torch.no_grad()
def greedy(model, items, max_len=40):
    src, lengths, _, _ = batch_tensors(items)
    state = model.start(src, lengths)
    y = torch.full((len(items),), BOS, dtype=torch.long)
    outputs = torch.zeros((len(items), 0), dtype=torch.long)
    done = torch.zeros(len(items), dtype=torch.bool)
    for _ in range(max_len):
        logits, _ = model.next(state, y)
        y = logits.argmax(-1)
        outputs = torch.cat([outputs, y[:, None]], 1)
        done |= y == EOS
        if done.all():
            break
    result = []
    for row in outputs.tolist():
        result.append(row[: row.index(EOS)] if EOS in row else row)
    return result


@torch.no_grad()
def forced_attention(model, items):
    """Attention of each gold target word (teacher forcing): (batch, n_tgt+1, [layers, heads,] n_src)."""
    src, lengths, tgt_in, _ = batch_tensors(items)
    _, weights = model(src, lengths, tgt_in)
    return weights


def alignment_counts(argmax_links, gold):
    """hits (largest weight on a gold source word), number of target words, |A ∩ S|, |A|, |S|."""
    hits = sum(1 for i, j in enumerate(argmax_links) if j in gold[i])
    sure = sum(len(g) for g in gold)
    return hits, len(gold), hits, len(argmax_links), sure


def evaluate(name, model, data, tgt_vocab, batch=200):
    model.eval()
    exact = 0
    by_bucket = {f"{lo}-{hi}": [0, 0, 0, 0] for lo, hi in LENGTH_BUCKETS}  # exact, n, word hits, words
    hits = words = inter = n_a = n_s = 0
    head_hits = None
    examples = []
    by_grammar = {"story": [0, 0], "everyday": [0, 0]}  # exact, n
    for start in range(0, len(data), batch):
        items = data[start : start + batch]
        outputs = greedy(model, items)
        weights = forced_attention(model, items)
        for b, ((_, tgt, pair), out) in enumerate(zip(items, outputs, strict=True)):
            n_en = len(pair["en"].split())
            key = next(f"{lo}-{hi}" for lo, hi in LENGTH_BUCKETS if lo <= n_en <= hi)
            same = out == tgt
            exact += same
            by_grammar[pair["grammar"]][0] += same
            by_grammar[pair["grammar"]][1] += 1
            row = by_bucket[key]
            row[0] += same
            row[1] += 1
            row[2] += sum(1 for i, t in enumerate(tgt) if i < len(out) and out[i] == t)
            row[3] += max(len(tgt), len(out))
            if len(examples) < 5 and not same:
                examples.append({"en": pair["en"], "gold": pair["zh"], "out": " ".join(tgt_vocab[i] for i in out)})
            if weights is None:
                continue
            gold = pair["align"]
            w = weights[b, : len(tgt)][..., :n_en]  # the EOS step has no gold word
            if w.dim() == 2:  # rnnsearch
                links = w.argmax(-1).tolist()
                h, n, i_, a_, s_ = alignment_counts(links, gold)
                hits, words, inter, n_a, n_s = hits + h, words + n, inter + i_, n_a + a_, n_s + s_
            else:  # transformer: (n_tgt, layers, heads, n_src); the mean of the last layer's heads is "the" alignment
                per_head = w.argmax(-1)  # (n_tgt, layers, heads)
                if head_hits is None:
                    head_hits = np.zeros(per_head.shape[1:])
                for i in range(len(tgt)):
                    head_hits += np.isin(per_head[i].numpy(), gold[i])
                links = w[:, -1].mean(1).argmax(-1).tolist()
                h, n, i_, a_, s_ = alignment_counts(links, gold)
                hits, words, inter, n_a, n_s = hits + h, words + n, inter + i_, n_a + a_, n_s + s_
    figures = {
        "sentences": len(data),
        "exact_match": exact / len(data),
        "by_length": {
            k: {"sentences": v[1], "exact_match": v[0] / max(v[1], 1), "word_accuracy": v[2] / max(v[3], 1)}
            for k, v in by_bucket.items()
        },
        "by_grammar": {k: {"sentences": v[1], "exact_match": v[0] / max(v[1], 1)} for k, v in by_grammar.items()},
        "errors": examples,
    }
    if words:
        figures["alignment_accuracy"] = hits / words
        figures["aer"] = 1 - 2 * inter / (n_a + n_s)
        figures["target_words"] = words
    if head_hits is not None:
        figures["alignment_accuracy_per_head"] = (head_hits / words).round(4).tolist()  # [layer][head]
        figures["alignment_note"] = "alignment_accuracy and aer use the mean of the last layer's heads"
    return figures


def start_vocabulary(start: Path, name: str) -> Path:
    """The vocabulary of the weights ``start/<name>.npz``: the model's own file where the folder is laid out as
    app/engine/models/mt is (the Transformer's transformer-mt.vocab.json, the RNNs' vocab.json:
    translator.MODELS), else a run's folder's one vocab.json."""
    own = start / translator.MODELS[name]["vocabulary"]
    return own if own.is_file() else start / "vocab.json"


def carry_over(model, name, start: Path, src_vocab, tgt_vocab):
    """Start ``model`` from the weights in ``start`` (its <name>.npz and vocab.json): every array copied, the rows of
    the word embeddings and of the output layer carried over word by word (a word new to this vocabulary keeps its
    fresh initial rows). For continued training on a corpus that grew."""
    before = json.loads(start_vocabulary(start, name).read_text(encoding="utf-8"))
    old_row = {side: {word: i for i, word in enumerate(before[side])} for side in ("source", "target")}
    rows = {  # (new row, old row) for each word of both vocabularies
        side: [(i, old_row[side][w]) for i, w in enumerate(vocab) if w in old_row[side]]
        for side, vocab in (("source", src_vocab), ("target", tgt_vocab))
    }
    by_words = {"src_embed.weight": "source", "encoder.embed.weight": "source", "tgt_embed.weight": "target",
                "embed.weight": "target", "out.weight": "target", "out.bias": "target"}  # fmt: skip
    state = model.state_dict()
    with np.load(start / f"{name}.npz") as old:
        for key, value in state.items():
            old_value = torch.from_numpy(old[key])
            if key in by_words:
                new_rows, old_rows = zip(*rows[by_words[key]], strict=True)
                value[list(new_rows)] = old_value[list(old_rows)]
            else:
                value.copy_(old_value)
    model.load_state_dict(state)


def train_one(name, train, val, test, tgt_vocab, n_src, n_tgt, seed, start=None, src_vocab=None):
    torch.manual_seed(seed)
    rng = random.Random(seed)
    s = SETTINGS[name]
    model = build(name, n_src, n_tgt)
    if start is not None:
        carry_over(model, name, start, src_vocab, tgt_vocab)
    optimiser = torch.optim.Adam(model.parameters(), lr=s["lr"], betas=(0.9, 0.98) if "warmup" in s else (0.9, 0.999))
    step = 0
    total_steps = s["epochs"] * math.ceil(len(train) / s["batch"])
    curve = []
    started = time.time()
    cpu_started = time.process_time()
    for epoch in range(s["epochs"]):
        model.train()
        total = count = 0
        for items in batches(train, s["batch"], rng):
            src, lengths, tgt_in, tgt_out = batch_tensors(items)
            step += 1
            scale = min(1.0, step / s["warmup"]) if "warmup" in s else 1.0  # the Transformer warms up
            progress = step / total_steps  # the rate falls tenfold over the last 40% of the steps
            decay = 1.0 if progress < 0.6 else 0.1 ** ((progress - 0.6) / 0.4)
            for group in optimiser.param_groups:
                group["lr"] = s["lr"] * scale * decay
            loss = loss_of(model, src, lengths, tgt_in, tgt_out)
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            total += loss.item() * len(items)
            count += len(items)
        model.eval()
        with torch.no_grad():
            val_loss = np.mean([loss_of(model, *batch_tensors(b)).item() for b in batches(val, 250, random.Random(0))])
            val_exact = np.mean([o == t for (_, t, _), o in zip(val[:300], greedy(model, val[:300]), strict=True)])
        curve.append(
            {"epoch": epoch + 1, "train_loss": total / count, "val_loss": float(val_loss),
             "val_exact_300": float(val_exact), "seconds": round(time.time() - started, 1)}
        )  # fmt: skip
        print(name, curve[-1], flush=True)
    seconds = time.time() - started
    cpu_seconds = time.process_time() - cpu_started
    figures = evaluate(name, model, test, tgt_vocab)
    report = {"settings": s, "seed": seed, "train_seconds": round(seconds, 1), "cpu_seconds": round(cpu_seconds, 1)}
    return model, report | {"curve": curve, "test": figures}


def export(model, name):
    """The weights under the names the numpy code reads, float32."""
    arrays = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    return arrays


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--models", nargs="+", default=list(SETTINGS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--train-size", type=int, default=None, help="use the first N training pairs")
    parser.add_argument("--epochs", type=int, default=None, help="override (trials only)")
    parser.add_argument("--hidden", type=int, default=None, help="the GRUs' width, override (trials only)")
    parser.add_argument("--d-model", type=int, default=None, help="the Transformer's width, override (trials only)")
    parser.add_argument("--ffn", type=int, default=None, help="the Transformer's feed-forward width (trials only)")
    parser.add_argument("--test-size", type=int, default=None, help="measure on the first N test pairs (trials only)")
    parser.add_argument("--dropout", type=float, default=None, help="the attention models' dropout, override (0: none)")
    parser.add_argument("--lr", type=float, default=None, help="the peak learning rate, override (trials only)")
    parser.add_argument("--start", type=Path, default=None, help="continue from the weights in this folder")
    parser.add_argument(
        "--real-pairs", action="store_true", help="also train on the HSK sentences, real_pairs.py (a trial, not kept)"
    )
    parser.add_argument("--tatoeba", action="store_true", help="also train on Tatoeba's pairs, tatoeba.py")
    parser.add_argument(
        "--tatoeba-min-count", type=int, default=tatoeba.MIN_COUNT, help="a Tatoeba word the models' from N pairs"
    )
    parser.add_argument(
        "--more-unknowns", type=int, default=0, help="also train on N pairs with 2 or 3 nouns hidden, unknowns.py"
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    splits = dataset.generate()
    corpus_train = splits["train"][: args.train_size] if args.train_size else splits["train"]
    real = real_pairs.training_pairs(corpus_train) if args.real_pairs else []  # HSK sentences, each REPEAT times
    people = tatoeba.training_pairs(corpus_train, args.tatoeba_min_count) if args.tatoeba else []  # each REPEAT times
    train_pairs = corpus_train + real * real_pairs.REPEAT + people * tatoeba.REPEAT
    src_vocab, tgt_vocab = vocabularies(train_pairs)
    unknown_pairs = unknowns.extra_pairs(corpus_train, args.more_unknowns, args.seed)  # the vocabulary is the same
    train = encode_pairs(train_pairs + unknown_pairs, src_vocab, tgt_vocab)
    val = encode_pairs(splits["val"], src_vocab, tgt_vocab)
    test = encode_pairs(splits["test"][: args.test_size], src_vocab, tgt_vocab)
    args.out.mkdir(parents=True, exist_ok=True)
    vocab = {"source": src_vocab, "target": tgt_vocab, "corpus_sha256": dataset.checksum(splits)}
    if real:
        vocab["real_pairs_sha256"] = real_pairs.checksum(real)
    if people:
        vocab["tatoeba_sha256"] = tatoeba.checksum(people)
    (args.out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    for name in args.models:
        if args.epochs:
            SETTINGS[name]["epochs"] = args.epochs
        for setting in ("hidden", "d_model", "ffn"):  # the GRUs' and the Transformer's widths
            if getattr(args, setting) and setting in SETTINGS[name]:
                SETTINGS[name][setting] = getattr(args, setting)
        if args.dropout is not None and "dropout" in SETTINGS[name]:
            SETTINGS[name]["dropout"] = args.dropout
        if args.lr:
            SETTINGS[name]["lr"] = args.lr
        model, report = train_one(
            name, train, val, test, tgt_vocab, len(src_vocab), len(tgt_vocab), args.seed, args.start, src_vocab
        )
        if args.start:
            report["start"] = {"from": str(args.start), "vocab_sha256": file_sha256(start_vocabulary(args.start, name)),
                               "weights_sha256": file_sha256(args.start / f"{name}.npz")}  # fmt: skip
        report["torch"] = torch.__version__
        report["numpy"] = np.__version__
        report["train_pairs"] = len(train)
        if real:
            report["real_pairs"] = {"kept": len(real), "repeat": real_pairs.REPEAT}
        if unknown_pairs:
            report["more_unknowns"] = {"pairs": len(unknown_pairs), "seed": args.seed}
        if people:
            report["tatoeba"] = {"kept": len(people), "repeat": tatoeba.REPEAT, "min_count": args.tatoeba_min_count}
        np.savez(args.out / f"{name}.npz", **export(model, name))
        torch.save(model.state_dict(), args.out / f"{name}.pt")  # for the reference fixtures (not committed)
        (args.out / f"{name}.json").write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", "utf-8")
        t = report["test"]
        print(name, "exact", t["exact_match"], "align", t.get("alignment_accuracy"), report["train_seconds"], "s")


if __name__ == "__main__":
    main()
