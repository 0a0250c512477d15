"""A class opening one new link at once, and /healthz while the app works hard. Not a test.

    python -m bench.bench_stampede [--seconds 20] [--rounds 3] [--json out.json]

1. Coalescing. The CPU time of the app's worker processes (from /proc) for 16 simultaneous requests for
   one new link, against one request for another new link of the same size: the real model on a
   128-word-piece sentence, the head in focus (a ~1 MB answer, gzip accepted as browsers do).
   Straight to scripts/serve with 1 and with 2 workers, and through nginx (deploy/nginx.conf) in front
   of 2 workers. The median ratio of `--rounds` rounds. Goal: at most 2x.
2. /healthz under load. scripts/serve with 2 workers while 16 clients keep asking for new heavy model
   views (each a new sentence, so never from a cache): /healthz is asked every 50 ms on a new
   connection, as a load balancer does. Goal: p99 under 250 ms. Then the same with 100 clients asking
   for new 128-token, 8-head views of the toy engine (~0.8 MB answers, a new seed each), more requests
   at once than a worker's thread pool has threads.

Everything runs on 127.0.0.1 on free ports, bounded in time; the clients share the machine's CPUs.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import threading
import time
from pathlib import Path
from urllib.parse import quote

from bench.common import cpu_seconds as cpu
from bench.common import machine, print_preamble, require, sentence, server_pids, summary_ms
from tests.support.live_server import LiveServer
from tests.support.nginx import Nginx

SENTENCE = sentence(118)  # 118 words, 120 word pieces with CLS and SEP
HEAVY = "/api/attention?model=minilm&source={source}"
TOY = "/api/attention?heads=8&projection=random&seed={seed}&source=" + quote(SENTENCE + " and then")
CLIENTS = 16


def heavy_link(n: int) -> str:
    """A model link nobody asked for before: the sentence starts with its own number."""
    return HEAVY.format(source=quote(f"lesson {n} {SENTENCE}"))


def get(port: int, path: str, timeout: float = 120) -> tuple[int, int]:
    """GET on a new connection, gzip accepted; (status, bytes read)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path, headers={"Accept-Encoding": "gzip", "Connection": "close"})
        response = connection.getresponse()
        return response.status, len(response.read())
    finally:
        connection.close()


def simultaneous(port: int, path: str, count: int) -> list[int]:
    """`count` requests for `path` released at the same instant; their statuses."""
    barrier = threading.Barrier(count)
    statuses = [0] * count

    def one(i: int) -> None:
        barrier.wait()
        statuses[i] = get(port, path)[0]

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def cpu_of(pids: list[int], action) -> float:
    before = cpu(pids)
    action()
    time.sleep(0.3)  # let the workers finish what follows the last byte (logging, freeing)
    return cpu(pids) - before


def coalescing(label: str, app: LiveServer, port: int, rounds: int, first_link: int) -> dict:
    pids = server_pids(app)
    get(port, heavy_link(first_link))  # the model is loaded, the code paths warm
    ratios, singles, stampedes = [], [], []
    for r in range(rounds):
        one, many = heavy_link(first_link + 1 + 2 * r), heavy_link(first_link + 2 + 2 * r)
        singles.append(cpu_of(pids, lambda one=one: get(port, one)))
        statuses: list[int] = []
        stampedes.append(
            cpu_of(pids, lambda many=many, statuses=statuses: statuses.extend(simultaneous(port, many, CLIENTS)))
        )
        assert statuses == [200] * CLIENTS, statuses
        ratios.append(stampedes[-1] / singles[-1])
    result = {
        "setup": label,
        "one_request_cpu_s": statistics.median(singles),
        "sixteen_cpu_s": statistics.median(stampedes),
        "ratio": statistics.median(ratios),
        "ratios": ratios,
    }
    print(
        f"| {label} | {result['one_request_cpu_s']:.2f} s | {result['sixteen_cpu_s']:.2f} s | "
        f"**{result['ratio']:.2f}x** ({', '.join(f'{x:.2f}' for x in ratios)}) |"
    )
    return result


def toy_link(n: int) -> str:
    """A heavy view of the toy engine nobody asked for before: 128 tokens, 8 heads (a ~0.8 MB answer)."""
    return TOY.format(seed=n)


def healthz_under_load(seconds: int, clients: int = CLIENTS, link=None) -> dict:
    link = link or heavy_link
    with LiveServer(workers=2, env={"ACCESS_LOG": "0"}) as app:
        get(app.port, heavy_link(0))
        get(app.port, heavy_link(0))  # both workers have loaded the model (probably)
        stop = threading.Event()
        heavy_times, heavy_statuses, health = [], [], []
        counter = iter(range(1000, 10**9))

        def heavy_client() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                heavy_statuses.append(get(app.port, link(next(counter)))[0])
                heavy_times.append(time.perf_counter() - started)

        threads = [threading.Thread(target=heavy_client) for _ in range(clients)]
        for thread in threads:
            thread.start()
        time.sleep(2)  # every client has a request in flight
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                status = get(app.port, "/healthz", timeout=10)[0]
            except OSError:
                status = 0
            health.append((time.perf_counter() - started, status))
            time.sleep(max(0.0, 0.05 - (time.perf_counter() - started)))
        stop.set()
        for thread in threads:
            thread.join()
    latencies = [seconds for seconds, _ in health]
    result = {
        "healthz": summary_ms(latencies),
        "healthz_p99_ms": sorted(latencies)[round(0.99 * (len(latencies) - 1))] * 1000,
        "healthz_failures": sum(status != 200 for _, status in health),
        "heavy_requests": len(heavy_times),
        "heavy": summary_ms(heavy_times),
        "heavy_non_200": sum(status != 200 for status in heavy_statuses),
    }
    kind = "model views" if link is heavy_link else "128-token 8-head views"
    print(f"/healthz every 50 ms while {clients} clients ask for new {kind} for {seconds} s (2 workers):")
    print(f"    /healthz: {result['healthz']}, failures {result['healthz_failures']}")
    print(f"    views: {result['heavy_requests']} answered, {result['heavy']}, non-200 {result['heavy_non_200']}")
    print("    Goal (p99 under 250 ms):", "met" if result["healthz_p99_ms"] < 250 else "NOT met")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=20, help="length of the /healthz measurement")
    parser.add_argument("--rounds", type=int, default=3, help="coalescing rounds per setup")
    parser.add_argument("--skip-nginx", action="store_true")
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: coalescing,healthz")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not args.skip_nginx:
        require("nginx")
    info = machine()
    print_preamble(info, ["cd " + str(Path.cwd()) + " && python -m bench.bench_stampede " + " ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if v not in (None, False))])  # fmt: skip
    figures = {"machine": info, "coalescing": []}
    skip = set(args.skip.split(","))
    if "coalescing" not in skip:
        print(f"{CLIENTS} simultaneous requests for one new model link, CPU time of the app's workers:\n")
        print("| setup | one request | 16 at once | ratio (rounds) |\n|---|---|---|---|")
        for workers in (1, 2):
            with LiveServer(workers=workers, env={"ACCESS_LOG": "0"}) as app:
                label = f"scripts/serve, {workers} worker{'s' * (workers > 1)}"
                figures["coalescing"].append(coalescing(label, app, app.port, args.rounds, 100 * workers))
        if not args.skip_nginx:
            with LiveServer(workers=2, env={"ACCESS_LOG": "0"}) as app, Nginx(app.port) as proxy:
                figures["coalescing"].append(coalescing("nginx + 2 workers", app, proxy.port, args.rounds, 300))
        print()
    if "healthz" not in skip:
        figures["healthz_under_load"] = healthz_under_load(args.seconds)
        print()
        figures["healthz_under_100"] = healthz_under_load(args.seconds, clients=100, link=toy_link)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
