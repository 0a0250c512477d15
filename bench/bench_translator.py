"""Benchmark the three trained translators in numpy: one sentence with every step's attention, loading, memory.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python -m bench.bench_translator          # prints a markdown table
    OPENBLAS_NUM_THREADS=1 .venv/bin/python -m bench.bench_translator --json bench/out/translator.json

Latency: p50/p95 wall and CPU time of ``translate()`` (greedy, every step's scores, weights and
context kept) for a 20-word sentence, of beam search of width 4, of the page's decoding (beam search of the default
width among the dictionary's candidates, with the end guard and without it, over the 80 blind hand-written
sentences, where it acts on some and not on others: the two taking turns, their ratio in one run), and of the whole
API view of that
sentence (validation, translation, the forced pass that keeps the cached keys, the view, the JSON
bytes; its cache emptied each run), over many runs after a warm-up. Loading and memory: a FRESH
child process reads and verifies all three models (sha256 included) and reports the time, and its
resident set before and after (VmRSS, /proc/self/status).
Goals: a 20-word sentence ≤ 50 ms on one core; all three loaded ≤ 1 s and ≤ 60 MB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.common import machine, print_preamble

REPO = Path(__file__).resolve().parents[1]
SENTENCE_20 = (
    "the fat cat that chased jerry ate three delicious cakes in the kitchen yesterday because the boys are singing now"
)


def proc_status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def load_child() -> None:
    """Runs in a fresh process: numpy imported, then the three models loaded and verified, then the dictionary's
    two parts, which the first translation reads (its candidate list and check)."""
    import numpy  # noqa: F401, PLC0415

    from app.engine.models import mt_dictionary, translator  # noqa: PLC0415

    before = proc_status_mb("VmRSS")
    start = time.perf_counter()
    models = [translator.load(name) for name in translator.MODELS]
    seconds = time.perf_counter() - start
    after = proc_status_mb("VmRSS")
    assert len(models) == 3
    start = time.perf_counter()
    core, wide = mt_dictionary.parts()
    dictionary_seconds = time.perf_counter() - start
    with_dictionary = proc_status_mb("VmRSS")
    print(json.dumps({"load_s": seconds, "rss_before_mb": before, "rss_after_mb": after, "added_mb": after - before,
                      "dictionary_s": dictionary_seconds, "dictionary_added_mb": with_dictionary - after,
                      "dictionary_lemmas": [len(core.senses), len(wide.senses)]}))  # fmt: skip


def timings(function, runs: int) -> dict:
    function()  # warm-up
    wall, cpu = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        function()
        wall.append((time.perf_counter() - w) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    wall.sort()
    return {
        "p50_ms": statistics.median(wall),
        "p95_ms": wall[int(0.95 * (len(wall) - 1))],
        "cpu_p50_ms": statistics.median(cpu),
    }


def blind_sentences() -> list[str]:
    """The sentences of every blind hand-written set (tests/data/everyday_mt_blind*.jsonl: 40 + 40 + 60 + 60 + 60)."""
    paths = sorted((REPO / "tests/data").glob("everyday_mt_blind*.jsonl"))
    return [json.loads(line)["en"] for path in paths for line in path.read_text(encoding="utf-8").splitlines()]


def end_guard_cost(model, sentences: list[str], rounds: int) -> dict:
    """CPU ms of the page's decoding (beam search of the default width, among the candidates) of every sentence,
    with the end guard and without, the two taking turns."""
    from app.engine.models import translator  # noqa: PLC0415

    cpu: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(rounds + 1):  # the first round warms up
        for guard in (True, False):
            start = time.process_time()
            for text in sentences:
                translator.translate(model, text, beam=translator.DEFAULT_BEAM, candidates=True, end_guard=guard)
            cpu[guard].append((time.process_time() - start) * 1000)
    with_guard, without = statistics.median(cpu[True][1:]), statistics.median(cpu[False][1:])
    return {"with_ms": with_guard, "without_ms": without, "ratio": with_guard / without}


def whole_view(name: str) -> int:
    """What GET /api/attention?source=<20 words>&model=<name> computes, its cache emptied first: validation,
    the translation, the forced pass that keeps the cached keys, the view's matrices, and the JSON bytes."""
    from app.view import models  # noqa: PLC0415
    from app.view.compute import compute_view  # noqa: PLC0415
    from app.view.state import state_from_link_values  # noqa: PLC0415
    from app.web.jsonio import dumps  # noqa: PLC0415

    models.translation.cache_clear()
    return len(dumps(compute_view(state_from_link_values({"source": SENTENCE_20, "model": name}))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        load_child()
        return
    from app.engine.models import translator  # noqa: PLC0415

    info = machine()
    assert len(SENTENCE_20.split()) == 20
    figures: dict = {"machine": info, "sentence": SENTENCE_20, "models": {}}
    sentences = blind_sentences()
    for name in translator.MODELS:
        model = translator.load(name)
        result = translator.translate(model, SENTENCE_20)
        figures["models"][name] = {
            "target_words": len(result.target),
            "greedy": timings(lambda m=model: translator.translate(m, SENTENCE_20), args.runs),
            "beam4": timings(lambda m=model: translator.translate(m, SENTENCE_20, beam=4), max(5, args.runs // 5)),
        }
        figures["models"][name]["view"] = timings(lambda n=name: whole_view(n), args.runs)
        figures["models"][name]["end_guard"] = end_guard_cost(model, sentences, max(3, args.runs // 10))
    child = subprocess.run([sys.executable, "-m", "bench.bench_translator", "--child"], cwd=REPO,
                           capture_output=True, text=True, check=True)  # fmt: skip
    figures["load"] = json.loads(child.stdout)
    print_preamble(info, ["OPENBLAS_NUM_THREADS=1 .venv/bin/python -m bench.bench_translator"])
    print(f"A {len(SENTENCE_20.split())}-word sentence, every step's attention kept ({args.runs} runs):\n")
    print("| model | Chinese words | greedy p50 | p95 | CPU p50 | beam 4 p50 | whole API view p50 | p95 |")
    print("|---|---|---|---|---|---|---|---|")
    for name, f in figures["models"].items():
        g, b, v = f["greedy"], f["beam4"], f["view"]
        print(f"| {name} | {f['target_words']} | {g['p50_ms']:.1f} ms | {g['p95_ms']:.1f} ms | "
              f"{g['cpu_p50_ms']:.1f} ms | {b['p50_ms']:.1f} ms | "
              f"{v['p50_ms']:.1f} ms | {v['p95_ms']:.1f} ms |")  # fmt: skip
    print(f"\nThe page's decoding (beam {translator.DEFAULT_BEAM}, candidates) of the {len(sentences)} blind sentences "
          "(CPU, the two taking turns):\n")  # fmt: skip
    print("| model | with the end guard | without | ratio |")
    print("|---|---|---|---|")
    for name, f in figures["models"].items():
        e = f["end_guard"]
        print(f"| {name} | {e['with_ms']:.0f} ms | {e['without_ms']:.0f} ms | {e['ratio']:.2f} |")
    load = figures["load"]
    print(
        f"\nLoading all three (fresh process, sha256 checked): {load['load_s'] * 1000:.0f} ms, "
        f"+{load['added_mb']:.1f} MB resident ({load['rss_before_mb']:.0f} → {load['rss_after_mb']:.0f} MB); "
        f"then the dictionary's core and wide part ({' + '.join(f'{n:,}' for n in load['dictionary_lemmas'])} "
        f"lemmas): {load['dictionary_s'] * 1000:.0f} ms, +{load['dictionary_added_mb']:.1f} MB"
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
