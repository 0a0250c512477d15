"""Our numpy forward pass against PyTorch for all-MiniLM-L6-v2: same machine, same ids, one sentence.

    .venv/bin/python -m bench.bench_torch                      # prints a markdown table
    .venv/bin/python -m bench.bench_torch --torch-python /work/torch-venv/bin/python --rounds 9
    OPENBLAS_NUM_THREADS=1 .venv/bin/python -m bench.bench_torch --threads 1   # one core each

PyTorch runs in its own venv (tools/reference/README.md) as a child process (bench/torch_worker.py)
with ``transformers.BertModel``, eager attention and ``output_attentions=True`` (and hidden states),
the stack people would otherwise use. Ours is ``bert.encode`` (every layer's q, k, v, scores,
weights, context and hidden states kept). Both get the same token ids, batch of one, the default
threads (torch: its intra-op threads; numpy: OpenBLAS's), and the same warm-up. The two sides
alternate in rounds, so a busy spell on this shared machine hits both; the ratio is taken from the
medians of all samples. Tokenizing is not timed on either side.

``--threads 1`` (with OPENBLAS_NUM_THREADS=1, which numpy reads when it starts) gives each side one
core and also reports the calling thread's CPU time, which a busy shared machine disturbs far less
than the wall clock: the work each stack does for one sentence.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from app.engine.models import bert, row_process
from app.engine.models.registry import get_model

SENTENCE_16 = "The quick brown fox jumps over the lazy dog near the river bank."  # 16 pieces
LONG = " ".join(["Attention lets every token look at every other token in the sentence."] * 12)  # cut to 128


def time_numpy(params, ids: list[int], reps: int) -> dict[str, list[float]]:
    samples, cpu = [], []
    for _ in range(reps):
        start, start_cpu = time.perf_counter(), time.thread_time()
        bert.encode(params, ids, row_process.encode_with_helper)  # the helper process, as a model runs it
        samples.append((time.perf_counter() - start) * 1e3)
        cpu.append((time.thread_time() - start_cpu) * 1e3)
    return {"ms": samples, "cpu_ms": cpu}


class TorchWorker:
    def __init__(self, python: str, model_dir: Path, threads: str):
        worker = Path(__file__).with_name("torch_worker.py")
        self.process = subprocess.Popen(
            [python, str(worker), str(model_dir), threads], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.info = json.loads(self.process.stdout.readline())

    def time(self, ids: list[int], reps: int) -> dict[str, list[float]]:
        self.process.stdin.write(json.dumps({"ids": ids, "reps": reps}) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


def blas_info() -> str:
    try:
        from threadpoolctl import threadpool_info  # noqa: PLC0415 (optional)
    except ImportError:
        return "threadpoolctl not installed"
    return ", ".join(f"{p['internal_api']} {p.get('architecture')} x{p['num_threads']}" for p in threadpool_info())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torch-python", default="/work/torch-venv/bin/python")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--reps", type=int, default=20, help="forward passes per side per round")
    ap.add_argument("--threads", default="default", help='"1": one core each (set OPENBLAS_NUM_THREADS=1 too)')
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    args = ap.parse_args()
    if args.threads == "1":
        if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
            sys.exit("--threads 1 needs OPENBLAS_NUM_THREADS=1 in the environment (numpy reads it at start)")
        bert.split_work = False

    model = get_model("minilm")
    sentences = {"16": model.tokenize(SENTENCE_16).ids, "128": model.tokenize(LONG).ids}
    assert [len(ids) for ids in sentences.values()] == [16, 128]
    torch_side = TorchWorker(args.torch_python, model.model_dir, args.threads)
    load_before = os.getloadavg()
    results = {}
    try:
        for label, ids in sentences.items():
            time_numpy(model.params, ids, 10)  # warm-up, both sides
            torch_side.time(ids, 10)
            ours: dict[str, list[float]] = {"ms": [], "cpu_ms": []}
            theirs: dict[str, list[float]] = {"ms": [], "cpu_ms": []}
            for _ in range(args.rounds):
                for side, timings in (
                    (ours, time_numpy(model.params, ids, args.reps)),
                    (theirs, torch_side.time(ids, args.reps)),
                ):
                    for key in side:
                        side[key] += timings[key]
            results[label] = {
                "n_pieces": len(ids),
                "numpy_p50_ms": statistics.median(ours["ms"]),
                "torch_p50_ms": statistics.median(theirs["ms"]),
                "numpy_min_ms": min(ours["ms"]),
                "torch_min_ms": min(theirs["ms"]),
                "speedup": statistics.median(theirs["ms"]) / statistics.median(ours["ms"]),
                "speedup_min": min(theirs["ms"]) / min(ours["ms"]),
                "numpy_cpu_p50_ms": statistics.median(ours["cpu_ms"]),
                "torch_cpu_p50_ms": statistics.median(theirs["cpu_ms"]),
                "samples_per_side": len(ours["ms"]),
            }
    finally:
        torch_side.close()
    figures = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas": blas_info(),
        "openblas_env": {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS")},
        "threads": args.threads,
        "torch": torch_side.info,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "results": results,
    }
    print(
        f"{figures['date']}, {figures['cpus']} CPUs, Python {figures['python']}, numpy {figures['numpy']} "
        f"({figures['blas']}), torch {torch_side.info['torch']} ({torch_side.info['threads']} threads), "
        f"transformers {torch_side.info['transformers']}; load average {figures['load_average_before']} -> "
        f"{figures['load_average_after']}"
    )
    cpu = args.threads == "1"
    print(
        "\n| pieces | numpy `bert.encode` p50 (min) | PyTorch `BertModel` p50 (min) | PyTorch / numpy, p50 (min) |"
        + (" CPU time p50: numpy / PyTorch | CPU ratio |" if cpu else "")
    )
    print("|---|---|---|---|" + ("---|---|" if cpu else ""))
    for r in results.values():
        row = (
            f"| {r['n_pieces']} | {r['numpy_p50_ms']:.1f} ms ({r['numpy_min_ms']:.1f}) | "
            f"{r['torch_p50_ms']:.1f} ms ({r['torch_min_ms']:.1f}) | "
            f"**{r['speedup']:.2f}x** ({r['speedup_min']:.2f}x) |"
        )
        if cpu:
            ratio = r["torch_cpu_p50_ms"] / r["numpy_cpu_p50_ms"]
            row += f" {r['numpy_cpu_p50_ms']:.1f} / {r['torch_cpu_p50_ms']:.1f} ms | **{ratio:.2f}x** |"
        print(row)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
