"""How much of MiniLM's attention goes to [CLS] and [SEP], by weight and by weight × value norm. Not a test: run by
hand (a few seconds).

    .venv/bin/python -m bench.bench_special_share

Kobayashi et al. (2020, "Attention is Not Only a Weight") found BERT's heads putting much of their weight on [CLS],
[SEP] and punctuation, whose transformed values f(x) = v W_O[h] are short, so that their share of the norm-based
contribution α‖f(x)‖ is far smaller. Here, on 20 sentences written for this (varied length, punctuation, questions,
numbers, quotes), all-MiniLM-L6-v2's layers 2 to 5 (counted from 0), every head and every query token: the mean share
of weight on the two special tokens (α_i,[CLS] + α_i,[SEP]; each row sums to 1) and the mean share of the
contribution on them ((c_i,[CLS] + c_i,[SEP]) / Σ_j c_ij, c_ij = α_ij ‖v_j W_O[h]‖), computed with the engine's
own functions (app/engine/attention/norms.py) from the app's forward pass. Figures: bench/README.md.
"""

from __future__ import annotations

import numpy as np

from app.engine.attention.norms import shares, value_norms, weighted_norms
from app.view import models

SENTENCES = (
    "The cat sat on the mat.",
    "Where did you leave the keys, and why are they wet?",
    'She said, "I\'ll be there at 6:30 sharp!"',
    "Prices rose by 4.5% in March; wages did not.",
    "After the storm passed, the fishermen pulled their boats back onto the sand.",
    "Wait -- is that really your brother?",
    "Read the instructions first: then open the box.",
    "My grandmother, who is ninety-two, still walks to the market every morning.",
    "No.",
    "The committee postponed the vote until Tuesday because two members were ill.",
    "Can machines think? Turing asked this in 1950.",
    "Apples, pears, plums and cherries were piled high on the cart.",
    "He didn't know whether to laugh or to cry.",
    "The river bank was muddy after weeks of rain.",
    "Please send the report to Dr. Lee by Friday (not Monday).",
    "If you heat ice, it melts; if you cool water, it freezes.",
    "A small dog barked at the postman, who ignored it.",
    "We climbed for hours, rested at the top, and came down in the dark!",
    "The library's new wing opens next spring, according to the mayor.",
    "Why would anyone paint a door bright orange?",
)
LAYERS = (2, 3, 4, 5)


def special_shares(sentence: str) -> dict[int, tuple[float, float]]:
    """layer -> (mean weight share on [CLS] and [SEP], mean contribution share on them) over heads and queries."""
    model = models.get("minilm")
    d_head = model.params.config.d_head
    run = models.run("minilm", sentence)
    special = [0, len(run.tokens) - 1]  # [CLS] and [SEP]: the first and last piece
    found = {}
    for layer in LAYERS:
        weights = run.weights[layer].astype(np.float64)  # (H, n, n)
        n_heads = weights.shape[0]
        W_O = model.params.layers[layer].w_o.astype(np.float64).reshape(n_heads, d_head, -1)  # (H, dh, d)
        norms = value_norms(run.v[layer].astype(np.float64), W_O)  # (H, n) ‖v_j W_O[h]‖
        contribution = shares(weighted_norms(weights, norms))  # (H, n, n) rows sum to 1
        found[layer] = (
            float(weights[:, :, special].sum(axis=-1).mean()),
            float(contribution[:, :, special].sum(axis=-1).mean()),
        )
    return found


def main() -> None:
    per_sentence = [special_shares(sentence) for sentence in SENTENCES]
    print(f"{len(SENTENCES)} sentences, all-MiniLM-L6-v2, every head and query token")
    print(f"{'layer':>5s} {'weight on [CLS]/[SEP]':>22s} {'contribution on them':>21s} {'ratio':>6s}")
    for layer in LAYERS:
        weight = np.mean([found[layer][0] for found in per_sentence])
        norm = np.mean([found[layer][1] for found in per_sentence])
        print(f"{layer:5d} {weight:22.3f} {norm:21.3f} {norm / weight:6.2f}")
    weight = np.mean([found[layer][0] for found in per_sentence for layer in LAYERS])
    norm = np.mean([found[layer][1] for found in per_sentence for layer in LAYERS])
    print(f"{'2-5':>5s} {weight:22.3f} {norm:21.3f} {norm / weight:6.2f}")
    lowest = min(range(len(SENTENCES)), key=lambda i: np.mean([per_sentence[i][la][0] for la in LAYERS]))
    highest = max(range(len(SENTENCES)), key=lambda i: np.mean([per_sentence[i][la][0] for la in LAYERS]))
    for label, i in (("least weight on them", lowest), ("most weight on them", highest)):
        w = np.mean([per_sentence[i][la][0] for la in LAYERS])
        c = np.mean([per_sentence[i][la][1] for la in LAYERS])
        print(f"{label}: {SENTENCES[i]!r}: weight {w:.3f}, contribution {c:.3f}")


if __name__ == "__main__":
    main()
