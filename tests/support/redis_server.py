"""A real redis-server (Debian's) for tests and benchmarks: a free loopback port, no files unless asked,
ready when it answers PING, stopped by its process id.

    with RedisServer() as redis:
        LiveServer(workers=2, env={"REDIS_URL": redis.url})

`persist=True` keeps the data in an append-only file in a temporary folder, so that `stop()` then
`start()` (the same port) finds the rooms again, as a production Redis with persistence would.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support.live_server import free_port
from tests.support.processes import stop_session

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def ping(port: int) -> bool:
    """Does a Redis answer PING on 127.0.0.1:port? (The protocol's inline form: no client needed.)"""
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
        connection.sendall(b"PING\r\n")
        return connection.recv(16).startswith(b"+PONG")
    return False


class RedisServer:
    def __init__(self, *, port: int | None = None, persist: bool = False):
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.persist = persist
        self.folder = tempfile.mkdtemp(prefix="lens-redis-")
        self.log = Path(self.folder) / "redis.log"
        self.process: subprocess.Popen | None = None

    def command(self) -> list[str]:
        files = ["--appendonly", "yes", "--appendfsync", "always"] if self.persist else ["--appendonly", "no"]
        return [
            REDIS_SERVER,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--save", "",
            *files,
            "--dir", self.folder,
            "--logfile", str(self.log),
            "--daemonize", "no",
        ]  # fmt: skip

    def start(self, timeout: float = 60) -> RedisServer:  # a hang guard: it answers in milliseconds
        self.process = subprocess.Popen(
            self.command(), stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}: {self.output()[-2000:]}")
            if ping(self.port):
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer PING within {timeout} s: {self.output()[-2000:]}")

    def stop(self, timeout: float = 10) -> None:
        """SIGTERM (Redis closes its clients' connections and exits), then SIGKILL if it lingers."""
        if self.process is None:
            return
        stop_session(self.process, signal.SIGTERM, timeout, to_group=False)
        self.process = None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
