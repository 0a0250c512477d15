"""Load test of the production command with wrk: 200 connections for 30 s, 127.0.0.1 only.

    .venv/bin/python bench/bench_load.py [--connections 200] [--duration 30] [--workers 2] [--json out.json]

Starts scripts/serve (WORKERS=2, HOST=127.0.0.1, a free port, the access log on as in
production, written to a temp file), warms it up, then in the same run:

  1. wrk on GET /api/attention?source=walk+by+river+bank   (a shared link's JSON)
  2. wrk on GET /healthz                                      (the trivial endpoint, the baseline)

and prints requests/s, p50 and p99 latency, socket errors and timeouts, non-2xx answers, plus
the machine (nproc, CPU model) and the exact commands. Goal: zero errors and timeouts.
Needs wrk (`apt-get install -y wrk`). Not a test: run it by hand.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINK = "/api/attention?source=walk+by+river+bank"
TRIVIAL = "/healthz"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def machine() -> dict:
    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    wrk = subprocess.run(["wrk", "--version"], capture_output=True, text=True).stdout.splitlines()
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "loadavg_before": Path("/proc/loadavg").read_text().split()[:3],
        "python": platform.python_version(),
        "kernel": platform.release(),
        "wrk": " ".join(wrk[0].split()[:2]) if wrk else "?",
    }


class App:
    """scripts/serve as a subprocess on 127.0.0.1:<port>."""

    def __init__(self, port: int, workers: int):
        self.port = port
        self.log = tempfile.NamedTemporaryFile(prefix="lens-serve-", suffix=".log", delete=False)
        env = {
            **os.environ,
            "WORKERS": str(workers),
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "VENV": str(REPO / ".venv"),
        }
        self.command = f"WORKERS={workers} HOST=127.0.0.1 PORT={port} scripts/serve"
        self.process = subprocess.Popen(
            [str(REPO / "scripts" / "serve")],
            cwd=REPO,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise SystemExit("scripts/serve exited:\n" + Path(self.log.name).read_text())
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("scripts/serve did not start in 60 s")
            time.sleep(0.2)

    def warm_up(self, path: str, requests: int = 50) -> None:
        for _ in range(requests):
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as response:
                response.read()

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            return self.process.wait()
        finally:
            self.log.close()


UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def to_ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * UNITS[unit]


def parse_wrk(output: str) -> dict:
    result = {"errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0}, "non_2xx_3xx": 0}
    result["requests_per_s"] = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    result["requests"] = int(re.search(r"(\d+) requests in", output).group(1))
    for label, key in (("50%", "p50_ms"), ("75%", "p75_ms"), ("90%", "p90_ms"), ("99%", "p99_ms")):
        result[key] = to_ms(re.search(rf"^\s+{re.escape(label)}\s+(\S+)", output, re.M).group(1))
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if errors:
        result["errors"] = dict(zip(("connect", "read", "write", "timeout"), map(int, errors.groups())))
    non_ok = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if non_ok:
        result["non_2xx_3xx"] = int(non_ok.group(1))
    return result


def wrk(url: str, connections: int, duration: int, threads: int) -> tuple[str, dict]:
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--timeout", "2s", "--latency", url]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return " ".join(command), {**parse_wrk(output), "raw": output}


def row(name: str, result: dict) -> str:
    e = result["errors"]
    return (
        f"| {name} | {result['requests_per_s']:,.0f} | {result['p50_ms']:.1f} ms | {result['p99_ms']:.1f} ms | "
        f"{e['connect'] + e['read'] + e['write']} | {e['timeout']} | {result['non_2xx_3xx']} | {result['requests']:,} |"
    )


HEADER = "| endpoint | requests/s | p50 | p99 | socket errors | timeouts | non-2xx/3xx | requests |\n|---|---|---|---|---|---|---|---|"


def print_preamble(info, commands, tools="") -> None:
    """The machine, the date and the exact commands, before a run's table."""
    print(
        f"Machine: {info['nproc']} CPUs ({info['cpu']}), Linux {info['kernel']}, Python {info['python']}, {info['wrk']}{tools}"
    )
    print(f"Date: {info['date']}; load average before the run: {' '.join(info['loadavg_before'])}")
    print("Commands:")
    for command in commands:
        print("    " + command)
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--duration", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: apt-get install -y wrk")

    info = machine()
    port = free_port()
    app = App(port, args.workers)
    results = {}
    commands = [f"cd {REPO} && {app.command}"]
    try:
        for name, path in (("GET " + LINK, LINK), ("GET " + TRIVIAL, TRIVIAL)):
            app.warm_up(path)
            command, results[name] = wrk(
                f"http://127.0.0.1:{port}{path}", args.connections, args.duration, args.threads
            )
            commands.append(command)
            time.sleep(2)
    finally:
        exit_code = app.stop()
    log_lines = sum(1 for _ in open(app.log.name, "rb"))
    os.unlink(app.log.name)

    print_preamble(info, commands)
    print(HEADER)
    for name, result in results.items():
        print(row(name, result))
    print()
    print(f"Server log lines (one per request): {log_lines:,}; scripts/serve exit code after SIGTERM: {exit_code}")
    ok = all(sum(r["errors"].values()) == 0 and r["non_2xx_3xx"] == 0 for r in results.values())
    print("Goal (zero errors and timeouts):", "met" if ok else "NOT met")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": info, "commands": commands, "results": results}, indent=2))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
