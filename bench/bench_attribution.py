"""Weight × value norm's cost to every view, in one run. Not a test: run by hand.

    .venv/bin/python -m bench.bench_attribution

Each view's whole answer (compute_view, then the JSON's bytes), with the measure and with it switched off (the
engine's value_norms and the answer's attribution replaced by nothing: the code as it was before), taking turns
in one process, 15 rounds of timeit on the process's CPU time (the machine is shared: its wall time is
anyone's); the minimum per side, the ratio after / before, and the answer's bytes. Then the parts the measure adds
to the default view, each alone: on a busy machine they tell its cost better than two whole views' difference.
"""

from __future__ import annotations

import contextlib
import time
import timeit
from unittest import mock

VIEWS = {
    "default (named heads, 4 words)": {},
    "named heads, 16 words": {"source": "the old man gave the young girl a book about the river bank in the town"},
    "random 8 heads, 12 words": {
        "source": "the quick brown fox jumps over the lazy dog near the river bank",
        "projection": "random",
        "heads": "8",
    },
    "exercise": {"q": "1,0;0,1", "k": "1,0;0,1;1,1", "v": "1,2;3,4;5,6"},
    "minilm layer 3 (cached run)": {"model": "minilm", "source": "The cat sat on the mat, and then it slept."},
    "e5 layer 5 (cached run)": {"model": "e5", "source": "小猫在河边喝水。", "layer": "5"},
    "transformer-mt": {"model": "transformer-mt", "source": "a rabbit loves that fat man in the garden"},
    "rnnsearch": {"model": "rnnsearch", "source": "a rabbit loves that fat man in the garden"},
}


@contextlib.contextmanager
def measure_off():
    """The code without the measure: no value norms anywhere, no attribution in the answer."""
    nothing = lambda *args, **kwargs: None  # noqa: E731
    with (
        mock.patch("app.view.compute.value_norms", nothing),
        mock.patch("app.view.compute.output_rows", nothing),
        mock.patch("app.view.compute.attribution_of", nothing),
    ):
        yield


def main() -> None:
    from app.view.compute import compute_view
    from app.view.state import state_from_link_values
    from app.web.jsonio import dumps

    print(f"{'view':34s} {'before ms':>10s} {'after ms':>10s} {'ratio':>6s} {'bytes before':>13s} {'after':>7s}")
    for name, params in VIEWS.items():
        state = state_from_link_values(params)
        answer = lambda state=state: dumps(compute_view(state))  # noqa: E731
        answer()  # the model's run and the translation are cached, as for a link opened again
        number = 100
        before, after = [], []
        for _ in range(15):  # taking turns, so that the machine's load falls on both alike
            with measure_off():
                before.append(timeit.timeit(answer, number=number, timer=time.process_time) / number)
            after.append(timeit.timeit(answer, number=number, timer=time.process_time) / number)
        with measure_off():
            size_before = len(answer())
        size_after = len(answer())
        b, a = min(before), min(after)
        print(f"{name:34s} {b * 1e3:10.3f} {a * 1e3:10.3f} {a / b:6.3f} {size_before:13,d} {size_after:7,d}")


def parts() -> None:
    import numpy as np

    from app.engine.attention.norms import head_rows, shares, value_norms
    from app.view.compute import compute_view
    from app.view.state import State
    from app.web.jsonio import dumps

    view = compute_view(State())
    board = view["arithmetic"]
    added = [view["attribution"], {k: board[k] for k in ("value_norms", "contributions", "contribution_shares")}]
    v = np.asarray(view["head"]["v"])  # (4, d) the default's values
    d = v.shape[1]
    W_O = np.vstack([np.eye(d) / 8] * 8)  # (8 d, d) the named heads' W_O
    weights, norms = board["weights"], board["value_norms"]
    cost = {
        "‖v_j W_O[h]‖ of the head shown": lambda: value_norms(v, head_rows(W_O, 3, d)),
        "the step's α‖v W_O‖ and shares": lambda: shares(weights * norms),
        "the added numbers into JSON": lambda: dumps(added),
    }
    total = 0.0
    for name, part in cost.items():
        seconds = min(timeit.repeat(part, number=3000, repeat=7, timer=time.process_time)) / 3000
        total += seconds
        print(f"{name:34s} {seconds * 1e6:8.1f} us")
    print(f"{'together':34s} {total * 1e6:8.1f} us")


if __name__ == "__main__":
    parts()
    main()
