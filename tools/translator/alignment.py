"""Alignment accuracy by kind of Chinese word: where the trained models' attention misses the gold alignment.

    python -m tools.translator.alignment            # the test split, the committed RNNsearch and Transformer

train.py's alignment accuracy counts every Chinese word of the test split's gold translations: the share whose
largest attention weight (the model made to produce the gold translation; the Transformer: the mean of its last
layer's heads) is on an English word the corpus aligns it with. Here the same count is split by kind of word
(mt_check's sets): content words (nouns, verbs, adjectives), the grammar's words (的 在 了 吗 所以 ..., aligned by
the grammars' own conventions: 所以 to because, 吗 to do or the verb, 的 to the possessor), other words (measure
words, 回, ...) and <unk>; with the words missed most. Numpy only (the app's models), about a minute.
"""

from __future__ import annotations

import collections

from app.engine.models import mt_check
from app.engine.models import translator as mt
from tools.translator import dataset

KINDS = ("content", "grammar", "other", "<unk>")


def kind(word: str) -> str:
    if word == "<unk>":
        return "<unk>"
    if word in mt_check.content_words():
        return "content"
    return "grammar" if word in mt_check.GRAMMAR else "other"


def by_kind(name: str, pairs: list[dict]) -> tuple[dict[str, tuple[int, int]], collections.Counter]:
    """{kind: (hits, words)} and the Chinese words missed, for one model over ``pairs``."""
    model = mt.load(name)
    hits, words, missed = collections.Counter(), collections.Counter(), collections.Counter()
    for pair in pairs:
        steps = mt.forced(model, pair["en"], pair["zh"]).steps
        for i, word in enumerate(pair["zh"].split()):
            weights = mt.pointer_weights(steps[i].attention)  # (n_source,): the Transformer's last layer's mean
            words[kind(word)] += 1
            if int(weights.argmax()) in pair["align"][i]:
                hits[kind(word)] += 1
            else:
                missed[word] += 1
    return {k: (hits[k], words[k]) for k in KINDS}, missed


def main() -> None:
    test = dataset.generate()["test"]
    print("| model | all | " + " | ".join(KINDS) + " | missed most |")
    print("|---|---|" + "---|" * len(KINDS) + "---|")
    for name in ("rnnsearch", "transformer-mt"):
        counts, missed = by_kind(name, test)
        total = sum(h for h, _ in counts.values()) / sum(n for _, n in counts.values())
        cells = [f"{h / n:.1%} of {n:,}" for h, n in counts.values()]
        worst = ", ".join(f"{w} {n}" for w, n in missed.most_common(6))
        print(f"| {name} | {total:.1%} | " + " | ".join(cells) + f" | {worst} |")


if __name__ == "__main__":
    main()
