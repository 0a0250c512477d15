"""What value zeroing costs a view (the goal: a 20-piece sentence, all layers, <= 1 s cold, then from the cache).

    .venv/bin/python -m bench.bench_zeroing            # prints a markdown table
    .venv/bin/python -m bench.bench_zeroing --rounds 9

For MiniLM and e5, a sentence of exactly 20 pieces (specials and e5's prefix included), in one process with the
models loaded, taking turns each round: the plain model view cold (the run's cache emptied), the view with
attribution=zeroing cold (run and zeroing both computed), the same view again (both from the cache). Wall clock
and the process's CPU time (a shared machine disturbs the latter far less), medians over the rounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from app.view import models
from app.view.compute import compute_view
from app.view.state import State
from bench.common import sentence

PIECES = 20


def sentence_of(model: str, pieces: int) -> str:
    """The bench's words, as many as make exactly ``pieces`` pieces for this model."""
    for n_words in range(1, pieces + 1):
        text = sentence(n_words)
        if models.count_pieces(model, text) == pieces:
            return text
    raise ValueError(f"no sentence of the bench's words has {pieces} pieces for {model}")


def timed(state: State, cold: bool) -> tuple[float, float]:
    if cold:
        models.forget_runs()  # the run and its value zeroing
    wall, cpu = time.perf_counter(), time.process_time()
    compute_view(state)
    return (time.perf_counter() - wall) * 1e3, (time.process_time() - cpu) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    print(f"load average {os.getloadavg()[0]:.1f}, {rounds} rounds, medians; ms wall (ms CPU of this process's")
    print("threads, not of the helper process that takes a long run's second half of rows)\n")
    print("| model | pieces | plain view, cold | zeroing view, cold | zeroing view, cached |")
    print("|---|---|---|---|---|")
    for name in ("minilm", "e5"):
        text = sentence_of(name, PIECES)
        plain = State(source=text, model=name)
        zeroing = State(source=text, model=name, attribution="zeroing")
        compute_view(zeroing)  # loads the model, warms every path
        found: dict[str, list[tuple[float, float]]] = {"plain": [], "cold": [], "cached": []}
        for _ in range(rounds):
            found["plain"].append(timed(plain, cold=True))
            found["cold"].append(timed(zeroing, cold=True))
            found["cached"].append(timed(zeroing, cold=False))
        cells = []
        for key in ("plain", "cold", "cached"):
            wall = statistics.median(w for w, _ in found[key])
            cpu = statistics.median(c for _, c in found[key])
            cells.append(f"{wall:,.0f} ({cpu:,.0f})")
        print(f"| {name} | {PIECES} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
