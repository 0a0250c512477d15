"""How many students one worker holds: /healthz p99 < 250 ms and an update reaching all within 1 s.

    python -m bench.bench_capacity [--steps 1000,2000,3000,4000,5000] [--store memory|redis] [--json out.json]

One worker of the production command (scripts/serve, WORKERS=1, default limits except the per-room,
per-address and per-worker stream limits raised so that one room may hold the whole crowd, all from
127.0.0.1). Students join one room in batches of 100 up to each step; at each step, while the streams
stay open:

- /healthz, 200 requests one after another from a separate process (its own event loop and GIL):
  p50 / p99 / max, and how many were not 200;
- 3 updates of the teacher, 1 s apart: the time from just before the PUT until the last student has
  read the event (the slowest delivery), and p99 over every delivery.

The students are raw asyncio connections in this process (bench/bench_live.py), so their reading
shares the machine's CPUs with the worker: the figures are what one machine does with both. Also the
open-files limit (`ulimit -n`) and the worker's RSS at each step. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import resource
import time
from pathlib import Path

import httpx

from bench.bench_live import VIEW, Crowd, RawStudent, deliver, memory_mb, summary, updates
from bench.common import machine
from tests.support.live_server import LiveServer
from tests.support.redis_server import RedisServer

GOAL_HEALTHZ_P99_MS = 250
GOAL_DELIVERY_MS = 1000


def probe_healthz(base: str, count: int) -> list[float | None]:
    """`count` sequential GET /healthz, 10 ms apart; each latency in ms, None when not 200."""
    results: list[float | None] = []
    with httpx.Client(base_url=base, timeout=10) as client:
        for _ in range(count):
            started = time.perf_counter()
            try:
                ok = client.get("/healthz").status_code == 200
            except httpx.HTTPError:
                ok = False
            results.append((time.perf_counter() - started) * 1000 if ok else None)
            time.sleep(0.01)
    return results


async def healthz_under_load(base: str, count: int = 200) -> dict:
    loop = asyncio.get_running_loop()
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        results = await loop.run_in_executor(None, pool.apply, probe_healthz, (base, count))
    answered = [ms for ms in results if ms is not None]
    return {**summary(answered), "failed": len(results) - len(answered)}


async def ramp(server: LiveServer, steps: list[int]) -> list[dict]:
    pid = server.process.pid
    rows = []
    async with httpx.AsyncClient(base_url=server.base, timeout=60) as client:
        room = (await client.post("/api/rooms", json={"view": VIEW})).json()
        crowd = Crowd(max(steps))
        students: list[RawStudent] = []
        version = room["version"]
        for step in steps:
            crowd.size = step
            while len(students) < step:
                batch = [
                    RawStudent("127.0.0.1", server.port, room["events_url"], crowd)
                    for _ in range(min(100, step - len(students)))
                ]
                await asyncio.gather(*(student.connect() for student in batch))
                students += batch
            await crowd.wait(version)
            await asyncio.sleep(1)
            healthz = await healthz_under_load(server.base)
            latencies, slowest = [], []
            for view in updates(3):
                view = f"{view}&step={len(rows) + 1}"
                version += 1
                crowd.arrivals.pop(version, None)
                got = await deliver(client, {**room, "version": version - 1}, crowd, [view])
                latencies += got
                slowest.append(max(got))
                await asyncio.sleep(1)
            deliveries = summary(latencies)
            row = {
                "students": step,
                "healthz": healthz,
                "delivery": {**deliveries, "slowest_update_ms": round(max(slowest), 1)},
                "rss_mb": memory_mb(pid)["rss_mb"],
            }
            row["ok"] = (
                healthz["failed"] == 0
                and healthz["p99_ms"] < GOAL_HEALTHZ_P99_MS
                and row["delivery"]["slowest_update_ms"] < GOAL_DELIVERY_MS
            )
            rows.append(row)
            print(json.dumps(row), flush=True)
        for student in students:
            student.close()
    return rows


def report(results: dict) -> str:
    m = results["machine"]
    lines = [
        f"{m['date']}, {m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, load {' '.join(m['loadavg_before'])}; "
        f"open files {results['nofile']}, rooms in {results['store']}",
        "",
        "| students on one worker | /healthz p50 / p99 / max (not 200) | update to all: slowest of 3 | delivery p99 "
        "| worker RSS | goals met |",
        "|---|---|---|---|---|---|",
    ]
    for row in results["rows"]:
        h, d = row["healthz"], row["delivery"]
        lines.append(
            f"| {row['students']:,} | {h['p50_ms']} / {h['p99_ms']} / {h['max_ms']} ms ({h['failed']}) "
            f"| {d['slowest_update_ms']} ms | {d['p99_ms']} ms | {row['rss_mb']} MB | {'yes' if row['ok'] else 'no'} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default="1000,2000,3000,4000,5000")
    parser.add_argument("--store", choices=["memory", "redis"], default="memory")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()
    steps = [int(step) for step in args.steps.split(",")]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this process holds every student's socket
    wide = str(max(steps) + 100)
    env = {"ACCESS_LOG": "0", "ROOM_STREAMS_MAX": wide, "LIVE_STREAMS_MAX": wide, "LIVE_STREAMS_PER_CLIENT": wide}
    env["LIMIT_CONCURRENCY"] = str(max(8000, (max(steps) + 100) * 4 // 3 + 1))
    results = {"machine": machine(), "nofile": hard, "store": args.store, "steps": steps}
    if args.store == "redis":
        with RedisServer() as redis, LiveServer(workers=1, env={**env, "REDIS_URL": redis.url}) as server:
            results["rows"] = asyncio.run(ramp(server, steps))
    else:
        with LiveServer(workers=1, env=env) as server:
            results["rows"] = asyncio.run(ramp(server, steps))
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
