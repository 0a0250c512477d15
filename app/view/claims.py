"""What an example or a lesson says its view shows, in numbers, checked against the engine.

Every example (presets.py) and lesson (lessons.py) states claims: "at this step the largest weight is
on this word, at least 0.4", "no weight is above 0.95", ... ``check`` computes the view and returns
the numbers each claim is about, or raises ClaimFailed. The texts people read are filled with those
numbers, so a lesson cannot say what its view does not show; the test suite checks every claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from app.view.compute import compute_view
from app.view.state import State


class ClaimFailed(AssertionError):
    """A view does not show what its text says."""


@dataclass(frozen=True)
class Claim:
    """One statement about a view's weights (stage 2).

    top        at `step`, the largest weight is on the key `key`, and it is at least `at_least` (and, with `below`
               under 1, below `below`: not saturated)
    max_above  at `step`, the largest weight is at least `at_least` (a saturated softmax)
    max_below  at every step, every weight is below `below` (no saturation)
    flat       every weight is within `within` of 1 / (number of visible keys)
    one_hot    every weight is 0 or 1 (hard attention)
    causal     every weight on a later key is 0
    weight_not_norm  at `step`, the key `key` has a weight of at least `at_least` but a share of weight × value
               norm (α‖v W_O‖ over the step's total, Kobayashi et al. 2020) below `below`: weight and contribution
               disagree
    weight_and_norm  at `step`, the largest weight and the largest share of weight × value norm are both on `key`,
               each at least `at_least`: they agree
    replaced   at `step`, a translator wrote <unk>, its attention's largest weight (at least `at_least`) is on the
               English word `key`, and the output shows the dictionary's word for it in place of the <unk>
    made_up    at `step`, a translator wrote a word the check against the dictionary marks made up, its attention's
               largest weight (at least `at_least`) is on the English word `key`, and `key` is marked left out:
               it looked at the word and did not translate it
    end_guarded at `step`, a translator's own first choice was </s> (probability at least `at_least`), ruled out by
               the end guard because `key` (an English word) would have been left out, and the translation as
               shown leaves nothing out
    passed_over beam search's likeliest finished translation leaves the English word `key` out, and the end guard
               showed another, less likely (its log-probability at least `at_least` below), that leaves nothing out
    drop_not_weight  at `step`, a translator's word is at least `at_least` less probable without the English word
               `key` (leave-one-out: `key` read as <unk>), though its attention's weight on `key` is below `below`:
               what a word needed and where it looked disagree (the view must ask attribution=leave-one-out)
    `head` picks a head other than the view's own; without it, a claim about a step is checked on the head
    the page shows at that step (the link's head, or the head the step's word asks). `layer` picks a real model's
    layer other than the view's own.
    """

    kind: Literal[
        "top",
        "max_above",
        "max_below",
        "flat",
        "one_hot",
        "causal",
        "weight_not_norm",
        "weight_and_norm",
        "replaced",
        "made_up",
        "end_guarded",
        "passed_over",
        "drop_not_weight",
    ]
    step: int | None = None
    key: str | None = None
    at_least: float = 0.0
    below: float = 1.0
    within: float = 0.0
    head: int | None = None
    layer: int | None = None


def weights_of(state: State, claim: Claim) -> tuple[np.ndarray, dict]:
    if claim.head is not None:
        state = state.replace(head=claim.head)
    if claim.step is not None:
        state = state.replace(step=claim.step)  # without a head: the head shown at that step
    if claim.layer is not None:
        state = state.replace(layer=claim.layer)
    view = compute_view(state)
    return np.asarray(view["head"]["weights"], dtype=float), view  # (n_q, n_k)


def expect_largest_on_key(claim: Claim, found: dict[str, object]) -> None:
    """found["key"], the key with the step's largest weight found["weight"], is the claim's, at least `at_least`."""
    if found["key"] != claim.key or found["weight"] < claim.at_least:
        raise ClaimFailed(f"step {claim.step}: expected {claim.key} >= {claim.at_least}, got {found}")


def check(state: State, claim: Claim) -> dict[str, object]:
    """The numbers `claim` is about, in the view of `state`; raises ClaimFailed if the view does not show it."""
    weights, view = weights_of(state, claim)
    keys = view["tokens"]["keys"]
    queries = view["tokens"]["queries"]
    if claim.kind == "top":
        row = weights[claim.step]  # (n_k,)
        best = int(row.argmax())
        found = {"query": queries[claim.step], "key": keys[best], "weight": float(row[best])}
        found["pairs"] = " ".join(f"({key}, {weight:.2f})" for key, weight in zip(keys, row, strict=True))
        expect_largest_on_key(claim, found)
        if claim.below < 1.0 and row[best] >= claim.below:
            raise ClaimFailed(f"step {claim.step}: expected {claim.key} below {claim.below}, got {found}")
        return found
    if claim.kind == "max_above":
        largest = float(weights[claim.step].max())
        if largest < claim.at_least:
            raise ClaimFailed(f"step {claim.step}: largest weight {largest} < {claim.at_least}")
        return {"query": queries[claim.step], "weight": largest}
    if claim.kind == "max_below":
        largest = float(weights.max())
        if largest >= claim.below:
            raise ClaimFailed(f"a weight of {largest} >= {claim.below}")
        return {"weight": largest}
    if claim.kind == "flat":
        visible = np.asarray(view["head"]["mask"], dtype=bool)  # (n_q, n_k)
        uniform = 1.0 / visible.sum(axis=1, keepdims=True)  # (n_q, 1)
        furthest = float(np.abs(np.where(visible, weights - uniform, 0.0)).max())
        if furthest > claim.within:
            raise ClaimFailed(f"a weight is {furthest} from uniform (> {claim.within})")
        return {"furthest": furthest, "uniform": float(uniform.min())}
    if claim.kind == "one_hot":
        if not np.all((weights == 0) | (weights == 1)):
            raise ClaimFailed("a weight is neither 0 nor 1")
        return {}
    if claim.kind == "causal":
        later = np.triu(weights, k=1)  # (n_q, n_k) weights on keys after the query
        if np.any(later != 0):
            raise ClaimFailed("a query gives weight to a later key")
        return {}
    if claim.kind in ("weight_not_norm", "weight_and_norm"):
        board = view["arithmetic"]  # the step's weights and shares of α‖v W_O‖ (the claim's step is the view's)
        row, shares = np.asarray(board["weights"], dtype=float), np.asarray(board["contribution_shares"], dtype=float)
        j = keys.index(claim.key)
        found = {"query": queries[claim.step], "key": claim.key, "weight": float(row[j]), "share": float(shares[j])}
        found["norm"] = float(board["value_norms"][j])
        if claim.kind == "weight_not_norm" and not (row[j] >= claim.at_least and shares[j] < claim.below):
            raise ClaimFailed(f"step {claim.step}: expected weight >= {claim.at_least}, share < {claim.below}: {found}")
        agree = int(row.argmax()) == j == int(shares.argmax()) and min(row[j], shares[j]) >= claim.at_least
        if claim.kind == "weight_and_norm" and not agree:
            raise ClaimFailed(f"step {claim.step}: expected the largest weight and share on {claim.key}: {found}")
        return found
    if claim.kind == "replaced":
        facts = view["translation"]
        replacement = next((r for r in facts["replaced"] if r["position"] == claim.step), None)
        row = weights[claim.step]  # (n_k,)
        found = {"query": queries[claim.step], "key": keys[int(row.argmax())], "weight": float(row.max())}
        found["word"] = replacement["word"] if replacement else None
        if not replacement or replacement["origin"] != "dictionary" or keys[replacement["source"]] != claim.key:
            raise ClaimFailed(f"step {claim.step}: expected a <unk> replaced from {claim.key}, got {replacement}")
        expect_largest_on_key(claim, found)
        return found
    if claim.kind == "made_up":
        facts = view["translation"]
        row = weights[claim.step]  # (n_k,)
        best = int(row.argmax())
        found = {"word": facts["output"][claim.step], "key": keys[best], "weight": float(row[best])}
        found["coverage"] = float(facts["check"]["coverage"][best])
        if claim.step not in facts["check"]["invented"] or best not in facts["check"]["left_out"]:
            raise ClaimFailed(f"step {claim.step}: expected a word made up and {claim.key} left out: {facts['check']}")
        expect_largest_on_key(claim, found)
        return found
    if claim.kind == "end_guarded":
        facts = view["translation"]
        ruled = next((r for r in facts["ruled_out"] if r["position"] == claim.step), None)
        if not ruled or ruled["reason"] != "left_out" or claim.key not in ruled["left_out"]:
            raise ClaimFailed(f"step {claim.step}: expected </s> ruled out with {claim.key} left out, got {ruled}")
        if ruled["probability"] < claim.at_least or facts["check"]["left_out"]:
            raise ClaimFailed(f"step {claim.step}: expected </s> >= {claim.at_least}, nothing left out: {facts}")
        return {"word": facts["output"][claim.step], "key": claim.key, "probability": float(ruled["probability"])}
    if claim.kind == "passed_over":
        facts = view["translation"]
        passed = facts["likeliest"]
        if not passed or claim.key not in passed["left_out"] or facts["check"]["left_out"]:
            raise ClaimFailed(f"expected the beam's likeliest to leave {claim.key} out, the shown none: {facts}")
        if passed["log_probability"] - facts["log_probability"] < claim.at_least:
            raise ClaimFailed(f"expected the shown translation {claim.at_least} less likely: {facts}")
        found = {"likeliest": " ".join(passed["output"]), "likeliest_lp": float(passed["log_probability"])}
        return found | {"output": " ".join(facts["output"]), "lp": float(facts["log_probability"]), "key": claim.key}
    if claim.kind == "drop_not_weight":
        drops = view["translation"]["leave_one_out"]  # (n_q, n_source), or None when the view did not ask
        if drops is None:
            raise ClaimFailed("the view did not ask for leave-one-out (attribution=leave-one-out)")
        j = keys.index(claim.key)
        found = {"query": queries[claim.step], "key": claim.key, "weight": float(weights[claim.step, j])}
        found["drop"] = float(drops[claim.step][j])
        if found["drop"] < claim.at_least or found["weight"] >= claim.below:
            raise ClaimFailed(
                f"step {claim.step}: expected a drop >= {claim.at_least}, a weight < {claim.below}: {found}"
            )
        return found
    raise ValueError(f"unknown claim {claim.kind!r}")


def numbers(state: State, claims: tuple[Claim, ...]) -> dict[str, str]:
    """Text placeholders for a lesson: {key0}, {weight0}, {pairs0}, {query0}, ... for each claim, in order."""
    return placeholders([check(state, claim) for claim in claims])


def placeholders(checked: list[dict[str, object]]) -> dict[str, str]:
    """What `check` returned for each claim, in order, as text placeholders (floats to 2 decimals)."""
    filled: dict[str, str] = {}
    for index, found in enumerate(checked):
        for name, value in found.items():
            filled[f"{name}{index}"] = f"{value:.2f}" if isinstance(value, float) else str(value)
    return filled
