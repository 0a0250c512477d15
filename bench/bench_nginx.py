"""A popular shared link through nginx's proxy_cache, against the uncached rate straight to the app.

    .venv/bin/python bench/bench_nginx.py [--connections 200] [--duration 30] [--json out.json]

Starts two app workers (scripts/serve, WORKERS=2) on a free 127.0.0.1 port, and Debian's nginx
in the foreground with deploy/nginx.conf (`daemon off;`, its prefix, cache and logs in a temp
folder; only the two port numbers in the file are replaced by free ones). It checks that the
second request for each link is served from the cache (X-Cache-Status: HIT), then runs wrk for
the same link twice: straight to the app (every request computed) and through nginx (cached):

  - GET /api/attention?source=walk+by+river+bank   (the link's JSON)
  - GET /?source=walk+by+river+bank                 (the page)

and prints requests/s, p50, p99, errors, the ratio (goal: at least 10x) and how many of nginx's
answers were cache hits (from its access log). Needs wrk and nginx (apt-get install -y wrk nginx).
Not a test: run it by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_load import HEADER, REPO, App, free_port, machine, print_preamble, row, wrk  # noqa: E402

CONFIG = REPO / "deploy" / "nginx.conf"
LINKS = ("/api/attention?source=walk+by+river+bank", "/?source=walk+by+river+bank")


def render_config(app_port: int, nginx_port: int) -> str:
    text = CONFIG.read_text()
    for old, new in (
        ("server 127.0.0.1:8000 ", f"server 127.0.0.1:{app_port} "),
        ("listen 127.0.0.1:8080;", f"listen 127.0.0.1:{nginx_port};"),
    ):
        if text.count(old) != 1:
            raise SystemExit(f"deploy/nginx.conf: expected exactly one {old!r}")
        text = text.replace(old, new)
    return text


class Nginx:
    def __init__(self, app_port: int, port: int):
        self.port = port
        self.prefix = Path(tempfile.mkdtemp(prefix="lens-nginx-"))
        for folder in ("logs", "cache", "tmp"):
            (self.prefix / folder).mkdir()
        os.chmod(self.prefix, 0o755)
        if os.geteuid() == 0:  # nginx's workers then run as nobody: they write the cache and temp files
            for folder in ("cache", "tmp"):
                os.chmod(self.prefix / folder, 0o777)
        self.conf = self.prefix / "nginx.conf"
        self.conf.write_text(render_config(app_port, port))
        self.command = [
            "nginx",
            "-p",
            str(self.prefix),
            "-c",
            str(self.conf),
            "-e",
            str(self.prefix / "logs" / "error.log"),
        ]
        check = subprocess.run(self.command + ["-t"], capture_output=True, text=True)
        if check.returncode:
            raise SystemExit("nginx -t failed:\n" + check.stderr)
        self.process = subprocess.Popen(
            self.command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + 20
        while True:
            if self.process.poll() is not None:
                raise SystemExit("nginx exited:\n" + (self.prefix / "logs" / "error.log").read_text())
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
            if time.monotonic() > deadline:
                raise SystemExit("nginx did not answer in 20 s")

    def get(self, path: str) -> tuple[int, str, bytes]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as response:
            return response.status, response.headers.get("X-Cache-Status", "-"), response.read()

    def cache_statuses(self) -> Counter:
        time.sleep(1.5)  # the access log is flushed every second
        counts = Counter()
        for line in (self.prefix / "logs" / "access.log").read_text().splitlines():
            counts[line.rsplit("cache=", 1)[-1].split()[0]] += 1
        return counts

    def reset_log(self) -> None:
        (self.prefix / "logs" / "access.log").write_text("")
        self.process.send_signal(signal.SIGUSR1)  # reopen the log file
        time.sleep(0.5)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGQUIT)  # graceful
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        shutil.rmtree(self.prefix, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--duration", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing: apt-get install -y {tool}")

    info = machine()
    nginx_version = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()
    app_port, nginx_port = free_port(), free_port()
    app = App(app_port, workers=2)
    nginx = None
    results, checks, hits = {}, {}, {}
    commands = [f"cd {REPO} && {app.command}"]
    try:
        nginx = Nginx(app_port, nginx_port)
        commands.append(" ".join(nginx.command) + "   # deploy/nginx.conf with the ports replaced")
        for link in LINKS:
            first, second = nginx.get(link), nginx.get(link)
            direct = urllib.request.urlopen(f"http://127.0.0.1:{app_port}{link}", timeout=10).read()
            checks[link] = [first[1], second[1]]
            if second[1] != "HIT" or second[2] != direct:
                raise SystemExit(f"{link}: the second request was {second[1]} (want HIT with the app's bytes)")
        for link in LINKS:
            app.warm_up(link, 20)
            command, results[f"app directly: GET {link}"] = wrk(
                f"http://127.0.0.1:{app_port}{link}", args.connections, args.duration, args.threads
            )
            commands.append(command)
            time.sleep(2)
            nginx.reset_log()
            command, results[f"nginx cache: GET {link}"] = wrk(
                f"http://127.0.0.1:{nginx_port}{link}", args.connections, args.duration, args.threads
            )
            commands.append(command)
            hits[link] = dict(nginx.cache_statuses())
            time.sleep(2)
    finally:
        if nginx is not None:
            nginx.stop()
        app.stop()
        os.unlink(app.log.name)

    print_preamble(info, commands, f", {nginx_version}")
    for link, statuses in checks.items():
        print(f"X-Cache-Status of the first two requests for {link}: {statuses[0]}, {statuses[1]}")
    print()
    print(HEADER)
    for name, result in results.items():
        print(row(name, result))
    print()
    ratios = {}
    for link in LINKS:
        ratios[link] = (
            results[f"nginx cache: GET {link}"]["requests_per_s"]
            / results[f"app directly: GET {link}"]["requests_per_s"]
        )
        print(
            f"{link}: {ratios[link]:.1f}x the uncached rate through the cache; nginx cache statuses during wrk: {hits[link]}"
        )
    ok = all(ratio >= 10 for ratio in ratios.values())
    print("Goal (at least 10x):", "met" if ok else "NOT met")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {
                    "machine": info,
                    "nginx": nginx_version,
                    "commands": commands,
                    "checks": checks,
                    "cache_statuses": hits,
                    "ratios": ratios,
                    "results": results,
                },
                indent=2,
            )
        )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
