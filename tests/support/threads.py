"""Which threads are inside a function right now: a test that needs several threads to be waiting at one point
(a lock, a gate) observes them there instead of sleeping and hoping they got there."""

import sys
import threading
from collections.abc import Callable


def inside(threads: list[threading.Thread], function: Callable) -> list[threading.Thread]:
    """The threads whose innermost Python frame is `function`'s (a thread blocked on a lock it takes shows the
    frame that asked for the lock: the lock itself is C)."""
    frames = sys._current_frames()
    return [
        thread
        for thread in threads
        if (frame := frames.get(thread.ident)) is not None and frame.f_code is function.__code__
    ]
