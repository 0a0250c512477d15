"""Which named head answers a query word's question: the head in focus at each step.

Every named head says which words ask its question (``NamedHead.asked_by``: roles such as "verb", or
"pronoun" for a word with the pronoun feature and "ambiguous" for a word with two meanings). For each
query word the heads it asks are the candidates; the one in focus is the candidate whose answer is the
clearest (its largest weight on another word is the largest), so "bank" in "walk by river bank" asks
both "which word tells me what I mean?" and "which action do I belong to?", and the first answers
better. A word that asks no head's question (punctuation, a particle) has no head in focus: None.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.engine.attention.named_heads import NamedHead


@dataclass(frozen=True)
class Asker:
    """What a query word is, as far as the heads' questions go."""

    role: str | None  # its main role (None: punctuation)
    pronoun: bool  # it has the pronoun feature and the role of a noun (it, he; not my)
    ambiguous: bool  # it has two or more meanings in the lexicon (bank)

    def asks(self, head: NamedHead) -> bool:
        return (
            (self.role is not None and self.role in head.asked_by)
            or (self.pronoun and "pronoun" in head.asked_by)
            or (self.ambiguous and "ambiguous" in head.asked_by)
        )


def clearest_weights(weights: np.ndarray, self_attention: bool) -> np.ndarray:
    """Every head's largest weight of each row on another word (on any key in cross-attention).

    weights (n_heads, n_q, n_k) -> (n_heads, n_q)."""
    if weights.shape[-1] == 0:
        return np.zeros(weights.shape[:-1])
    others = weights.copy()  # (n_heads, n_q, n_k)
    if self_attention:
        diagonal = np.arange(min(weights.shape[-2:]))  # step i's own word is key i
        others[:, diagonal, diagonal] = 0.0
    return others.max(axis=-1)  # (n_heads, n_q)


def focus_heads(
    heads: tuple[NamedHead, ...], weights: np.ndarray, askers: list[Asker], self_attention: bool
) -> list[int | None]:
    """For each query step, the index of the head in focus (None: no head's question applies).

    weights (n_heads, n_q, n_k): every head's stage-2 weights; askers: one per query word.
    """
    clearest = clearest_weights(weights, self_attention).tolist()  # [head][step]
    focus: list[int | None] = []
    for step, asker in enumerate(askers):
        # the pronoun head first: a pronoun's question is which noun it points to, whatever else it asks
        candidates = [h for h, head in enumerate(heads) if asker.asks(head)]
        pronoun_heads = [h for h in candidates if asker.pronoun and "pronoun" in heads[h].asked_by]
        if pronoun_heads:
            focus.append(pronoun_heads[0])
        elif candidates:
            focus.append(max(candidates, key=lambda h: clearest[h][step]))
        else:
            focus.append(None)
    return focus
