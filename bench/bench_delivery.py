"""The worker's CPU for one change of a live class, per student, without sockets. Not a test: run by hand.

    .venv/bin/python -m bench.bench_delivery                              # 5,000 students, this checkout
    .venv/bin/python -m bench.bench_delivery --before /tmp/lens-before    # and another checkout's, same run
    .venv/bin/python -m bench.bench_delivery --updates 7 --rounds 1       # each change's cost, and the collector's

One app (the default settings, the access log on, the stream limits raised to hold the class) is called
through ASGI in one process: N students open the room's event stream, then the teacher's PUT; the figure is
the process's CPU time from just before the PUT until the last student's `send` got the new view, divided
by N (with ``--updates``, the median over that many changes, and for each its wall time and the time the
garbage collector took during it, by generation). bench.bench_capacity measures the same over real sockets,
with the students' reading on the same machine; this one leaves both out, so the figure is the app's own
work and moves little on a busy machine.
Each checkout runs in a fresh process, in turns, `--rounds` times.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from bench.common import REPO, machine

# Run in a child process whose first argument is the checkout and second the number of students.
SCRIPT = """
import asyncio, gc, json, logging, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from app.main import create_app
from app.settings import Settings
from tests.support.asgi import body_of, call, http_scope
logging.disable(logging.CRITICAL)  # access-log lines are made, not printed
N, UPDATES = int(sys.argv[2]), int(sys.argv[3])
collecting = {"since": 0.0, "ms": [0.0, 0.0, 0.0]}

def collector(phase, info):
    if phase == "start":
        collecting["since"] = time.perf_counter()
    else:
        collecting["ms"][info["generation"]] += (time.perf_counter() - collecting["since"]) * 1000

gc.callbacks.append(collector)

def scope(method, path, headers=()):
    return http_scope(path, headers=[(b"host", b"127.0.0.1"), (b"content-type", b"application/json"), *headers],
                      method=method)

async def request(app, method, path, body=b"", headers=()):
    return body_of(await call(app, scope(method, path, headers), body))

async def main():
    limits = {"room_streams_max": N, "live_streams_max": N, "live_streams_per_client": N, "limit_concurrency": 4 * N}
    app = create_app(Settings(access_log=True, **limits))
    started, events = asyncio.Queue(), asyncio.Queue()
    await started.put({"type": "lifespan.startup"})
    lifespan = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    running = asyncio.create_task(app(lifespan, started.get, events.put))
    await events.get()
    room = json.loads(await request(app, "POST", "/api/rooms", b'{"view": "source=tom+chases+jerry"}'))
    got, everyone, version = 0, asyncio.Event(), [1]
    async def student():
        async def receive():
            await asyncio.Event().wait()
        async def send(message):
            nonlocal got
            if b"id: %d\\n" % version[0] in message.get("body", b""):
                got += 1
                if got == N:
                    everyone.set()
        await app(scope("GET", room["events_url"]), receive, send)
    students = [asyncio.create_task(student()) for _ in range(N)]
    while app.state.rooms.hub.total < N:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    auth = [(b"authorization", ("Bearer " + room["secret"]).encode())]
    per_student, changes = [], []
    for n in range(UPDATES):
        got, version[0] = 0, version[0] + 1
        everyone.clear()
        collecting["ms"] = [0.0, 0.0, 0.0]
        cpu, wall = time.process_time(), time.perf_counter()
        view = b'{"view": "source=tom+chases+jerry&temperature=1.%d"}' % (n + 1)  # each a new view
        await request(app, "PUT", room["room_url"], view, auth)
        await everyone.wait()
        per_student.append((time.process_time() - cpu) / N * 1e6)
        wall_ms = round((time.perf_counter() - wall) * 1000)
        changes.append({"wall_ms": wall_ms, "gc_ms": [round(ms) for ms in collecting["ms"]]})
        await asyncio.sleep(0.3)
    print(json.dumps({"students": N, "cpu_us_per_student": statistics.median(per_student), "changes": changes}))

asyncio.run(main())
"""


def run(app_dir: Path, students: int, updates: int) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(app_dir), str(students), str(updates)],
        cwd=app_dir, capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--updates", type=int, default=1, help="changes per round (each reported)")
    parser.add_argument("--before", type=Path, help="another checkout, measured in the same rounds")
    args = parser.parse_args()
    checkouts = {"this checkout": REPO, **({"before": args.before} if args.before else {})}
    samples: dict[str, list[float]] = {name: [] for name in checkouts}
    info = machine()
    for _ in range(args.rounds):
        for name, app_dir in checkouts.items():
            figures = run(app_dir, args.students, args.updates)
            samples[name].append(figures["cpu_us_per_student"])
            if args.updates > 1:
                for change in figures["changes"]:
                    print(
                        f"{name}: a change to every student in {change['wall_ms']} ms, of which the garbage "
                        f"collector's generations 0, 1, 2: {change['gc_ms']} ms"
                    )
    after = Path("/proc/loadavg").read_text().split()[:3]
    print(f"{info['date']}, {info['nproc']} CPUs ({info['cpu']}), Python {info['python']}")
    print(f"load average {' '.join(info['loadavg_before'])} -> {' '.join(after)}")
    for name, values in samples.items():
        print(
            f"{name}: one change to {args.students:,} students, worker CPU per student p50 "
            f"{statistics.median(values):.0f} us ({min(values):.0f}-{max(values):.0f}, {len(values)} rounds)"
        )


if __name__ == "__main__":
    main()
