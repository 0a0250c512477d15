"""The translators' leave-one-out in float64, written from its definition, for the tests to check
app/engine/models/translator.py's ``leave_one_out`` against.

    drop[i, j] = p(y_i | y_<i, x) - p(y_i | y_<i, x with word j replaced by its typed <unk>)

Straight from the text, one decoding per replaced word: the English sentence is written again with word j
replaced by the placeholder the corpus writes for an unknown word of its kind (chase -> <unk:verb>, as
mt_dictionary.unknown_token names it; the translators read the placeholder as one word), and, for a word the
model already reads as unknown, by itself. The translation is forced through
``translator.forced``, the decoding tests/test_translator.py checks against PyTorch, which hands back each word's
probability. Nothing of the engine's leave-one-out is used.

    python -m tools.reference.leave_one_out rnnsearch "Tom chase Jerry"
"""

from __future__ import annotations

import sys

import numpy as np

from app.engine.models import mt_dictionary
from app.engine.models import translator as mt


def leave_one_out(model: mt.Translator, text: str, target: list[str]) -> np.ndarray:
    """(n_target + 1, n_source): the target words, then </s>."""
    words = mt.source_words(text)
    forced = " ".join(target)
    before = [step.probability for step in mt.forced(model, " ".join(words), forced).steps]
    drop = np.zeros((len(before), len(words)))
    for j in range(len(words)):
        unknown = mt_dictionary.unknown_token(words[j]) if model.vocabulary.knows(words[j]) else words[j]
        replaced = words[:j] + [unknown] + words[j + 1 :]
        after = [step.probability for step in mt.forced(model, " ".join(replaced), forced).steps]
        for i in range(len(before)):
            drop[i, j] = before[i] - after[i]
    return drop


if __name__ == "__main__":
    model = mt.load(sys.argv[1])
    sentence = " ".join(sys.argv[2:]) or "Tom chase Jerry"
    produced = mt.translate(model, sentence).target
    np.set_printoptions(precision=3, suppress=True, linewidth=160)
    print(produced)
    print(leave_one_out(model, sentence, produced))
