"""Load test of the production command with wrk: 200 connections for 30 s, 127.0.0.1 only. Not a test.

    python -m bench.bench_load [--connections 200] [--duration 30] [--workers 2] [--json out.json]

Starts scripts/serve (tests.support.live_server.LiveServer: WORKERS=2, a free loopback port, the access
log on as in production, written to a temp file), warms it up, then in the same run:

  1. wrk on GET /api/attention?source=walk+by+river+bank   (a shared link's JSON)
  2. wrk on GET /healthz                                      (the trivial endpoint, the baseline)

and prints requests/s, p50 and p99 latency, socket errors and timeouts, non-2xx answers, plus the machine
and the exact commands. Goal: zero errors and timeouts. Needs wrk (`apt-get install -y wrk`).
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.request
from pathlib import Path

from bench.common import HEADER, REPO, machine, print_preamble, require, row, wrk
from tests.support.live_server import LiveServer

LINK = "/api/attention?source=walk+by+river+bank"
TRIVIAL = "/healthz"


def warm_up(base: str, path: str, requests: int = 50) -> None:
    for _ in range(requests):
        with urllib.request.urlopen(base + path, timeout=10) as response:
            response.read()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--duration", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    require("wrk")

    info = machine()
    results = {}
    with LiveServer(workers=args.workers) as server:
        commands = [f"cd {REPO} && WORKERS={args.workers} HOST=127.0.0.1 PORT={server.port} scripts/serve"]
        try:
            for name, path in (("GET " + LINK, LINK), ("GET " + TRIVIAL, TRIVIAL)):
                warm_up(server.base, path)
                command, results[name] = wrk(server.base + path, args.connections, args.duration, args.threads)
                commands.append(command)
                time.sleep(2)
        finally:
            server.stop()  # SIGTERM: the exit code shows a clean shutdown
        exit_code = server.process.returncode
        log_lines = sum(line.startswith('{"time"') for line in server.output().splitlines())

    print_preamble(info, commands)
    print(HEADER)
    for name, result in results.items():
        print(row(name, result))
    print()
    print(f"Access log lines (one per request): {log_lines:,}; scripts/serve exit code after SIGTERM: {exit_code}")
    ok = all(sum(r["errors"].values()) == 0 and r["non_2xx_3xx"] == 0 for r in results.values())
    print("Goal (zero errors and timeouts):", "met" if ok else "NOT met")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": info, "commands": commands, "results": results}, indent=2))
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
