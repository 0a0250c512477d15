"""Value zeroing (Mohebbi et al. 2023) in float64, written straight from the paper, for the tests to check
app/engine/models/zeroing.py against. Plain numpy; nothing of the app's engine is used but its weights.

The BERT block is written out again here, as the paper's equations and BERT's (post-LayerNorm) define it,
and run once per zeroed token, every token's row at a time, in float64 (the float32 weights upcast exactly):

    for each layer l, each token j:
        V' = V with row j set to 0 in every head
        y_i = LN2(h_i + FFN(h_i)),  h_i = LN1(x_i + W_O [sum_k a_ik v'_k per head] + b_O)
        C[l, i, j] = 1 - cos(y_i, original output of token i)
    C[l] /= its row sums
    rollout: R_0 = C_0, R_l = C_l R_(l-1)  (no identity added: the block's residual is already in C)

e5 rounds every matrix product's input to 8 bits (its C engine does, ``BertConfig.round_inputs``): so does this,
block by block of 32 numbers (scale = max |x| / 127, round half to even), when the model's config says so.

    python -m tools.reference.value_zeroing "the bank of the river"   # prints MiniLM's maps
"""

from __future__ import annotations

import math
import sys

import numpy as np

ERF = np.frompyfunc(math.erf, 1, 1)


def gelu(x):
    return 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0)).astype(np.float64))


def layer_norm(x, g, b, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def rounded_to_8_bits(x):
    blocks = x.reshape(x.shape[0], -1, 32)  # each row in blocks of 32 numbers
    scale = np.abs(blocks).max(axis=2, keepdims=True) / 127.0
    safe = np.where(scale == 0, 1.0, scale)
    return (np.round(blocks / safe) * scale).reshape(x.shape)


def linear(x, w, b, round_inputs):
    if round_inputs:
        x = rounded_to_8_bits(x)
    return x @ w.astype(np.float64) + b.astype(np.float64)


def block(x, lp, cfg, zeroed=None):
    """One BERT block on x (n, d), float64; ``zeroed``: the token whose value vector is set to 0 in every head."""
    n, d = x.shape
    heads, dh = cfg.n_heads, d // cfg.n_heads
    qkv = linear(x, lp.w_qkv, lp.b_qkv, cfg.round_inputs)
    q, k, v = qkv[:, :d], qkv[:, d : 2 * d], qkv[:, 2 * d :]
    if zeroed is not None:
        v = v.copy()
        v[zeroed] = 0.0
    merged = np.zeros((n, d))
    for h in range(heads):
        cols = slice(h * dh, (h + 1) * dh)
        scores = q[:, cols] @ k[:, cols].T / math.sqrt(dh)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        merged[:, cols] = weights @ v[:, cols]
    h1 = layer_norm(x + linear(merged, lp.w_o, lp.b_o, cfg.round_inputs), lp.ln1_g, lp.ln1_b, cfg.eps)
    ffn = linear(gelu(linear(h1, lp.w_in, lp.b_in, cfg.round_inputs)), lp.w_out, lp.b_out, cfg.round_inputs)
    return layer_norm(h1 + ffn, lp.ln2_g, lp.ln2_b, cfg.eps)


def value_zeroing(params, ids):
    """For token ids (n,) through ``params`` (an app BertParams), a dict of float64 arrays: ``maps`` and ``rollout``
    (L, n, n), ``distances`` (L, n, n) before the rows are normalised, ``hidden`` (L + 1, n, d) the layers' outputs."""
    cfg = params.config
    ids = np.asarray(ids)
    n = len(ids)
    x = params.word_emb.rows(ids).astype(np.float64) + params.pos_emb[:n] + params.type_emb[0]
    x = layer_norm(x, params.emb_ln_g, params.emb_ln_b, cfg.eps)
    hidden = [x]
    distances = np.zeros((cfg.n_layers, n, n))
    for layer, lp in enumerate(params.layers):
        original = block(x, lp, cfg)
        for j in range(n):
            changed = block(x, lp, cfg, zeroed=j)
            for i in range(n):
                a, b = changed[i], original[i]
                distances[layer, i, j] = 1.0 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
        x = original
        hidden.append(x)
    maps = distances / distances.sum(axis=2, keepdims=True)
    rollout = np.zeros_like(maps)
    rollout[0] = maps[0]
    for layer in range(1, cfg.n_layers):
        rollout[layer] = maps[layer] @ rollout[layer - 1]
    return {"maps": maps, "rollout": rollout, "distances": distances, "hidden": np.stack(hidden)}


if __name__ == "__main__":
    from app.engine.models import registry

    model = registry.default().get_model("minilm")
    encoding = model.tokenize(" ".join(sys.argv[1:]) or "the bank of the river")
    found = value_zeroing(model.params, encoding.ids)
    np.set_printoptions(precision=3, suppress=True, linewidth=160)
    print(encoding.tokens)
    print(found["maps"])
    print(found["rollout"][-1])
