"""Reference fixtures for the numpy translators, from the PyTorch models of tools/translator/train.py.

    /work/torchvenv/bin/python -m tools.translator.reference --weights app/engine/models/mt

Loads the committed float32 .npz weights into the PyTorch modules, converts them to float64 (so both
sides compute the same formulas without float32 rounding), decodes a few sentences greedily in
PyTorch and records every step: the logits, the attention weights (rnnsearch: (n_source,);
transformer-mt: the cross-attention (layers, heads, n_source) and the decoder's self-attention
(layers, heads, steps so far, padded with zeros)). The Transformer's steps are recorded from one
teacher-forced pass over the whole output with the causal mask, not step by step with a cache,
so the numpy KV cache is checked against a different computation.

Writes tests/fixtures/translator/cases.json and <model>.npz (float64; every LOGIT_STRIDE-th logit), which
tests/test_translator.py compares with app/engine/models/translator.py (no torch there).
"""

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from app.engine.models import translator
from tools.translator.train import BOS, EOS, SETTINGS, build, source_id

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "translator"
SENTENCES = [
    "tom chase jerry",
    "i put money in the bank",
    "we sat on the river bank",
    "the cat that chased jerry ate three delicious cakes in the kitchen yesterday because the boys are singing",
    "tom chased a zebra",  # zebra is not in the vocabulary
    "the police caught the thief yesterday",  # thief is beyond it too: read as <unk:noun>, written as <unk>
]
LOGIT_STRIDE = 8  # every 8th column of the logits is kept (the target vocabulary has some 1,600 words; the chosen
# words are compared by id): the fixtures stay small, and a wrong output row or bias still shows in the columns kept


def load_model(name, weights_dir, n_src, n_tgt):
    model = build(name, n_src, n_tgt)
    with np.load(weights_dir / f"{name}.npz") as npz:
        state = {k: torch.from_numpy(npz[k]) for k in npz.files}
    model.load_state_dict(state)
    return model.double().eval()


@torch.no_grad()
def run_rnn(model, src_ids, max_len=40):
    src = torch.tensor([src_ids])
    state = model.start(src, torch.tensor([len(src_ids)]))
    y = torch.tensor([BOS])
    out, logits, weights = [], [], []
    for _ in range(max_len):
        step_logits, w = model.next(state, y)
        logits.append(step_logits[0].numpy())
        if w is not None:
            weights.append(w[0].numpy())
        y = step_logits.argmax(-1)
        out.append(int(y))
        if out[-1] == EOS:
            break
    result = {"ids": out, "logits": np.stack(logits)}
    if weights:
        result["weights"] = np.stack(weights)
    return result


@torch.no_grad()
def run_transformer(model, src_ids, max_len=40):
    src = torch.tensor([src_ids])
    memory = model.encode(src)
    ys = [BOS]
    for _ in range(max_len):  # greedy, recomputing the whole prefix each step
        logits, _ = model.decode(memory, src, torch.tensor([ys]))
        ys.append(int(logits[0, -1].argmax()))
        if ys[-1] == EOS:
            break
    tgt_in = torch.tensor([ys[:-1]])  # one teacher-forced pass records every step
    n = tgt_in.shape[1]
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))[None]
    cross_mask = torch.ones(1, n, len(src_ids), dtype=torch.bool)
    x = model.embed(model.tgt_embed, tgt_in)
    selfs, crosses = [], []
    for block in model.dec:
        x, self_w, cross_w = block(x, causal, memory, cross_mask)
        selfs.append(self_w[0])
        crosses.append(cross_w[0])
    logits = model.out(model.dec_ln(x))[0]
    return {
        "ids": ys[1:],
        "logits": logits.numpy(),
        "weights": torch.stack(crosses).permute(2, 0, 1, 3).numpy(),  # (steps, layers, heads, n_source)
        "self_weights": torch.stack(selfs).permute(2, 0, 1, 3).numpy(),  # (steps, layers, heads, steps)
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weights", type=Path, default=ROOT / "app" / "engine" / "models" / "mt")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--models", nargs="+", default=list(SETTINGS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    cases = {"torch": torch.__version__, "numpy": np.__version__, "sentences": [], "models": {}}
    for text in SENTENCES:
        cases["sentences"].append({"text": text, "words": text.split()})
    cases["logit_stride"] = LOGIT_STRIDE
    for name in args.models:
        # each model's own vocabulary (the RNNs share vocab.json; the Transformer has its own)
        file = translator.MODELS[name]["vocabulary"]
        vocab = json.loads((args.weights / file).read_text(encoding="utf-8"))
        s_index = {w: i for i, w in enumerate(vocab["source"])}
        model = load_model(name, args.weights, len(vocab["source"]), len(vocab["target"]))
        arrays = {}
        outputs = []
        for k, case in enumerate(cases["sentences"]):
            src = [source_id(s_index, w) for w in case["words"]]
            run = run_transformer(model, src) if name == "transformer-mt" else run_rnn(model, src)
            outputs.append({"source_ids": src, "ids": run["ids"], "tokens": [vocab["target"][i] for i in run["ids"]]})
            run["logits"] = run["logits"][:, ::LOGIT_STRIDE]  # (steps, n_target / LOGIT_STRIDE)
            for key in ("logits", "weights", "self_weights"):
                if key in run:
                    arrays[f"{k}.{key}"] = run[key].astype(np.float64)
        np.savez_compressed(args.out / f"{name}.npz", **arrays)
        cases["models"][name] = outputs
        print(name, [" ".join(o["tokens"]) for o in outputs])
    (args.out / "cases.json").write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
