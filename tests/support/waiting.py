"""Polling for an event instead of sleeping for a guessed time (the same as tests/support/load.py's wait_until,
which replaces it once that module is on this branch)."""

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], object], what: str, timeout: float = 60.0, interval: float = 0.05) -> None:
    """Poll until condition() holds; `timeout` is a hang guard, not a guess at how long the event takes."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(interval)
