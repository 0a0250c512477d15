"""Hostile clients: huge request headers and idle connections. Not a test.

    python -m bench.bench_clients [--idle 10000] [--json out.json]

1. Headers. GET /healthz with a 17 KiB cookie (20 times) and with a 32 MiB cookie (5 times), straight to
   scripts/serve (1 worker) and through nginx (deploy/nginx.conf): the status and the time from sending
   to the first byte of the answer; then /healthz once more. Goal: a 4xx within 100 ms, the worker
   unaffected.
2. Idle connections through nginx. `--idle` connections that never send a byte, while /healthz is asked
   every 100 ms: how its latency holds, and when nginx closes the idle ones (client_header_timeout,
   10 s in deploy/nginx.conf). Goal: all closed after the documented timeout, /healthz answering
   throughout.
3. Idle connections straight to scripts/serve (1 worker, LIMIT_CONCURRENCY=1000), for comparison:
   2,000 idle connections for 5 s. The HTTP server never closes a connection that has not sent a
   request, and past its limit it answers 503: this is why nginx faces the clients.
"""

from __future__ import annotations

import argparse
import json
import resource
import selectors
import socket
import statistics
import time
from pathlib import Path

import httpx

from bench.common import exchange, machine, print_preamble, require, summary_ms
from tests.support.live_server import LiveServer
from tests.support.nginx import Nginx

KiB = 1024


def cookie_request(size: int) -> bytes:
    return b"GET /healthz HTTP/1.1\r\nHost: lens\r\nCookie: " + b"c" * size + b"\r\nConnection: close\r\n\r\n"


def headers(label: str, port: int, base: str) -> dict:
    result = {}
    for name, size, tries in (("17 KiB cookie", 17 * KiB, 20), ("32 MiB cookie", 32 * KiB * KiB, 5)):
        answers = [exchange(port, cookie_request(size)) for _ in range(tries)]
        statuses = sorted({status for status, _, _ in answers})
        after = httpx.get(base + "/healthz", timeout=5).status_code
        result[name] = {"statuses": statuses, "first_byte": summary_ms([seconds for _, _, seconds in answers]),
                        "healthz_after": after}  # fmt: skip
        print(f"| {label} | {name} | {statuses} | {result[name]['first_byte']} | {after} |")
    return result


def open_idle(port: int, count: int) -> dict[socket.socket, float]:
    """`count` connections that send nothing, each with the moment it was opened."""
    connections = {}
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.setblocking(False)
        connections[connection] = time.monotonic()
    return connections


def watch_idle(base: str, connections: dict[socket.socket, float], seconds: float) -> dict:
    """Ask /healthz every 100 ms for `seconds`; note how long after its opening the server closed each idle one."""
    selector = selectors.DefaultSelector()
    for connection in connections:
        selector.register(connection, selectors.EVENT_READ)
    opened, closed_after, health = time.monotonic(), [], []
    with httpx.Client(timeout=5, headers={"connection": "close"}) as client:
        while time.monotonic() - opened < seconds:
            started = time.perf_counter()
            try:
                status = client.get(base + "/healthz").status_code
            except httpx.HTTPError:
                status = 0
            health.append((time.perf_counter() - started, status))
            for key, _ in selector.select(timeout=0.1):
                try:
                    gone = key.fileobj.recv(1024) == b""
                except ConnectionResetError:
                    gone = True
                if gone:
                    selector.unregister(key.fileobj)
                    closed_after.append(time.monotonic() - connections[key.fileobj])
    for connection in connections:
        connection.close()
    statuses = [status for _, status in health]
    spread = [min(closed_after), statistics.median(closed_after), max(closed_after)] if closed_after else []
    return {
        "idle": len(connections),
        "closed": len(closed_after),
        "closed_after_s": spread,
        "healthz": summary_ms([seconds for seconds, _ in health]),
        "healthz_statuses": {str(status): statuses.count(status) for status in sorted(set(statuses))},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--idle", type=int, default=10_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    require("nginx")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this process holds the idle connections
    info = machine()
    print_preamble(info, [f"python -m bench.bench_clients --idle {args.idle}"])
    figures: dict = {"machine": info}

    print("1. Request headers (time from sending to the first byte of the answer):\n")
    print("| to | header | statuses | first byte | /healthz after |\n|---|---|---|---|---|")
    with LiveServer(workers=1, env={"ACCESS_LOG": "0"}) as app:
        figures["headers_direct"] = headers("scripts/serve", app.port, app.base)
        with Nginx(app.port) as proxy:
            figures["headers_nginx"] = headers("nginx", proxy.port, proxy.base)

            print(f"\n2. {args.idle:,} idle connections to nginx, /healthz every 100 ms:")
            idle = open_idle(proxy.port, args.idle)
            result = figures["idle_nginx"] = watch_idle(proxy.base, idle, 20)
            print(f"    closed by nginx: {result['closed']:,} of {result['idle']:,}, after "
                  f"{' / '.join(f'{s:.1f}' for s in result['closed_after_s'])} s (first / median / last)")  # fmt: skip
            print(f"    /healthz: {result['healthz']}; statuses {result['healthz_statuses']}")

    print("\n3. 2,000 idle connections straight to scripts/serve (1 worker, LIMIT_CONCURRENCY=1000), 5 s:")
    with LiveServer(workers=1, env={"ACCESS_LOG": "0"}) as app:
        result = figures["idle_direct"] = watch_idle(app.base, open_idle(app.port, 2000), 5)
    print(f"    closed by the server: {result['closed']:,} of {result['idle']:,}")
    print(f"    /healthz: {result['healthz']}; statuses {result['healthz_statuses']}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
