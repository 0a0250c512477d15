"""A popular shared link through nginx's proxy_cache, against the uncached rate straight to the app. Not a test.

    RESPONSE_CACHE_MB=0 COALESCE=0 python -m bench.bench_nginx [--connections 200] [--duration 30] [--json out.json]

Starts scripts/serve with 2 workers and Debian's nginx in front with deploy/nginx.conf (tests.support:
LiveServer and Nginx, free loopback ports, nginx's prefix in a temp folder). It checks that the second
request for each link is served from the cache (X-Cache-Status: HIT) with the app's bytes, then runs wrk
for the same link twice: straight to the app and through nginx:

  - GET /api/attention?source=walk+by+river+bank   (the link's JSON)
  - GET /?source=walk+by+river+bank                 (the page)

and prints requests/s, p50, p99, errors, the ratio (goal: at least 10x) and how many of nginx's answers
were cache hits (from its JSON access log). Run it with the app's own cache and coalescing off, so that
"uncached" means every request computed. Needs wrk and nginx (apt-get install -y wrk nginx).
"""

from __future__ import annotations

import argparse
import json
import signal
import time
import urllib.request
from collections import Counter
from pathlib import Path

from bench.bench_load import warm_up
from bench.common import HEADER, REPO, machine, print_preamble, require, row, wrk
from tests.support.live_server import LiveServer
from tests.support.nginx import Nginx

LINKS = ("/api/attention?source=walk+by+river+bank", "/?source=walk+by+river+bank")


def get(base: str, path: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(base + path, timeout=10) as response:
        return response.status, response.headers.get("X-Cache-Status", "-"), response.read()


def cache_statuses(proxy: Nginx) -> Counter:
    time.sleep(1.5)  # the access log is flushed every second
    return Counter(json.loads(line)["cache"] or "-" for line in proxy.access_log())


def reset_log(proxy: Nginx) -> None:
    (proxy.prefix / "logs" / "access.log").write_text("")
    proxy.process.send_signal(signal.SIGUSR1)  # reopen the log file
    time.sleep(0.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--duration", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    require("wrk", "nginx")

    info = machine()
    results, checks, hits = {}, {}, {}
    with LiveServer(workers=2) as app, Nginx(app.port) as proxy:
        commands = [f"cd {REPO} && WORKERS=2 HOST=127.0.0.1 PORT={app.port} scripts/serve",
                    " ".join(proxy.command) + "   # deploy/nginx.conf with the ports replaced"]  # fmt: skip
        for link in LINKS:
            first, second = get(proxy.base, link), get(proxy.base, link)
            checks[link] = [first[1], second[1]]
            if second[1] != "HIT" or second[2] != get(app.base, link)[2]:
                raise SystemExit(f"{link}: the second request was {second[1]} (want HIT with the app's bytes)")
        for link in LINKS:
            warm_up(app.base, link, 20)
            command, results[f"app directly: GET {link}"] = wrk(
                app.base + link, args.connections, args.duration, args.threads
            )
            commands.append(command)
            time.sleep(2)
            reset_log(proxy)
            command, results[f"nginx cache: GET {link}"] = wrk(
                proxy.base + link, args.connections, args.duration, args.threads
            )
            commands.append(command)
            hits[link] = dict(cache_statuses(proxy))
            time.sleep(2)

    print_preamble(info, commands)
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
            f"{link}: {ratios[link]:.1f}x the uncached rate through the cache; cache statuses during wrk: {hits[link]}"
        )
    ok = all(ratio >= 10 for ratio in ratios.values())
    print("Goal (at least 10x):", "met" if ok else "NOT met")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {
                    "machine": info,
                    "commands": commands,
                    "checks": checks,
                    "cache_statuses": hits,
                    "ratios": ratios,
                    "results": results,
                },
                indent=2,
            )
        )
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
