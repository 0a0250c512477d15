"""The one way tests and benchmarks start a real server: the app (uvicorn) or the production command
(scripts/serve with N workers), on a free loopback port, with a given environment; ready when /healthz
answers; stopped by process group.

    with LiveServer(workers=2, env={"RESPONSE_CACHE_MB": "0"}) as server:
        httpx.get(server.base + "/healthz")
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from tests.support.processes import stop_session

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def children(pid: int) -> list[int]:
    """Direct child processes of `pid` (Linux /proc)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] not in "ZX"
    except OSError:
        return False


class LiveServer:
    """A server process of this checkout (or of `app_dir`, another checkout).

    workers=None runs `python -m uvicorn app.main:app` (one process, what the browser tests use);
    workers=N runs the production command scripts/serve with WORKERS=N.
    """

    def __init__(
        self,
        *,
        workers: int | None = None,
        env: dict[str, str] | None = None,
        port: int | None = None,
        app_dir: Path | None = None,
    ):
        self.workers = workers
        self.app_dir = app_dir or ROOT  # another checkout's app, for before/after benchmarks
        self.port = port or free_port()
        self.host = f"127.0.0.1:{self.port}"
        self.base = f"http://{self.host}"
        self.env = {
            **os.environ,
            "ACCESS_LOG": "1",
            **(env or {}),
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "VENV": str(Path(sys.executable).parents[1]),
        }
        self.log = tempfile.NamedTemporaryFile(prefix="lens-server-", suffix=".log", delete=False)  # noqa: SIM115
        self.process: subprocess.Popen | None = None

    def command(self) -> list[str]:
        if self.workers is None:
            return [
                sys.executable,
                "-m",
                "uvicorn",
                "app.main:app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--no-access-log",
            ]  # fmt: skip  (the app writes its own access log)
        return [str(self.app_dir / "scripts" / "serve")]

    def start(self, timeout: float = 60) -> LiveServer:
        env = dict(self.env)
        env["WORKERS"] = str(self.workers or 1)  # the app reads it too (live classes need Redis for more than 1)
        self.process = subprocess.Popen(
            self.command(), cwd=self.app_dir, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.output()[-4000:]}")
            if (self.workers or 1) == 1 or len(self.worker_pids()) == self.workers:  # one worker: no supervisor
                with contextlib.suppress(OSError), urllib.request.urlopen(self.base + "/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server did not answer /healthz within {timeout} s:\n{self.output()[-4000:]}")

    def worker_pids(self) -> list[int]:
        """scripts/serve: the uvicorn workers (children of the supervisor started by multiprocessing's spawn)."""
        if self.process is None:
            return []
        return [pid for pid in children(self.process.pid) if "spawn_main" in cmdline(pid)]

    def stop(self, timeout: float = 25) -> None:
        """SIGTERM to the process group, then SIGKILL to whatever is left of it."""
        if self.process is None:
            return
        stop_session(self.process, signal.SIGTERM, timeout, to_group=True)

    def output(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
        with contextlib.suppress(OSError):
            os.unlink(self.log.name)
