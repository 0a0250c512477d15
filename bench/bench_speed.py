"""The two speeds the peers are measured by, in one run: our forward pass against PyTorch's, and a new
typed sentence against the trivial /healthz answer. Not a test: run by hand (loopback only, bounded).

    .venv/bin/python -m bench.bench_speed                              # both ratios, this checkout
    .venv/bin/python -m bench.bench_speed --before /tmp/lens-before    # and another checkout's, same run
    .venv/bin/python -m bench.bench_speed --skip-torch                 # the HTTP ratio only

1. numpy ``bert.encode`` against ``transformers.BertModel`` (eager, ``output_attentions=True``) for
   all-MiniLM-L6-v2 at 128 pieces, the default threads on both sides (bench/bench_torch.py's worker in
   the torch venv), alternating in rounds; the ratio PyTorch / numpy of the medians (goal >= 1.0).
2. One worker of plain ``uvicorn --factory app.main:create_app`` with the default settings (the app's own access log
   on), wrk with 2 threads and 16 connections: GET /healthz, and GET /api/attention?source=<a sentence
   no request asked before> (wrk's Lua writes a different sentence of 5-8 words per request, so
   neither the response cache nor the coalescing answers). The two alternate in rounds against one
   server; the ratio sentence / healthz requests per second of each round (goal >= 0.5: a sentence
   costs at most twice a /healthz answer). With ``--before DIR`` the same against the other checkout's
   server, round after round with this one's, so both see the same machine.

3. Where a new sentence's time goes, without sockets: the CPU time (of the calling thread, which a
   busy machine disturbs less than the clock) of one ASGI call of /healthz and of a new sentence, and of
   the sentence's parts: reading the link, ``compute_view`` (the engine and the view), the JSON; the
   rest is the HTTP layers. Each checkout in its own process.

The machine is shared: compare the ratios, never bare rates; the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.common import machine, new_sentences_lua, require
from bench.common import wrk as run_wrk
from tests.support.live_server import LiveServer

# Each request a sentence never asked before, of 5-8 words.
SENTENCES_LUA = new_sentences_lua(
    '"/api/attention?source=" .. words',
    more_words="""  sentence[#sentence + 1] = "word" .. unique
  for i = 1, (counter % 4) do sentence[#sentence + 1] = vocabulary[((counter + i) % 16) + 1] end""",
)


# Run in a child process whose first argument is the checkout, so each checkout times its own code.
PARTS_SCRIPT = """
import asyncio, json, logging, os, random, statistics, sys, time
sys.path.insert(0, sys.argv[1])
os.environ["ACCESS_LOG"] = "1"
from app.main import create_app
from app.view.compute import compute_view
from app.view.links import state_from_values
from app.web.jsonio import dumps
from bench.bench_api import asgi_call
logging.disable(logging.CRITICAL)  # access-log lines are made, not printed
app = create_app()
WORDS = "the teacher gave student a book about river and sea in old school cat sat mat".split()
def sentence(i):
    r = random.Random(i)
    return " ".join(r.choice(WORDS) for _ in range(5)) + f" word{i}"  # an unknown word of its own, as in wrk's
def cpu_us(function, n):
    samples = []
    for i in range(n):
        started = time.thread_time()
        function(i)
        samples.append(time.thread_time() - started)
    return statistics.median(samples) * 1e6
loop = asyncio.new_event_loop()
call = lambda path, query: loop.run_until_complete(asgi_call(app, path, query))
query = lambda i: ("source=" + sentence(i).replace(" ", "+")).encode()
for i in range(300):
    call("/api/attention", query(i)), call("/healthz", b"")
states, views = {}, {}
figures = {
    "healthz_us": cpu_us(lambda i: call("/healthz", b""), 2000),
    "sentence_us": cpu_us(lambda i: call("/api/attention", query(10_000 + i)), 1000),
    "link_us": cpu_us(lambda i: states.__setitem__(i, state_from_values({"source": sentence(20_000 + i)})), 500),
    "compute_view_us": cpu_us(lambda i: views.__setitem__(i, compute_view(states[i])), 500),
    "json_us": cpu_us(lambda i: dumps(views[i]), 500),
}
figures["bytes"] = len(dumps(views[1]))
print(json.dumps(figures))
"""


def parts(app_dir: Path) -> dict:
    """One checkout's in-process CPU times (PARTS_SCRIPT), in a fresh process."""
    result = subprocess.run(
        [sys.executable, "-c", PARTS_SCRIPT, str(app_dir)],
        cwd=app_dir, capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    figures["shell_us"] = figures["sentence_us"] - figures["link_us"] - figures["compute_view_us"] - figures["json_us"]
    return figures


def forward_pass(torch_python: str, rounds: int, reps: int) -> dict:
    """numpy against PyTorch at 128 pieces, the default threads, alternating (bench_torch's method); and numpy
    with its second half on the helper thread instead of the helper process, in the same rounds."""
    from app.engine.models import row_process  # noqa: PLC0415
    from app.engine.models.registry import get_model  # noqa: PLC0415
    from bench.bench_torch import LONG, TorchWorker, blas_info, time_numpy  # noqa: PLC0415

    model = get_model("minilm")
    ids = model.tokenize(LONG).ids
    assert len(ids) == 128
    torch_side = TorchWorker(torch_python, model.model_dir, "default")
    ours, on_thread, theirs = [], [], []
    helper = row_process.started(model.params)  # a worker's helper is ready after its first few sentences
    before = helper.passes if helper is not None else 0
    try:
        time_numpy(model.params, ids, 10)  # warm-up, both sides
        torch_side.time(ids, 10)
        for _ in range(rounds):
            ours += time_numpy(model.params, ids, reps)["ms"]
            theirs += torch_side.time(ids, reps)["ms"]
            row_process.use_process = False
            on_thread += time_numpy(model.params, ids, reps)["ms"]
            row_process.use_process = True
    finally:
        torch_side.close()
    used = (helper.passes - before if helper is not None else 0) == len(ours) + 10
    return {
        "second_half_on": "the helper process" if used else "the helper thread (no helper process ran)",
        "numpy_thread_p50_ms": statistics.median(on_thread),
        "process_vs_thread": statistics.median(ours) / statistics.median(on_thread),
        "n_pieces": len(ids),
        "blas": blas_info(),
        "torch": torch_side.info,
        "numpy_p50_ms": statistics.median(ours),
        "torch_p50_ms": statistics.median(theirs),
        "numpy_min_ms": min(ours),
        "torch_min_ms": min(theirs),
        "ratio": statistics.median(theirs) / statistics.median(ours),
        "ratio_min": min(theirs) / min(ours),
        "samples_per_side": len(ours),
    }


def sentence_against_healthz(app_dirs: dict[str, Path], rounds: int, duration: int) -> dict:
    """Rounds of (healthz, new sentences) per server, the servers taking turns in each round."""
    script = Path("/tmp/attention-lens-sentences.lua")
    script.write_text(SENTENCES_LUA)
    servers = {name: LiveServer(workers=None, app_dir=path) for name, path in app_dirs.items()}
    results = {name: {"healthz": [], "sentence": [], "ratio": [], "non_2xx": 0, "errors": 0} for name in servers}
    try:
        for server in servers.values():
            server.start()
            run_wrk(server.base + "/healthz", 16, 2)  # warm-up
            run_wrk(server.base + "/api/attention?source=x", 16, 2, script=script)
        for _ in range(rounds):
            for name, server in servers.items():
                _, health = run_wrk(server.base + "/healthz", 16, duration)
                _, sentence = run_wrk(server.base + "/api/attention?source=x", 16, duration, script=script)
                r = results[name]
                r["healthz"].append(health["requests_per_s"])
                r["sentence"].append(sentence["requests_per_s"])
                r["ratio"].append(sentence["requests_per_s"] / health["requests_per_s"])
                r["non_2xx"] += health["non_2xx_3xx"] + sentence["non_2xx_3xx"]
                r["errors"] += sum(health["errors"].values()) + sum(sentence["errors"].values())
    finally:
        for server in servers.values():
            server.stop()
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torch-python", default="/work/torch-venv/bin/python")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of each side (both measures)")
    ap.add_argument("--reps", type=int, default=10, help="forward passes per side per round")
    ap.add_argument("--duration", type=int, default=5, help="seconds of each wrk run")
    ap.add_argument("--before", type=Path, help="another checkout, measured in the same rounds")
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--skip-http", action="store_true")
    ap.add_argument("--skip-parts", action="store_true")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()

    figures: dict = {"machine": machine(), "load_average_before": os.getloadavg()}
    app_dirs = {
        "this checkout": Path(__file__).resolve().parents[1],
        **({"before": args.before} if args.before else {}),
    }
    if not args.skip_torch:
        figures["forward"] = forward_pass(args.torch_python, args.rounds, args.reps)
    if not args.skip_http:
        require("wrk")
        figures["http"] = sentence_against_healthz(app_dirs, args.rounds, args.duration)
    if not args.skip_parts:
        figures["parts"] = {name: parts(path) for name, path in app_dirs.items()}
    figures["load_average_after"] = os.getloadavg()
    figures["date_end"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())

    m = figures["machine"]
    print(f"{m['date']} to {figures['date_end']}, {m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, {m['wrk']}")
    load = [f"{x:.1f}" for x in figures["load_average_before"]], [f"{x:.1f}" for x in figures["load_average_after"]]
    print(f"load average {' '.join(load[0])} -> {' '.join(load[1])}\n")
    if "forward" in figures:
        f = figures["forward"]
        print(
            f"forward pass, {f['n_pieces']} pieces ({f['blas']}; torch {f['torch']['torch']}, "
            f"{f['torch']['threads']} threads): numpy p50 {f['numpy_p50_ms']:.1f} ms (min {f['numpy_min_ms']:.1f}), "
            f"PyTorch p50 {f['torch_p50_ms']:.1f} ms (min {f['torch_min_ms']:.1f}): "
            f"PyTorch / numpy **{f['ratio']:.2f}x** (min {f['ratio_min']:.2f}x), {f['samples_per_side']} each; "
            f"second half on {f['second_half_on']}; on the helper thread instead: numpy p50 "
            f"{f['numpy_thread_p50_ms']:.1f} ms ({f['process_vs_thread']:.2f}x the time)"
        )
    for name, r in figures.get("http", {}).items():
        ratios = sorted(r["ratio"])
        print(
            f"{name}: /healthz {statistics.median(r['healthz']):,.0f} req/s "
            f"({min(r['healthz']):,.0f}-{max(r['healthz']):,.0f}), new sentence "
            f"{statistics.median(r['sentence']):,.0f} req/s ({min(r['sentence']):,.0f}-{max(r['sentence']):,.0f}); "
            f"ratio p50 **{statistics.median(ratios):.2f}** ({ratios[0]:.2f}-{ratios[-1]:.2f}, "
            f"{len(ratios)} rounds); non-2xx {r['non_2xx']}, socket errors {r['errors']}"
        )
    for name, p in figures.get("parts", {}).items():
        print(
            f"{name}, CPU p50 in process: /healthz {p['healthz_us']:.0f} us, new sentence {p['sentence_us']:.0f} us "
            f"(x{p['sentence_us'] / p['healthz_us']:.1f}): link {p['link_us']:.0f}, compute_view "
            f"{p['compute_view_us']:.0f}, JSON {p['json_us']:.0f} us ({p['bytes']:,} bytes), HTTP layers "
            f"{p['shell_us']:.0f} us"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
