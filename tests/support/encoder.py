"""Running the encoder where a hang would fail a test instead of stopping the run."""

from __future__ import annotations

import threading

from app.engine.models import bert


def errors_of_a_pass(
    params: bert.BertParams, ids: list[int], error: type[BaseException], other_half: bert.OtherHalf | None = None
) -> list[BaseException]:
    """``bert.encode(params, ids, other_half)`` on a thread of its own; the errors of type ``error`` it raised
    (none or one). Asserts that the pass ended: a half left waiting for the other at a meeting would wait forever."""
    raised: list[BaseException] = []

    def encode() -> None:
        try:
            bert.encode(params, ids, other_half)
        except error as e:
            raised.append(e)

    caller = threading.Thread(target=encode, daemon=True)
    caller.start()
    caller.join(timeout=120)  # not a speed limit: a pass takes milliseconds, a half left waiting never ends
    assert not caller.is_alive(), "one half waits forever for the other"
    return raised
