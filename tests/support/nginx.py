"""The one way tests and benchmarks start nginx: Debian's nginx running deploy/nginx.conf and its includes
(deploy/lens/) exactly, with only the app's port and nginx's own port replaced, in the foreground, with its
prefix (cache, temp files, logs) in a temporary folder; stopped by its process id.

    with LiveServer(workers=2) as app, Nginx(app.port) as proxy:
        httpx.get(proxy.base + "/healthz")
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.support.live_server import ROOT, children, free_port
from tests.support.processes import stop_session

CONFIG = ROOT / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
APP_ADDRESS = "server 127.0.0.1:8000 "  # in `upstream lens`
LISTEN = "listen 127.0.0.1:8080;"


def render_config(app_port: int, nginx_port: int) -> str:
    """deploy/nginx.conf with the two port numbers replaced (each must occur exactly once)."""
    text = CONFIG.read_text()
    for old, new in ((APP_ADDRESS, f"server 127.0.0.1:{app_port} "), (LISTEN, f"listen 127.0.0.1:{nginx_port};")):
        if text.count(old) != 1:
            raise ValueError(f"deploy/nginx.conf: expected exactly one {old!r}")
        text = text.replace(old, new)
    return text


class Nginx:
    """nginx with deploy/nginx.conf in front of an app listening on 127.0.0.1:app_port."""

    def __init__(self, app_port: int, *, port: int | None = None):
        self.app_port = app_port
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.prefix = Path(tempfile.mkdtemp(prefix="lens-nginx-"))
        self.conf = self.prefix / "nginx.conf"
        self.command = [NGINX, "-p", str(self.prefix), "-c", str(self.conf), "-e", str(self.prefix / "logs/error.log")]
        self.process: subprocess.Popen | None = None

    def prepare(self) -> None:
        for folder in ("logs", "cache", "tmp"):
            (self.prefix / folder).mkdir(exist_ok=True)
        os.chmod(self.prefix, 0o755)
        if os.geteuid() == 0:  # started as root, nginx's workers run as nobody: they write the cache and temp files
            for folder in ("cache", "tmp"):
                os.chmod(self.prefix / folder, 0o777)
        self.conf.write_text(render_config(self.app_port, self.port))
        shutil.copytree(CONFIG.parent / "lens", self.prefix / "lens", dirs_exist_ok=True)  # its includes
        check = subprocess.run([*self.command, "-t"], capture_output=True, text=True)
        if check.returncode:
            raise RuntimeError("nginx -t failed:\n" + check.stderr)

    def start(self, timeout: float = 60) -> Nginx:  # a hang guard: nginx answers in milliseconds
        """Start nginx; ready when /healthz answers through it (with any status: the app may be down on purpose)."""
        self.prepare()
        self.process = subprocess.Popen(
            self.command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited with {self.process.returncode}:\n{self.error_log()[-4000:]}")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2):
                    return self
            except urllib.error.HTTPError:
                return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"nginx did not answer within {timeout} s:\n{self.error_log()[-4000:]}")

    def worker_pids(self) -> list[int]:
        return children(self.process.pid) if self.process else []

    def access_log(self) -> list[str]:
        """The access log's lines (nginx flushes its buffer at most a second after a request)."""
        path = self.prefix / "logs" / "access.log"
        return path.read_text(errors="replace").splitlines() if path.exists() else []

    def error_log(self) -> str:
        path = self.prefix / "logs" / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self, timeout: float = 15) -> None:
        """SIGQUIT (graceful) to the master by its pid, then SIGKILL to the process group."""
        if self.process is not None:
            stop_session(self.process, signal.SIGQUIT, timeout, to_group=False)
        shutil.rmtree(self.prefix, ignore_errors=True)

    def __enter__(self) -> Nginx:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
