"""From a validated State to the data of one view: the JSON API's body and the page's embedded data.

This module only wires things together: text -> vectors (app.engine.text), the engine (app.engine.attention)
or the real model (app.engine.models), and the shape of the response. The numbers are computed there.
"""

import base64
import contextlib
import functools

import numpy as np

from app.engine.attention import multi_head_attention, single_head_attention
from app.engine.attention.masks import attention_mask
from app.engine.text.embed import LEXICON_DIM, embed_tokens
from app.engine.text.lexicon import FEATURES
from app.engine.text.tokenize import tokenize
from app.view.state import InputError


def warm_up():
    """Load what the first request would otherwise wait for: jieba's dictionary, the lexicon, the model."""
    tokenize("汤姆追逐杰瑞")
    with contextlib.suppress(Exception):  # a missing model is reported per request (503), not at start-up
        model_run("warm up")


def compute_view(state):
    """The response body (a dict of lists and numpy arrays) for a State."""
    mode = state.mode
    if mode == "exercise":
        body = exercise_view(state)
    elif mode == "model":
        body = model_view(state)
    else:
        body = sentence_view(state)
    return {"params": state.values, "share_path": state.share_path(), "mode": mode, **body}


def head_fields(head):
    return {
        "q": head.q,
        "k": head.k,
        "v": head.v,
        "scores": head.scores,
        "mask": head.mask,
        "weights": head.weights,
        "output": head.output,
        "parameters": head.parameters,
    }


def sentence_view(state):
    """Self-attention over the source, or cross-attention of the target's words over the source's."""
    source_tokens = tokenize(state.source)
    target_tokens = tokenize(state.target) if state.mode == "cross" else source_tokens
    dim = LEXICON_DIM if state.embedding == "lexicon" else state.dim
    x_kv, unknown = embed_tokens(
        source_tokens, embedding=state.embedding, dim=dim, positional=state.positional
    )  # (n_k, dim)
    if state.mode == "cross":
        x_q, unknown_target = embed_tokens(
            target_tokens, embedding=state.embedding, dim=dim, positional=state.positional
        )  # (n_q, dim)
        unknown += [word for word in unknown_target if word not in unknown]
    else:
        x_q = x_kv
    result = multi_head_attention(
        x_q,
        x_kv,
        n_heads=state.heads,
        projection=state.projection,
        score=state.score,
        temperature=state.temperature,
        hard=state.hard,
        window=state.window,
        causal=state.causal,
        seed=state.seed,
    )
    return {
        "tokens": {"queries": [t.text for t in target_tokens], "keys": [t.text for t in source_tokens]},
        "unknown_tokens": unknown,
        "features": list(FEATURES) if state.embedding == "lexicon" else None,
        "embeddings": {"queries": x_q, "keys": x_kv},
        "d_model": dim,
        "d_k": dim // state.heads,
        "heads": [head_fields(head) for head in result.heads],
        "output": result.output,
        "parameters": result.parameters,
    }


def exercise_view(state):
    """Hand-typed q, k, v through the same three stages, as one head."""
    q, k, v = (
        np.array(state.values[name], dtype=float) for name in ("q", "k", "v")
    )  # (n_q, d_k), (n_k, d_k), (n_k, d_v)
    mask = attention_mask(len(q), len(k), window=state.window, causal=state.causal)  # (n_q, n_k)
    head = single_head_attention(q, k, v, score=state.score, temperature=state.temperature, hard=state.hard, mask=mask)
    return {
        "tokens": {
            "queries": state.query_labels or [f"q{i + 1}" for i in range(len(q))],
            "keys": state.key_labels or [f"k{j + 1}" for j in range(len(k))],
        },
        "unknown_tokens": [],
        "features": None,
        "embeddings": None,
        "d_model": q.shape[1],
        "d_k": q.shape[1],
        "heads": [head_fields(head)],
        "output": head.output,
        "parameters": {},
    }


@functools.lru_cache(maxsize=4)
def model_run(text):
    """All layers of the real model for one sentence, computed once; a shared link asks for it repeatedly."""
    from app.engine.models.minilm import get_model

    return get_model().run(text)  # raises ModelUnavailable -> 503


def thumbnail(weights, size=32):
    """A weight map shrunk to at most size x size by averaging blocks, as 0..255 bytes in base64."""
    # weights (n, n)
    n = weights.shape[0]
    edges = np.linspace(0, n, min(n, size) + 1).astype(int)[:-1]  # first index of each block
    counts = np.diff(np.append(edges, n))  # (blocks,)
    sums = np.add.reduceat(np.add.reduceat(weights, edges, axis=0), edges, axis=1)  # (blocks, blocks)
    means = sums / np.outer(counts, counts)  # (blocks, blocks)
    levels = np.round(np.clip(means, 0, 1) * 255).astype(np.uint8)
    return base64.b64encode(levels.tobytes()).decode("ascii")


def model_overview(run):
    """Small weight maps of every layer and head: enough to pick a head, far less than the full weights."""
    n_layers, n_heads, n, _ = run.weights.shape
    return {
        "size": min(n, 32),
        "maps": [[thumbnail(run.weights[layer, head]) for head in range(n_heads)] for layer in range(n_layers)],
    }


def model_view(state):
    """One layer of the real pretrained model: all its heads, or the one named by `head`."""
    from app.engine.models.minilm import get_model

    model = get_model()  # raises ModelUnavailable -> 503
    run = model_run(state.source)
    if run.truncated:
        raise InputError("source", "at most 128 word pieces for the model (this sentence has more)")
    layer = state.layer
    chosen = range(model.n_heads) if state.head is None else [state.head]
    n = len(run.tokens)
    mask = np.ones((n, n), dtype=bool)  # (n, n) one sentence, no padding: every token sees every token
    heads = [
        {
            "q": run.q[layer, h],
            "k": run.k[layer, h],
            "v": run.v[layer, h],
            "scores": run.scores[layer, h],
            "mask": mask,
            "weights": run.weights[layer, h],
            "output": run.context[layer, h],
            "parameters": {},
        }
        for h in chosen
    ]
    return {
        "tokens": {"queries": run.tokens, "keys": run.tokens},
        "unknown_tokens": run.unknown,
        "features": None,
        "embeddings": None,
        "d_model": model.d_model,
        "d_k": model.d_head,
        "heads": heads,
        "output": None,
        "parameters": {},
        "heads_shown": list(chosen),
        "overview": model_overview(run),
    }
