"""What one worker costs at rest: RSS and PSS per worker for 1 and 2 workers, and the start-up time.

    python -m bench.bench_worker_memory [--settle 20] [--json out.json] [--app-dir OTHER_CHECKOUT]

The production command (scripts/serve, WORKERS=1 then 2), nothing else running against it. Start-up:
from the command's start until /healthz answers 200 (every worker started), and each worker's CPU time
by then (user + system: about what the start-up takes on an idle machine). At rest: the workers are then
left alone until their RSS has not grown for `--settle` seconds (start-up work in the background, the
lessons, ends), then each worker's VmRSS and its PSS (/proc/<pid>/smaps_rollup: pages shared with the
other worker, e.g. a file both map, count half). Then "in use": both real models asked for by a few
requests with different sentences (new connections, so that both workers get some), and the workers
measured again once at rest. Then "long sentences": 128-piece sentences, whose second half of rows each
worker hands to its helper process (``app/engine/models/row_process.py``); each worker and its helper
measured at rest (the helper maps the same weights file: PSS counts those pages once across all). Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path

import httpx

from bench.common import machine
from tests.support.live_server import LiveServer, children


def rss_pss_mb(pid: int) -> dict:
    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    found = {key: int(kb) / 1024 for key, kb in re.findall(r"^(\w+):\s+(\d+) kB", rollup, re.M)}
    private = found["Private_Clean"] + found["Private_Dirty"]  # USS: what the process alone holds
    return {"rss_mb": round(found["Rss"], 1), "pss_mb": round(found["Pss"], 1), "uss_mb": round(private, 1)}


def at_rest(pids: list[int], settle: float, guard: float = 600) -> list[dict]:
    """Each worker's RSS and PSS once no worker's RSS has grown for `settle` seconds."""
    deadline = time.monotonic() + guard
    highest = [0.0] * len(pids)
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        now = [rss_pss_mb(pid)["rss_mb"] for pid in pids]
        if any(rss > high + 1 for rss, high in zip(now, highest, strict=True)):
            quiet_since = time.monotonic()
        highest = [max(rss, high) for rss, high in zip(now, highest, strict=True)]
        if time.monotonic() - quiet_since >= settle:
            break
        time.sleep(1)
    return [rss_pss_mb(pid) for pid in pids]


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the process has used: what its start-up costs on an idle machine."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 2)


def use_both_models(base: str, rounds: int) -> None:
    """Each real model asked for `rounds` different sentences, each on a new connection."""
    for i in range(rounds):
        for model in ("minilm", "e5"):
            query = {"model": model, "source": f"the river bank number {i} by the old mill", "layer": "0"}
            response = httpx.get(base + "/api/attention", params=query, timeout=300)
            response.raise_for_status()


def use_long_sentences(base: str, rounds: int) -> None:
    """Each real model asked for `rounds` different 128-piece sentences (new connections), a second apart: the
    first sentences start each worker's helper, the later ones use it."""
    for i in range(rounds):
        for model in ("minilm", "e5"):
            source = " ".join(["attention lets every token look at every other one"] * 12) + f" {i}"
            query = {"model": model, "source": source, "layer": "0"}
            httpx.get(base + "/api/attention", params=query, timeout=300)  # 200, or 400 when it is too long
        time.sleep(1)


def measure(workers: int, settle: float, app_dir: Path | None = None) -> dict:
    server = LiveServer(workers=workers, env={"ACCESS_LOG": "0"}, app_dir=app_dir)
    started = time.perf_counter()
    server.start(timeout=600)
    startup_s = time.perf_counter() - started
    try:
        pids = server.worker_pids() if workers > 1 else [server.process.pid]
        startup_cpu = [cpu_seconds(pid) for pid in pids]
        rest = at_rest(pids, settle)
        use_both_models(server.base, 4 * workers)
        in_use = at_rest(pids, settle)
        use_long_sentences(server.base, 4 * workers)
        helpers = [kid for pid in pids for kid in children(pid)]
        return {
            "workers": workers,
            "startup_s": round(startup_s, 2),
            "startup_cpu_s": startup_cpu,
            "per_worker": rest,
            "in_use": in_use,
            "long_sentences": at_rest(pids + helpers, settle),
            "n_helpers": len(helpers),
        }
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--settle", type=float, default=20)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--app-dir", type=Path, help="another checkout's app (before/after)")
    args = parser.parse_args()
    results = {"machine": machine(), "runs": [measure(workers, args.settle, args.app_dir) for workers in (1, 2)]}
    m = results["machine"]
    print(f"{m['date']}, {m['nproc']} CPUs, load {' '.join(m['loadavg_before'])}")
    print(
        "| workers | start-up to /healthz (each worker's CPU) | per worker at rest: RSS / PSS "
        "| both models in use: RSS / PSS | long sentences: each worker's, then each helper's RSS / PSS / USS |"
    )
    print("|---|---|---|---|---|")
    for run in results["runs"]:
        cpu = ", ".join(f"{c} s" for c in run["startup_cpu_s"])
        cells = ", ".join(f"{w['rss_mb']} / {w['pss_mb']} MB" for w in run["per_worker"])
        used = ", ".join(f"{w['rss_mb']} / {w['pss_mb']} MB" for w in run["in_use"])
        long = ", ".join(f"{w['rss_mb']} / {w['pss_mb']} / {w['uss_mb']} MB" for w in run["long_sentences"])
        long += f" ({run['n_helpers']} helpers)"
        print(f"| {run['workers']} | {run['startup_s']} s ({cpu}) | {cells} | {used} | {long} |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
