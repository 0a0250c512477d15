"""Reference fixtures for the attention engine from torch.nn.functional.scaled_dot_product_attention.

Run in the separate torch venv (never the project venv):

    cd /work/main
    /root/venvs/torchref/bin/python tools/reference/sdpa_reference.py

Writes tests/fixtures/sdpa/cases.json, which tests/test_reference_sdpa.py (default test run, no
torch) compares with app.engine.attention.single_head_attention(score="scaled_dot", temperature=T, mask).

The temperature enters torch through `scale`: softmax(q kᵀ / (√d_k · T)) = SDPA(..., scale=1/(√d_k · T)).
Boolean masks follow torch's convention, which is also the engine's: True = the key takes part.
Masks are built here independently of app/ (causal: j <= i; local window: |j - c_i| <= window with
c_i = round-half-up(i (n_k - 1) / (n_q - 1)), computed exactly with fractions).
"""

import argparse
import json
import math
import platform
from fractions import Fraction
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "sdpa" / "cases.json"
SEED = 20260

# name, n_q, n_k, d_k, d_v, causal, window, temperature, magnitude of the entries
CASES = [
    ("global", 3, 5, 4, 4, False, None, 1.0, 1.0),
    ("causal", 4, 4, 8, 3, True, None, 1.0, 1.0),
    ("causal-window", 6, 6, 16, 16, True, 2, 0.5, 1.0),
    ("cross-window", 3, 7, 2, 5, False, 1, 2.0, 1.0),
    ("one-query-cold", 1, 9, 32, 1, False, None, 0.05, 1.0),
    ("diagonal-hot", 8, 8, 4, 8, False, 0, 20.0, 1.0),
    ("more-queries-than-keys", 5, 3, 6, 2, False, 1, 0.7, 1.0),
    ("large-entries", 4, 6, 8, 4, False, None, 0.1, 10.0),
    ("self-window-wide", 7, 7, 3, 3, False, 3, 1.5, 2.0),
]


def aligned(i, n_q, n_k):
    if n_q == 1:
        return 0
    exact = Fraction(i * (n_k - 1), n_q - 1)
    return math.floor(exact + Fraction(1, 2))  # round half up


def build_mask(n_q, n_k, causal, window):
    if not causal and window is None:
        return None
    return [
        [(not causal or j <= i) and (window is None or abs(j - aligned(i, n_q, n_k)) <= window) for j in range(n_k)]
        for i in range(n_q)
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    rng = np.random.default_rng(SEED)
    cases = []
    for name, n_q, n_k, d_k, d_v, causal, window, temperature, magnitude in CASES:
        # 4 decimals: the JSON text is the exact input, and the file stays small
        q, k, v = (
            np.round(rng.standard_normal(shape) * magnitude, 4) for shape in ((n_q, d_k), (n_k, d_k), (n_k, d_v))
        )
        mask = build_mask(n_q, n_k, causal, window)
        scale = 1.0 / (math.sqrt(d_k) * temperature)
        tq, tk, tv = (torch.tensor(a, dtype=torch.float64) for a in (q, k, v))
        tmask = None if mask is None else torch.tensor(mask, dtype=torch.bool)
        output = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tmask, scale=scale)
        logits = (tq @ tk.T) * scale
        if tmask is not None:
            logits = logits.masked_fill(~tmask, float("-inf"))
        weights = torch.softmax(logits, dim=-1)
        cases.append({
            "name": name,
            "q": q.tolist(),
            "k": k.tolist(),
            "v": v.tolist(),
            "causal": causal,
            "window": window,
            "mask": mask,
            "temperature": temperature,
            "scale": scale,
            "expected_output": output.tolist(),
            "expected_weights": weights.tolist(),
        })  # fmt: skip
    meta = {
        "generator": "tools/reference/sdpa_reference.py",
        "torch": torch.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "dtype": "float64",
        "seed": SEED,
        "cases": cases,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases, {args.out.stat().st_size} bytes, to {args.out}")


if __name__ == "__main__":
    main()
