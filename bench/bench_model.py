"""Benchmark the real models in numpy (all-MiniLM-L6-v2 and multilingual-e5-small): latency and memory.

    .venv/bin/python -m bench.bench_model            # prints markdown tables
    .venv/bin/python -m bench.bench_model --json bench/out/model.json

Latency: p50/p95 of ``model.run()`` (tokenize + every layer with every intermediate + the sentence
embedding) over many runs in one process after a warm-up, for a short sentence and one of exactly
128 pieces (the most the app accepts; for e5 the 128 include <s>, "passage: " and </s>).
``--one-core`` (with OPENBLAS_NUM_THREADS=1) runs everything on the calling thread, whose CPU time
a busy shared machine disturbs far less than the wall clock.
Memory: a FRESH child process imports the app (``app.main``), loads both models, runs a 128-piece
sentence through each and reports its resident set (VmRSS) and peak (VmHWM) from /proc/self/status.
Goals: MiniLM 16 pieces p50 < 30 ms and 128 pieces < 150 ms; e5 128 pieces p50 < 150 ms;
RSS with both models loaded < 700 MB.
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

SHORT = {
    "minilm": "The quick brown fox jumps over the lazy dog near the river bank.",  # 16 pieces
    "e5": "我们在河岸上散步，然后去银行存钱。",
}
PARAGRAPH = (
    "Attention lets every token look at every other token in the sentence. "
    "注意力 机制 让 每个 词 都 能 看到 句子 里 的 其他 词。"
)


def sentence_of(model, n_pieces: int) -> str:
    """A fixed English + Chinese paragraph cut to need exactly n_pieces pieces (topped up with "a")."""
    words: list[str] = []
    paragraph = PARAGRAPH.split() * 40
    while model.count_pieces(" ".join([*words, paragraph[len(words)]])) <= n_pieces:
        words.append(paragraph[len(words)])
    while model.count_pieces(" ".join(words)) < n_pieces:
        words.append("a")
    return " ".join(words)


def proc_status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # kB -> MB
    return float("nan")


def rss_child() -> None:
    """Runs in a fresh process: the app, both models, one 128-piece run each; report memory."""
    import app.main  # noqa: F401, PLC0415 (what a worker holds besides the models)
    from app.engine.models.registry import get_model  # noqa: PLC0415
    from app.engine.text.tokenize import tokenize  # noqa: PLC0415

    tokenize("汤姆追逐杰瑞")  # jieba's dictionary, as the app's warm-up loads it
    figures = {"rss_app_mb": proc_status_mb("VmRSS")}
    for name in ("minilm", "e5"):
        start = time.perf_counter()
        model = get_model(name)
        figures[f"load_s_{name}"] = time.perf_counter() - start
        run = model.run(sentence_of(model, 128))
        assert len(run.ids) == 128 and not run.truncated
        figures[f"rss_after_{name}_mb"] = proc_status_mb("VmRSS")
    figures["hwm_mb"] = proc_status_mb("VmHWM")
    print(json.dumps(figures))


def percentiles(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)

    def pick(q: float) -> float:
        return s[min(len(s) - 1, int(q * len(s)))]

    return {"p50_ms": pick(0.5) * 1e3, "p95_ms": pick(0.95) * 1e3, "min_ms": s[0] * 1e3}


def timed(model, text: str, n: int) -> tuple[list[float], list[float]]:
    """n runs of ``model.run(text)``: the seconds of each on the clock, and of the calling thread's CPU."""
    samples, cpu = [], []
    for _ in range(n):
        start, start_cpu = time.perf_counter(), time.thread_time()
        model.run(text)
        samples.append(time.perf_counter() - start)
        cpu.append(time.thread_time() - start_cpu)
    return samples, cpu


def figures_of(model, text: str, samples: list[float], cpu: list[float]) -> dict:
    cpu_p50 = sorted(cpu)[len(cpu) // 2] * 1e3
    n_pieces = len(model.tokenize(text).ids)
    return {"n_pieces": n_pieces, "runs": len(samples), **percentiles(samples), "cpu_p50_ms": cpu_p50}


def time_runs(model, text: str, n: int, warmup: int = 5) -> dict:
    for _ in range(warmup):
        model.run(text)
    return figures_of(model, text, *timed(model, text, n))


def time_process_and_thread(model, text: str, n: int, warmup: int = 5, turns: int = 10) -> tuple[dict, dict]:
    """``time_runs`` with the second half of the rows in the helper process, and on the helper thread, taking
    turns in ``turns`` rounds (n runs each in all)."""
    from app.engine.models import row_process  # noqa: PLC0415

    for _ in range(warmup):
        model.run(text)
    runs: dict[bool, tuple[list[float], list[float]]] = {True: ([], []), False: ([], [])}  # in the process?
    for turn in range(turns):
        for in_process in (True, False) if turn % 2 == 0 else (False, True):
            row_process.use_process = in_process
            samples, cpu = timed(model, text, n // turns)
            runs[in_process][0].extend(samples)
            runs[in_process][1].extend(cpu)
    row_process.use_process = True
    return figures_of(model, text, *runs[True]), figures_of(model, text, *runs[False])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--one-core", action="store_true", help="no helper thread (set OPENBLAS_NUM_THREADS=1 too)")
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    ap.add_argument("--rss-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rss_child:
        rss_child()
        return
    if args.one_core:
        if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
            sys.exit("--one-core needs OPENBLAS_NUM_THREADS=1 in the environment (numpy reads it at start)")
        from app.engine.models import bert  # noqa: PLC0415

        bert.split_work = False

    child = subprocess.run(
        [sys.executable, "-m", "bench.bench_model", "--rss-child"], capture_output=True, text=True, check=True, cwd=REPO
    )
    mem = json.loads(child.stdout.strip().splitlines()[-1])

    import numpy as np  # noqa: PLC0415

    from app.engine.models import row_process  # noqa: PLC0415
    from app.engine.models.registry import get_model  # noqa: PLC0415

    load_before = os.getloadavg()
    timings = {}
    for name in ("minilm", "e5"):
        model = get_model(name)
        if not args.one_core:
            row_process.started(model.params)  # as in a worker after its first long sentences
        timings[name] = {"short": time_runs(model, SHORT[name], args.runs)}
        long = sentence_of(model, 128)
        if args.one_core:
            timings[name]["128"] = time_runs(model, long, max(20, args.runs // 2))
        else:  # the second half of the rows in the helper process, and on the helper thread, taking turns
            in_process, on_thread = time_process_and_thread(model, long, max(20, args.runs // 2))
            timings[name].update({"128": in_process, "128, helper thread": on_thread})
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpus": os.cpu_count(),
        "one_core": args.one_core,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "memory": mem,
        "timings": timings,
    }
    print(f"{result['date']}; load average {result['load_average_before']} -> {result['load_average_after']}")
    print("\n| model | pieces | `run()` p50 | p95 | min | CPU p50 (calling thread) | goal |")
    print("|---|---|---|---|---|---|---|")
    goals = {("minilm", "short"): "< 30 ms", ("minilm", "128"): "< 150 ms", ("e5", "128"): "< 150 ms"}
    for name, by_length in timings.items():
        for length, t in by_length.items():
            pieces = f"{t['n_pieces']}" + (" (helper thread)" if "thread" in length else "")
            print(
                f"| {name} | {pieces} | {t['p50_ms']:.1f} ms | {t['p95_ms']:.1f} ms | {t['min_ms']:.1f} ms "
                f"| {t['cpu_p50_ms']:.1f} ms | {goals.get((name, length), '-')} |"
            )
    print("\n| memory (fresh process: app imported, jieba loaded, then each model loaded and run at 128 pieces) | MB |")
    print("|---|---|")
    print(f"| app imported, jieba's dictionary loaded | {mem['rss_app_mb']:.0f} |")
    for name, label in (("minilm", "all-MiniLM-L6-v2"), ("e5", "multilingual-e5-small")):
        load_ms = mem[f"load_s_{name}"] * 1e3
        print(f"| + {label} ({load_ms:.0f} ms to verify and load) | {mem[f'rss_after_{name}_mb']:.0f} |")
    print(f"| peak (VmHWM) | {mem['hwm_mb']:.0f} |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
