"""Real servers on a free loopback port for tests and benchmarks, in two kinds:

AppServer: the app built with the settings a test needs, served by uvicorn with the production
options (app/serve.py's server_options) in a thread of this process. Starts in a fraction of a second;
what most tests need a socket for (raw requests, browsers, slow readers).

    with AppServer(Settings(send_timeout=1)) as server:
        httpx.get(server.base + "/healthz")

LiveServer: a server process (the app under plain uvicorn, or the production command scripts/serve
with N workers) with a given environment; ready when /healthz answers; stopped by process group. For
what needs processes: several workers, Redis shared between them, a worker killed, another
PYTHONHASHSEED, another checkout (benchmarks).

    with LiveServer(workers=2, env={"RESPONSE_CACHE_MB": "0"}) as server:
        httpx.get(server.base + "/healthz")
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.processes import stop_session

if TYPE_CHECKING:
    import uvicorn

    from app.settings import Settings

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

    workers=None runs `python -m uvicorn --factory app.main:create_app` (one process, what the browser tests use);
    workers=N runs the production command scripts/serve with WORKERS=N.
    """

    def __init__(
        self,
        *,
        workers: int | None = None,
        env: dict[str, str | None] | None = None,
        port: int | None = None,
        app_dir: Path | None = None,
    ):
        """`env` is added to this process's environment; a name given None is left out."""
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
        self.env = {name: value for name, value in self.env.items() if value is not None}
        self.log = tempfile.NamedTemporaryFile(prefix="lens-server-", suffix=".log", delete=False)  # noqa: SIM115
        self.process: subprocess.Popen | None = None

    def command(self) -> list[str]:
        if self.workers is None:
            return [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "app.main:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--no-access-log",
            ]  # fmt: skip  (the app writes its own access log)
        return [str(self.app_dir / "scripts" / "serve")]

    def start(self, timeout: float = 60) -> LiveServer:
        self.launch()
        return self.wait_until_ready(timeout)

    def launch(self) -> LiveServer:
        """Start the process without waiting for it (several servers then start at once: wait_until_ready)."""
        env = dict(self.env)
        env["WORKERS"] = str(self.workers or 1)  # the app reads it too (live classes need Redis for more than 1)
        self.process = subprocess.Popen(
            self.command(), cwd=self.app_dir, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )
        return self

    def wait_until_ready(self, timeout: float = 60) -> LiveServer:
        """Until /healthz answers (and, with several workers, every worker is there); stopped if it never does."""
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


def captured_loggers() -> list[logging.Logger]:
    """Loggers whose lines an AppServer's output() holds: the access log, the app's other logs, uvicorn's errors."""
    from app.web.accesslog import access_log  # noqa: PLC0415 (benchmarks import this module without the app)

    return [access_log, logging.getLogger("attention_lens"), logging.getLogger("uvicorn.error")]


class AppServer:
    """The app with `settings` (default: the environment's, access log off) under uvicorn with the
    production server options, in a thread of this process, on a free loopback port.

    Same face as LiveServer: start() / stop() or `with`, .port, .host, .base, .output() (the log lines
    written while it ran: access log as JSON lines, the app's warnings, uvicorn's errors; lines of
    other in-process servers running at the same time may be among them). Several may run at once.
    """

    def __init__(self, settings: Settings | None = None, *, port: int | None = None):
        from app.main import create_app  # noqa: PLC0415 (benchmarks import this module without the app)
        from app.settings import Settings  # noqa: PLC0415
        from app.web.accesslog import JsonLines  # noqa: PLC0415

        self.settings = settings or Settings(access_log=False)
        self.app = create_app(self.settings)
        self.port = port or free_port()
        self.host = f"127.0.0.1:{self.port}"
        self.base = f"http://{self.host}"
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None
        self.log = io.StringIO()
        self.handler = logging.StreamHandler(self.log)
        self.handler.setFormatter(JsonLines())

    def start(self, timeout: float = 60) -> AppServer:
        import uvicorn  # noqa: PLC0415

        from app.serve import server_options  # noqa: PLC0415

        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            lifespan="on",
            log_config=None,  # leave the process's logging as it is
            **server_options(self.settings),
        )
        self.server = uvicorn.Server(config)
        for logger in captured_loggers():
            logger.addHandler(self.handler)
        logging.getLogger("attention_lens").setLevel(logging.INFO)
        self.thread = threading.Thread(target=self.server.run, name=f"app-server-{self.port}", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the in-process server did not start within {timeout} s:\n{self.output()[-4000:]}")
            time.sleep(0.02)
        return self

    def stop(self, timeout: float = 25) -> None:
        """Ask uvicorn to exit (open requests drain, streams end); force it if it takes longer than a few seconds."""
        if self.server is not None and self.thread is not None:
            self.server.should_exit = True
            self.thread.join(5)
            if self.thread.is_alive():
                self.server.force_exit = True
                self.thread.join(timeout)
        for logger in captured_loggers():
            logger.removeHandler(self.handler)

    def output(self) -> str:
        return self.log.getvalue()

    def __enter__(self) -> AppServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# The live-class tests' servers: an open stream's keepalive every 0.5 s (it says something soon), no access log.
LIVE_CLASS_ENV = {"LIVE_KEEPALIVE_SECONDS": "0.5", "ACCESS_LOG": "0"}  # a server process's (LiveServer)


def live_class_app(**settings) -> AppServer:
    """The same in this process: AppServer with LIVE_CLASS_ENV's settings and these on top. Like scripts/serve,
    it trusts X-Forwarded-For from 127.0.0.1 (FORWARDED_ALLOW_IPS)."""
    from app.settings import Settings  # noqa: PLC0415 (benchmarks import this module without the app)

    return AppServer(Settings(**{"live_keepalive_seconds": 0.5, "access_log": False, **settings}))
