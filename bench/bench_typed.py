"""A typed sentence, judged by what users feel: one worker, 16 connections, every request a new everyday
sentence at the default settings. Not a test: run by hand (loopback only, bounded in time).

    .venv/bin/python -m bench.bench_typed --before /tmp/lens-before    # this checkout and another, taking turns
    .venv/bin/python -m bench.bench_typed --rounds 3 --duration 15

One worker of plain uvicorn per checkout (LiveServer), the default settings (the access log, the response
cache and the coalescing on). wrk, 2 threads and 16 connections, asks GET /api/attention?source=<sentence>
where every sentence is one no request of the run asked before, so neither the response cache nor the
coalescing answers: everyday sentences of 5-8 words from a seeded grammar over the lexicon's own words
(`everyday_sentences`), each run of wrk reading its own block of them from a file (`SENTENCES_LUA`). The
servers take turns, round after round, so both see the same machine; the figures are requests per second,
wrk's p50 and p99 latency, the worker's CPU time per request (from /proc: what a busy machine disturbs least),
and this checkout's over the other's in each round. Goals: p99 <= 25 ms and
at least twice the rate of the checkout before the change, in the same run.

The answer's size: the bytes of the default view of the same sentences from each server, and the resource
that an answer references for what every sentence at these settings shares (`fixed.href`), fetched once.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import statistics
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote_plus

from bench.common import cpu_seconds, machine, require
from bench.common import wrk as run_wrk
from tests.support.live_server import LiveServer

REPO = Path(__file__).resolve().parents[1]
LEXICON = REPO / "app" / "engine" / "text" / "lexicon.tsv"
CONNECTIONS = 16
# The most requests one run of wrk may send per second of its duration: each run's block of sentences is
# this long, so that no run comes to its block's end (one that does asks a path that is a 404, counted).
MOST_PER_SECOND = 4_000

# Each wrk thread reads the run's file (one path a line) and takes every `threads`-th line from its own
# number on: the threads' requests never meet, and no line is asked twice.
SENTENCES_LUA = """
local threads = 0
function setup(thread)  -- in wrk's main copy of the script, once per thread
  thread:set("thread_number", threads)
  threads = threads + 1
end
local paths, index, stride = {}, 0, 1
function init(args)  -- in each thread's own copy: args are the file and the number of threads
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  stride = tonumber(args[2])
  index = thread_number + 1 - stride
end
request = function()
  index = index + stride
  if index > #paths then return wrk.format("GET", "/bench-ran-out-of-sentences") end
  return wrk.format("GET", paths[index])
end
"""


def lexicon_words() -> dict[str, list[str]]:
    """The lexicon's English words of one role each (single words, every sense of that role), by role."""
    roles: dict[str, set[str]] = {}
    for line in LEXICON.read_text(encoding="utf-8").splitlines():
        columns = line.split("\t")
        if line.startswith("#") or len(columns) != 4 or columns[0] == "en":
            continue
        roles.setdefault(columns[0].strip().lower(), set()).add(columns[2])
    words: dict[str, list[str]] = {}
    for word, its_roles in sorted(roles.items()):
        if re.fullmatch(r"[a-z]+", word) and len(its_roles) == 1:
            words.setdefault(next(iter(its_roles)), []).append(word)
    words["pronoun"] = [w for w in words["pronoun"] if w in SUBJECTS]  # a sentence's first word
    words["adverb"] = [w for w in words["adverb"] if w.endswith("ly")]  # at its end: quickly, not "should"
    return words


SUBJECTS = ("i", "you", "he", "she", "we", "they")


# A sentence is one of these patterns, each slot a word of that role; 5 to 8 words.
PATTERNS = (
    ("the", "noun", "verb", "the", "noun"),
    ("the", "adjective", "noun", "verb", "a", "noun"),
    ("my", "noun", "verb", "the", "adjective", "noun"),
    ("the", "noun", "verb", "the", "noun", "preposition", "the", "noun"),
    ("pronoun", "verb", "the", "adjective", "noun", "adverb"),
    ("a", "adjective", "noun", "verb", "the", "adjective", "noun"),
)


def everyday_sentences(seed: int = 0) -> Iterator[str]:
    """Sentences that never repeat, the same ones in the same order for a seed: a seeded choice of pattern,
    then of a word for each slot (Python's random.Random, the same in every process)."""
    words = lexicon_words()
    chooser = random.Random(seed)
    seen: set[str] = set()
    while True:
        pattern = chooser.choice(PATTERNS)
        sentence = " ".join(chooser.choice(words[slot]) if slot in words else slot for slot in pattern)
        if sentence not in seen:
            seen.add(sentence)
            yield sentence


def sentence_path(sentence: str) -> str:
    return "/api/attention?source=" + quote_plus(sentence)


def write_block(sentences: Iterator[str], count: int, folder: Path, name: str) -> Path:
    """The next `count` sentences as paths, one a line, in a file for one run of wrk."""
    path = folder / f"{name}.txt"
    path.write_text("".join(sentence_path(s) + "\n" for s in itertools.islice(sentences, count)))
    return path


def typed_run(server: LiveServer, duration: int, block: Path) -> dict:
    """One run of wrk over a block of new sentences, and the worker's CPU time per request meanwhile."""
    cpu = cpu_seconds([server.process.pid])
    _, result = run_wrk(server.base + "/api/attention", CONNECTIONS, duration, script=SCRIPT, args=[str(block), "2"])
    result["cpu_us_per_request"] = (cpu_seconds([server.process.pid]) - cpu) / result["requests"] * 1e6
    result["sentences"] = block.read_text().count("\n")
    return result


SCRIPT = Path(tempfile.gettempdir()) / "attention-lens-typed.lua"


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return answer.read()


def answer_sizes(base: str, sentences: list[str]) -> dict:
    """The bytes of the default view of these sentences, and of each resource their answers reference."""
    sizes, fixed = [], {}
    for sentence in sentences:
        body = get(base + sentence_path(sentence))
        sizes.append(len(body))
        href = (json.loads(body).get("fixed") or {}).get("href")
        if href and href not in fixed:
            fixed[href] = len(get(base + href))
    return {"answer_bytes_mean": statistics.mean(sizes), "answer_bytes_max": max(sizes), "fixed": fixed}


def measure(app_dirs: dict[str, Path], rounds: int, duration: int, folder: Path) -> dict:
    SCRIPT.write_text(SENTENCES_LUA)
    sentences = everyday_sentences()
    block = duration * MOST_PER_SECOND
    servers = {name: LiveServer(workers=None, app_dir=path) for name, path in app_dirs.items()}
    results = {name: {"runs": []} for name in servers}
    sized = list(itertools.islice(sentences, 50))  # the same 50 for every server, asked before the runs
    try:
        for name, server in servers.items():
            server.start()
            results[name]["sizes"] = answer_sizes(server.base, sized)
            typed_run(server, 2, write_block(sentences, 2 * MOST_PER_SECOND, folder, f"warm-up-{len(results)}"))
        for round_number in range(rounds):
            for name, server in servers.items():
                run_file = write_block(sentences, block, folder, f"round-{round_number}")
                results[name]["runs"].append(typed_run(server, duration, run_file))
    finally:
        for server in servers.values():
            server.stop()
    return results


def summary(runs: list[dict]) -> dict:
    rates = [run["requests_per_s"] for run in runs]
    return {
        "requests_per_s": statistics.median(rates),
        "requests_per_s_range": (min(rates), max(rates)),
        "p50_ms": statistics.median(run["p50_ms"] for run in runs),
        "p99_ms": statistics.median(run["p99_ms"] for run in runs),
        "p99_ms_worst": max(run["p99_ms"] for run in runs),
        "cpu_us_per_request": statistics.median(run["cpu_us_per_request"] for run in runs),
        "non_2xx": sum(run["non_2xx_3xx"] for run in runs),
        "socket_errors": sum(sum(run["errors"].values()) for run in runs),
        "most_sentences_used": max(run["requests"] / run["sentences"] for run in runs),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, help="another checkout, measured in the same rounds")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=10, help="seconds of each wrk run")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    require("wrk")

    figures: dict = {"machine": machine(), "load_average_before": os.getloadavg()}
    app_dirs = {"this checkout": REPO, **({"before": args.before.resolve()} if args.before else {})}
    with tempfile.TemporaryDirectory(prefix="attention-lens-typed-") as folder:
        results = measure(app_dirs, args.rounds, args.duration, Path(folder))
    figures["load_average_after"] = os.getloadavg()
    figures["date_end"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    figures["servers"] = {name: {**r, "summary": summary(r["runs"])} for name, r in results.items()}
    if args.before:
        now, before = (results[name]["runs"] for name in app_dirs)
        figures["rate_ratios"] = [a["requests_per_s"] / b["requests_per_s"] for a, b in zip(now, before, strict=True)]
        figures["cpu_ratios"] = [
            a["cpu_us_per_request"] / b["cpu_us_per_request"] for a, b in zip(now, before, strict=True)
        ]

    m = figures["machine"]
    print(f"{m['date']} to {figures['date_end']}, {m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, {m['wrk']}")
    load = [f"{x:.1f}" for x in figures["load_average_before"]], [f"{x:.1f}" for x in figures["load_average_after"]]
    print(f"load average {' '.join(load[0])} -> {' '.join(load[1])}")
    print(f"wrk -t2 -c{CONNECTIONS}, {args.rounds} rounds of {args.duration} s per server, taking turns\n")
    print(
        "| server | new sentences/s (range) | p50 | p99 (worst round) | worker CPU per sentence | answer bytes (mean, "
        "max) | fixed resource |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, r in figures["servers"].items():
        s, sizes = r["summary"], r["sizes"]
        fixed = ", ".join(f"{n:,} B" for n in sizes["fixed"].values()) or "-"
        print(
            f"| {name} | {s['requests_per_s']:,.0f} ({s['requests_per_s_range'][0]:,.0f}-"
            f"{s['requests_per_s_range'][1]:,.0f}) | {s['p50_ms']:.1f} ms | {s['p99_ms']:.1f} ms "
            f"({s['p99_ms_worst']:.1f}) | {s['cpu_us_per_request']:,.0f} us | {sizes['answer_bytes_mean']:,.0f}, "
            f"{sizes['answer_bytes_max']:,} | {fixed} |"
        )
        if s["non_2xx"] or s["socket_errors"]:
            print(f"  {name}: non-2xx {s['non_2xx']}, socket errors {s['socket_errors']}")
        if s["most_sentences_used"] >= 1:
            print(f"  {name}: a run came to the end of its sentences (raise MOST_PER_SECOND): not valid")
    if "rate_ratios" in figures:
        ratios = figures["rate_ratios"]
        print(
            f"\nthis checkout / before, requests per second: p50 **{statistics.median(ratios):.2f}x** "
            f"({min(ratios):.2f}-{max(ratios):.2f}, {len(ratios)} rounds); the worker's CPU per sentence: p50 "
            f"**{statistics.median(figures['cpu_ratios']):.2f}** the time ({min(figures['cpu_ratios']):.2f}-"
            f"{max(figures['cpu_ratios']):.2f})"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
