"""Model views per second with 2 workers (`scripts/serve`'s default) on 2 cores, this checkout against
another, in the same rounds: does the engine's two-thread split cost throughput when both workers are busy?

    .venv/bin/python -m bench.bench_model_workers --before /tmp/lens-before

Each request is a new long sentence (86 pieces, all-MiniLM-L6-v2), so neither the response cache
nor the coalescing answers (both off too); wrk 2 threads x 4 connections, alternating servers each round.
Not a test: run by hand (loopback only, bounded). The machine is shared: compare the ratio, not the rates.
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

from bench.common import machine, new_sentences_lua, require
from bench.common import wrk as run_wrk
from tests.support.live_server import LiveServer

# A sentence no request asked before: four words chosen by the counter, then a fixed tail of 80 words.
TAIL = "+every+token+looks+at+every+other+token+in+the+sentence"  # ten words, eight times
LONG_SENTENCES_LUA = new_sentences_lua(f'"/api/attention?model=minilm&source=" .. words .. string.rep("{TAIL}", 8)')
VIEW = "/api/attention?model=minilm&source=x"  # the Lua script writes each request's own sentence


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="another checkout")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=10, help="seconds of each wrk run")
    args = ap.parse_args()
    require("wrk")
    script = Path("/tmp/attention-lens-long-sentences.lua")
    script.write_text(LONG_SENTENCES_LUA)
    env = {"RESPONSE_CACHE_MB": "0", "COALESCE": "0", "OPENBLAS_NUM_THREADS": None}  # the default threads
    dirs = {"this checkout": Path(__file__).resolve().parents[1], "before": args.before}
    servers = {name: LiveServer(workers=2, env=env, app_dir=path) for name, path in dirs.items()}
    rates: dict[str, list[float]] = {name: [] for name in servers}
    failures = dict.fromkeys(servers, 0)
    m = machine()
    load_before = os.getloadavg()
    try:
        for server in servers.values():
            server.start()
            run_wrk(server.base + VIEW, 4, 5, script=script)  # warm-up
        for _ in range(args.rounds):
            for name, server in servers.items():
                _, result = run_wrk(
                    server.base + "/api/attention?model=minilm&source=x", 4, args.duration, script=script
                )
                rates[name].append(result["requests_per_s"])
                failures[name] += result["non_2xx_3xx"] + sum(result["errors"].values())
    finally:
        for server in servers.values():
            server.stop()
    ratios = [a / b for a, b in zip(rates["this checkout"], rates["before"], strict=True)]
    print(f"{m['date']}, {m['nproc']} CPUs, load average {load_before[0]:.1f} -> {os.getloadavg()[0]:.1f}")
    for name, r in rates.items():
        print(
            f"{name}: {statistics.median(r):.1f} model views/s ({min(r):.1f}-{max(r):.1f}), failures {failures[name]}"
        )
    print(f"this / before, per round: {', '.join(f'{x:.2f}' for x in ratios)}; p50 **{statistics.median(ratios):.2f}**")


if __name__ == "__main__":
    main()
