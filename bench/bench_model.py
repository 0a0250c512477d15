"""Benchmark the numpy MiniLM engine (app/model): load time, run latency, resident memory.

    python -m bench.bench_model            # prints a markdown table
    python -m bench.bench_model --json bench/out/model.json

Latency: p50/p95 of MiniLM.run() (tokenize + all 6 layers with every intermediate)
over many runs in one process after a warm-up. Memory: a FRESH child process
loads the model, does one 128-token run and reports its resident set (VmRSS) and
peak (VmHWM) from /proc/self/status.
Goals: 16 tokens p50 < 30 ms, 128 tokens p50 < 150 ms, RSS after a 128-token run < 400 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SENTENCE_16 = "The quick brown fox jumps over the lazy dog near the river bank."  # 16 tokens
LONG = " ".join(["Attention lets every token look at every other token in the sentence."] * 12)  # > 128


def proc_status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # kB -> MB
    return float("nan")


def rss_child() -> None:
    """Runs in a fresh process: load, one 128-token run, report memory."""
    t0 = time.perf_counter()
    from app.engine.models import get_model

    model = get_model()
    load_s = time.perf_counter() - t0
    run = model.run(LONG)
    assert len(run.ids) == 128
    print(json.dumps({"load_s": load_s, "rss_mb": proc_status_mb("VmRSS"), "hwm_mb": proc_status_mb("VmHWM")}))


def percentiles(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    pick = lambda q: s[min(len(s) - 1, int(q * len(s)))]  # noqa: E731
    return {"p50_ms": pick(0.5) * 1e3, "p95_ms": pick(0.95) * 1e3, "min_ms": s[0] * 1e3}


def time_runs(model, text: str, n: int, warmup: int = 10) -> dict[str, float]:
    for _ in range(warmup):
        model.run(text)
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        model.run(text)
        samples.append(time.perf_counter() - t)
    return {"n_tokens": len(model.tokenize(text).ids), "runs": n, **percentiles(samples)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    ap.add_argument("--rss-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rss_child:
        rss_child()
        return

    child = subprocess.run(
        [sys.executable, "-m", "bench.bench_model", "--rss-child"], capture_output=True, text=True, check=True, cwd=REPO
    )
    mem = json.loads(child.stdout.strip().splitlines()[-1])

    from app.engine.models import get_model

    model = get_model()
    short = time_runs(model, SENTENCE_16, args.runs)
    long = time_runs(model, LONG, max(20, args.runs // 2))
    import numpy as np

    result = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpus": os.cpu_count(),
        "blas_threads_env": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
        "load_s_fresh_process": mem["load_s"],
        "rss_mb_after_128": mem["rss_mb"],
        "peak_rss_mb": mem["hwm_mb"],
        "run_16": short,
        "run_128": long,
    }
    print("| measure | goal | measured |")
    print("|---|---|---|")
    for run, goal in ((short, "< 30 ms"), (long, "< 150 ms")):
        measured = f"{run['p50_ms']:.1f} ms (p95 {run['p95_ms']:.1f}, {run['runs']} runs)"
        print(f"| run() p50, {run['n_tokens']} tokens, all 6 layers | {goal} | {measured} |")
    memory = f"{mem['rss_mb']:.0f} MB (peak {mem['hwm_mb']:.0f} MB)"
    print(f"| RSS, fresh process after one 128-token run | < 400 MB | {memory} |")
    print(f"| first get_model() (sha256 + load), fresh process | - | {mem['load_s'] * 1e3:.0f} ms |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
