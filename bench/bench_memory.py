"""Memory of the app's workers under hostile or heavy traffic. Not a test.

    python -m bench.bench_memory [--links 30000] [--json out.json]

1. Padded links. 30,000 distinct exercise links padded with 15,000 `+` per matrix (a ~45 KB query
   string, a ~750-byte answer each) sent to one worker of scripts/serve, whose response cache holds
   at most RESPONSE_CACHE_MB (64 MiB). The worker's resident memory (VmRSS) before, along the way and
   after. Goal: within the cache bound + 150 MB of where it started.
2. After model traffic. 16 clients ask for 64 new real-model views (~1 MB answers) at once from one
   worker of scripts/serve; its VmRSS at rest before, its peak (VmHWM), and 10 s after the burst.
   What may stay is the response cache (at most 64 MiB) and the model's last 4 sentences.
3. Clients that never read. 100 clients ask for the largest answer (the real model on 128 word
   pieces, the head in focus: ~1 MB without compression) and never read a byte; the worker's VmRSS (and
   nginx's, through nginx) over 15 s. Straight to one worker, and through nginx (deploy/nginx.conf).
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import threading
import time
from pathlib import Path

from bench.bench_stampede import get, heavy_link
from bench.common import machine, memory_mb, print_preamble, require, server_pids
from tests.support.live_server import LiveServer
from tests.support.nginx import Nginx

PAD = 15_000


def padded_link(n: int) -> str:
    """A 2x2 exercise link whose matrices are padded with `+` (spaces): distinct for every n, same view."""
    return f"/api/attention?q={'+' * (PAD + n % 1000)}1,0;0,1&k={'+' * (PAD + n // 1000)}1,0;0,1&v={'+' * PAD}1;2"


def padded_links(count: int) -> dict:
    cache_mb = 64
    with LiveServer(workers=1, env={"ACCESS_LOG": "0", "RESPONSE_CACHE_MB": str(cache_mb)}) as app:
        pid = server_pids(app)[0]
        start = memory_mb(pid)
        samples = [(0, start)]
        threads, per_thread = 4, count // 4
        statuses: dict[int, int] = {}

        def client(offset: int) -> None:
            connection = http.client.HTTPConnection("127.0.0.1", app.port, timeout=30)
            for n in range(offset, offset + per_thread):
                connection.request("GET", padded_link(n))
                response = connection.getresponse()
                response.read()
                statuses[response.status] = statuses.get(response.status, 0) + 1
            connection.close()

        workers = [threading.Thread(target=client, args=(i * per_thread,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        while any(worker.is_alive() for worker in workers):
            time.sleep(2)
            samples.append((sum(statuses.values()), memory_mb(pid)))
        end = memory_mb(pid)
    growth = end - start
    result = {"links": count, "statuses": statuses, "rss_start_mb": start, "rss_end_mb": end, "growth_mb": growth,
              "peak_mb": max(mb for _, mb in samples), "cache_bound_mb": cache_mb,
              "samples": samples, "goal_met": growth <= cache_mb * 1.048576 + 150}  # fmt: skip
    size = len(padded_link(0)) // 1000
    print(f"1. {count:,} distinct padded links (~{size} KB each), one worker, cache {cache_mb} MiB:")
    print(f"    answers: {statuses}; VmRSS {start:.0f} -> {end:.0f} MiB (+{growth:.0f}), peak {result['peak_mb']:.0f}")
    print(f"    Goal (growth within the cache bound + 150 MB): {'met' if result['goal_met'] else 'NOT met'}")
    return result


def after_model_traffic(label: str, workers: int | None) -> dict:
    """One worker gets 64 new model views from 16 clients at once; its VmRSS at rest, peak and 10 s after."""
    with LiveServer(workers=workers, env={"ACCESS_LOG": "0"}) as app:
        pid = server_pids(app)[0]
        links = iter(range(5000, 5064))
        lock = threading.Lock()

        def client() -> None:
            while True:
                with lock:
                    n = next(links, None)
                if n is None:
                    return
                get(app.port, heavy_link(n))

        time.sleep(2)
        rest = memory_mb(pid)
        clients = [threading.Thread(target=client) for _ in range(16)]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
        time.sleep(10)
        after, peak = memory_mb(pid), memory_mb(pid, "VmHWM")
    result = {"server": label, "rest_mb": rest, "peak_mb": peak, "after_mb": after}
    print(f"    {label}: at rest {rest:.0f} MiB, peak {peak:.0f}, 10 s after the burst {after:.0f}")
    return result


def never_read(port: int, pids: list[int], clients: int = 100, seconds: int = 15) -> dict:
    """`clients` connections ask for the largest answer and never read; the peak VmRSS of `pids` meanwhile."""
    link = heavy_link(77)  # the same shared link for everyone
    start = sum(memory_mb(pid) for pid in pids)
    sockets = []
    for _ in range(clients):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a client that reads nothing
        connection.sendall(f"GET {link} HTTP/1.1\r\nHost: lens\r\nAccept-Encoding: identity\r\n\r\n".encode())
        sockets.append(connection)
    peak, deadline = start, time.monotonic() + seconds
    while time.monotonic() < deadline:
        peak = max(peak, sum(memory_mb(pid) for pid in pids))
        time.sleep(0.5)
    for connection in sockets:
        connection.close()
    return {"start_mb": start, "peak_mb": peak, "growth_mb": peak - start}


def slow_readers(skip_nginx: bool) -> dict:
    results = {}
    print("3. 100 clients ask for the largest answer (~1 MB) and never read, 15 s:")
    with LiveServer(workers=1, env={"ACCESS_LOG": "0"}) as app:
        pids = server_pids(app)
        get(app.port, heavy_link(1))  # warm
        time.sleep(3)
        results["direct"] = never_read(app.port, pids)
        print(f"    straight to one worker: worker VmRSS {results['direct']['start_mb']:.0f} -> "
              f"peak {results['direct']['peak_mb']:.0f} MiB (+{results['direct']['growth_mb']:.0f})")  # fmt: skip
    if not skip_nginx:
        with LiveServer(workers=1, env={"ACCESS_LOG": "0"}) as app, Nginx(app.port) as proxy:
            get(app.port, heavy_link(1))
            time.sleep(3)
            worker, nginx_workers = server_pids(app), proxy.worker_pids()
            app_start = memory_mb(worker[0])
            results["nginx"] = never_read(proxy.port, nginx_workers)
            results["nginx"]["app_worker_mb"] = [app_start, memory_mb(worker[0])]
            print(f"    through nginx: nginx workers VmRSS {results['nginx']['start_mb']:.0f} -> peak "
                  f"{results['nginx']['peak_mb']:.0f} MiB (+{results['nginx']['growth_mb']:.0f}); app worker "
                  f"{app_start:.0f} -> {results['nginx']['app_worker_mb'][1]:.0f} MiB")  # fmt: skip
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--links", type=int, default=30_000)
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: padded,model,slow")
    parser.add_argument("--skip-nginx", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not args.skip_nginx:
        require("nginx")
    skip = set(args.skip.split(","))
    info = machine()
    print_preamble(info, ["python -m bench.bench_memory " + " ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if v not in (None, False, ""))])  # fmt: skip
    figures: dict = {"machine": info}
    if "padded" not in skip:
        figures["padded_links"] = padded_links(args.links)
    if "model" not in skip:
        print("2. 64 new model views (~1 MB each, gzip accepted) from 16 clients at once, one worker:")
        figures["after_model_traffic"] = after_model_traffic("scripts/serve, 1 worker", workers=1)
    if "slow" not in skip:
        figures["slow_readers"] = slow_readers(args.skip_nginx)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
