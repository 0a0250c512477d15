"""Live classes: how fast a teacher's change reaches the students, and what open streams cost.

    python -m bench.bench_live [--students 30] [--updates 3] [--streams 1000] [--stream-updates 10] [--json out.json]

1. A class: the production command (scripts/serve) with 2 workers and a real redis-server, 30 students
   (one stream each), 3 updates of the teacher. Delivery latency of each update to each student,
   from just before the teacher's PUT is sent to the moment the student has read the event:
   p50 / p99 / max (goals: p50 < 100 ms on loopback, every delivery within 2 s).
2. A crowd: 1,000 concurrent student streams of one room on ONE worker, once with rooms in the
   process and once through Redis; 10 updates, 1 s apart. Delivery p50 / p99 / max (goal p99 < 500 ms)
   and the worker's resident memory: idle, with the streams open, and after the updates (goal < 300 MB).

Everything runs on 127.0.0.1 (servers started with tests.support: LiveServer, RedisServer), bounded in
count and time. The students are raw asyncio connections (HTTP/1.1, chunked, one event per chunk),
so the client's own cost stays small; client and server share this machine's CPUs. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import time
from pathlib import Path

import httpx

from bench.common import machine
from tests.support.live_server import LiveServer
from tests.support.redis_server import RedisServer

VIEW = "source=tom+chases+jerry"
DEADLINE = 60.0  # seconds: a hang guard for every wait


# ---------------------------------------------------------------------------
# A student: one raw SSE connection
# ---------------------------------------------------------------------------


class RawStudent:
    """GET <events_url> over a plain socket; records (version, perf_counter) of every view event."""

    def __init__(self, host: str, port: int, events_url: str, crowd: Crowd):
        self.host, self.port, self.events_url, self.crowd = host, port, events_url, crowd
        self.writer: asyncio.StreamWriter | None = None
        self.task: asyncio.Task | None = None

    async def connect(self) -> None:
        reader, self.writer = await asyncio.open_connection(self.host, self.port)
        request = (
            f"GET {self.events_url} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAccept: text/event-stream\r\n\r\n"
        )
        self.writer.write(request.encode())
        status = await reader.readline()
        if b" 200 " not in status:
            raise RuntimeError(f"stream refused: {status!r}")
        while (await reader.readline()) not in (b"\r\n", b""):
            pass  # the headers
        self.task = asyncio.get_running_loop().create_task(self.read(reader))

    async def read(self, reader: asyncio.StreamReader) -> None:
        """Chunked transfer encoding: '<hex size>\\r\\n<event>\\r\\n'; an event's `id:` line is its version."""
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError, ValueError):
            while size := int((await reader.readline()).strip() or b"0", 16):
                chunk = await reader.readexactly(size + 2)
                arrived = time.perf_counter()
                for line in chunk.split(b"\n"):
                    if line.startswith(b"id: "):
                        self.crowd.received(int(line[4:]), arrived)

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        if self.writer is not None:
            self.writer.close()


class Crowd:
    """Students of one room; knows when every one of them has a given version."""

    def __init__(self, size: int):
        self.size = size
        self.arrivals: dict[int, list[float]] = {}
        self.complete: dict[int, asyncio.Event] = {}

    def event(self, version: int) -> asyncio.Event:
        return self.complete.setdefault(version, asyncio.Event())

    def received(self, version: int, arrived: float) -> None:
        times = self.arrivals.setdefault(version, [])
        times.append(arrived)
        if len(times) == self.size:
            self.event(version).set()

    async def wait(self, version: int) -> None:
        await asyncio.wait_for(self.event(version).wait(), DEADLINE)


async def join(server: LiveServer, room: dict, crowd: Crowd, batch: int) -> list[RawStudent]:
    """`batch` students connect at a time: 1 spreads a class over the workers as students arriving one
    by one would (a burst lands on whichever worker wakes first); 100 keeps the listen backlog short."""
    students = [RawStudent("127.0.0.1", server.port, room["events_url"], crowd) for _ in range(crowd.size)]
    for start in range(0, len(students), batch):
        await asyncio.gather(*(student.connect() for student in students[start : start + batch]))
    await crowd.wait(room["version"])
    return students


async def deliver(client: httpx.AsyncClient, room: dict, crowd: Crowd, views: list[str]) -> list[float]:
    """PUT each view and wait until every student has it; latencies in ms from just before each PUT."""
    latencies = []
    for version, view in enumerate(views, start=room["version"] + 1):
        sent = time.perf_counter()
        answer = await client.put(
            room["room_url"], json={"view": view}, headers={"Authorization": f"Bearer {room['secret']}"}
        )
        answer.raise_for_status()
        await crowd.wait(version)
        latencies += [(arrived - sent) * 1000 for arrived in crowd.arrivals[version]]
    return latencies


def updates(count: int) -> list[str]:
    return [f"{VIEW}&temperature={1 + (n + 1) / 10:g}" for n in range(count)]  # each a new canonical view


# ---------------------------------------------------------------------------
# Measures
# ---------------------------------------------------------------------------


def summary(latencies: list[float]) -> dict:
    ordered = sorted(latencies)
    return {
        "count": len(ordered),
        "p50_ms": round(statistics.median(ordered), 1),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 1),
        "max_ms": round(ordered[-1], 1),
    }


def memory_mb(pid: int) -> dict:
    """Resident memory of a process (VmRSS) and its peak so far (VmHWM), in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    found = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", status, re.M))
    return {"rss_mb": round(int(found["VmRSS"]) / 1024, 1), "peak_mb": round(int(found["VmHWM"]) / 1024, 1)}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (/proc/<pid>/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    return inodes


def streams_per_worker(server: LiveServer) -> list[int]:
    """Established connections on the server's port held by each worker (which worker serves whom)."""
    established = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == server.port and fields[3] == "01":
            established.add(fields[9])
    return [len(socket_inodes(pid) & established) for pid in server.worker_pids()]


# ---------------------------------------------------------------------------
# The two scenarios
# ---------------------------------------------------------------------------


async def class_scenario(server: LiveServer, students: int, count: int) -> dict:
    async with httpx.AsyncClient(base_url=server.base, timeout=DEADLINE) as client:
        room = (await client.post("/api/rooms", json={"view": VIEW})).json()
        crowd = Crowd(students)
        joined = await join(server, room, crowd, batch=1)
        per_worker = streams_per_worker(server)
        latencies = await deliver(client, room, crowd, updates(count))
        for student in joined:
            student.close()
    return {**summary(latencies), "streams_per_worker": per_worker}


async def crowd_scenario(server: LiveServer, streams: int, count: int) -> dict:
    pid = server.process.pid
    async with httpx.AsyncClient(base_url=server.base, timeout=DEADLINE) as client:
        room = (await client.post("/api/rooms", json={"view": VIEW})).json()
        await asyncio.sleep(1)
        idle = memory_mb(pid)
        crowd = Crowd(streams)
        started = time.perf_counter()
        joined = await join(server, room, crowd, batch=100)
        join_s = time.perf_counter() - started
        await asyncio.sleep(1)
        open_streams = memory_mb(pid)
        latencies = []
        cpu_idle = cpu_seconds(pid)
        await asyncio.sleep(count)  # as long as the updates take, with no update: keep-alives only
        cpu_idle = cpu_seconds(pid) - cpu_idle
        cpu_busy = cpu_seconds(pid)
        for view in updates(count):
            latencies += await deliver(client, room, crowd, [view])
            room["version"] += 1
            await asyncio.sleep(1)
        cpu_busy = cpu_seconds(pid) - cpu_busy
        after = memory_mb(pid)
        for student in joined:
            student.close()
    return {
        **summary(latencies),
        "join_s": round(join_s, 2),
        "idle": idle,
        "streams_open": open_streams,
        "after_updates": after,
        "per_stream_kb": round((open_streams["rss_mb"] - idle["rss_mb"]) * 1024 / streams, 1),
        # the worker's CPU for one update to every stream (beyond the same time without updates)
        "cpu_ms_per_update": round(max(0.0, cpu_busy - cpu_idle) * 1000 / count, 1),
    }


def run(args) -> dict:
    quiet = {"ACCESS_LOG": "0"}
    results = {"machine": machine(), "args": vars(args)}
    with RedisServer() as redis:
        with LiveServer(workers=2, env={**quiet, "REDIS_URL": redis.url}) as server:
            results["class"] = asyncio.run(class_scenario(server, args.students, args.updates))
        for store, env in (("memory", {}), ("redis", {"REDIS_URL": redis.url.removesuffix("/0") + "/1"})):
            with LiveServer(env={**quiet, **env, "ROOM_STREAMS_MAX": str(args.streams)}) as server:
                results[f"crowd_{store}"] = asyncio.run(crowd_scenario(server, args.streams, args.stream_updates))
    return results


def report(results: dict) -> str:
    m, c = results["machine"], results["class"]
    lines = [
        f"{m['date']}, {m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, load {' '.join(m['loadavg_before'])}",
        "",
        "| scenario | deliveries | p50 | p99 | max | goal |",
        "|---|---|---|---|---|---|",
        f"| class: 2 workers + Redis, {results['args']['students']} students, {results['args']['updates']} updates "
        f"(streams per worker {c['streams_per_worker']}) | {c['count']} | {c['p50_ms']} ms | {c['p99_ms']} ms "
        f"| {c['max_ms']} ms | p50 < 100 ms, all < 2 s |",
    ]
    for store in ("memory", "redis"):
        r = results[f"crowd_{store}"]
        lines.append(
            f"| crowd: {results['args']['streams']} streams on one worker, rooms in {store}, "
            f"{results['args']['stream_updates']} updates | {r['count']} | {r['p50_ms']} ms | {r['p99_ms']} ms "
            f"| {r['max_ms']} ms | p99 < 500 ms |"
        )
    lines += [
        "",
        "| one worker, rooms in | RSS idle | RSS with the streams | RSS after the updates | peak | per stream "
        "| worker CPU per update |",
        "|---|---|---|---|---|---|---|",
    ]
    for store in ("memory", "redis"):
        r = results[f"crowd_{store}"]
        lines.append(
            f"| {store} | {r['idle']['rss_mb']} MB | {r['streams_open']['rss_mb']} MB "
            f"| {r['after_updates']['rss_mb']} MB | {r['after_updates']['peak_mb']} MB | {r['per_stream_kb']} kB "
            f"| {r['cpu_ms_per_update']} ms |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--updates", type=int, default=3)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--stream-updates", type=int, default=10)
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()
    results = run(args)
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
