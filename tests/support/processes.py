"""Stopping a server process the tests started in a session of its own (start_new_session=True)."""

import contextlib
import os
import signal
import subprocess


def stop_session(process: subprocess.Popen, first: signal.Signals, timeout: float, *, to_group: bool) -> None:
    """`first` to the process (or, to_group, to its whole process group), up to `timeout` seconds for it to
    exit, then SIGKILL to whatever is left of its group; reaps it."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            (os.killpg if to_group else os.kill)(process.pid, first)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=timeout)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
