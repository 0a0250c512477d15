"""A load that runs until the test has seen what it waits for, and polling for an event instead of sleeping for
a guessed time: no test that uses them depends on how fast this machine is, or how busy."""

import threading
import time
from collections.abc import Callable

import httpx


def wait_until(condition: Callable[[], object], what: str, timeout: float = 60.0, interval: float = 0.05) -> None:
    """Poll until condition() holds; `timeout` is a hang guard, not a guess at how long the event takes."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(interval)


class Load:
    """`threads` clients, each sending one request at a time in a loop until stop() or a hard deadline.

    path(n, count) is the path of client n's count-th request; results are (started, finished, outcome), the
    outcome a status code or, for a request the transport lost, the exception's class name."""

    def __init__(
        self,
        base: str,
        path: Callable[[int, int], str],
        threads: int = 6,
        limit: float = 300.0,  # a hang guard: the test stops the load
        headers: dict[str, str] | None = None,
        new_connection_each_request: bool = True,  # as many separate users make: they spread over the workers
        request_timeout: float = 30.0,
    ):
        self.base, self.path, self.request_timeout = base, path, request_timeout
        self.headers = {**(headers or {}), **({"connection": "close"} if new_connection_each_request else {})}
        self.results: list[tuple[float, float, int | str]] = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.deadline = time.monotonic() + limit
        self.threads = [threading.Thread(target=self.run, args=(n,), daemon=True) for n in range(threads)]
        for thread in self.threads:
            thread.start()

    def run(self, n: int) -> None:
        count = 0
        with httpx.Client(base_url=self.base, timeout=self.request_timeout, headers=self.headers) as client:
            while not self.done.is_set() and time.monotonic() < self.deadline:
                count += 1
                started = time.monotonic()
                try:
                    outcome: int | str = client.get(self.path(n, count)).status_code
                except httpx.HTTPError as error:
                    outcome = type(error).__name__
                with self.lock:
                    self.results.append((started, time.monotonic(), outcome))

    def snapshot(self) -> list[tuple[float, float, int | str]]:
        with self.lock:
            return list(self.results)

    def started_after(self, moment: float) -> list[tuple[float, float, int | str]]:
        """The finished requests that started after `moment`."""
        return [result for result in self.snapshot() if result[0] > moment]

    def stop(self) -> list[tuple[float, float, int | str]]:
        self.done.set()
        for thread in self.threads:
            thread.join(timeout=60)
        return self.snapshot()
