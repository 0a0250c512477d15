"""API speed, in one run. Not a test: run by hand (loopback only, bounded in time).

    python -m bench.bench_api [--duration 10] [--runs 200] [--json bench/out/api.json]

1. wrk against one worker on 127.0.0.1: requests/s of GET /api/attention?source=walk+by+river+bank
   and of GET /healthz (the trivial JSON endpoint), 2 threads, 32 connections, `--duration` seconds
   each after a 2 s warm-up of each; the ratio api/healthz (goal >= 0.5). Three servers, started by
   tests.support.live_server.LiveServer: the production command (scripts/serve: h11 with its bound on
   request heads) with the app's access log on (the default) and with ACCESS_LOG=0, and plain
   `uvicorn --factory app.main:create_app` (its default parser, httptools, no bound), for the price of h11.
2. In-process p50/p95 of a 128-token, 8-head request (goal < 30 ms): through FastAPI's TestClient,
   and directly through app.view.state + app.view.compute + app.web.jsonio (with the three parts timed apart).
3. Where a small request's time goes, without HTTP: the ASGI app called directly (no server, no
   sockets) for /healthz, /api/attention?source=walk+by+river+bank, the same with a bad `score`
   (parameter parsing and the 422 path only), and a 404 (the middleware stack only).
4. JSON encoding of a 128x128 float matrix: FastAPI's default (jsonable_encoder + json.dumps, as
   JSONResponse renders) on nested lists, against orjson as app.web.jsonio uses it (on the numpy array).
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import time
from pathlib import Path

from bench.common import sentence
from bench.common import wrk as run_wrk
from tests.support.asgi import call, http_scope
from tests.support.live_server import LiveServer

os.environ.setdefault("ACCESS_LOG", "0")  # in-process parts: no access-log line per call (servers set it explicitly)

API_PATH = "/api/attention?source=walk+by+river+bank"
HEALTH_PATH = "/healthz"
LONG_SOURCE = sentence(128)  # 128 tokens
LONG_PARAMS = {"source": LONG_SOURCE, "heads": "8", "projection": "random"}


# Every request a different link (seed=1, 2, ...), so the app's response cache never answers:
# the price of computing a view that nobody asked for before.
DISTINCT_LUA = """
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", wrk.path .. "&seed=" .. counter .. "&step=" .. (counter % 4))
end
"""


def wrk(url, duration, threads=2, connections=32, script=None):
    command, result = run_wrk(url, connections, duration, threads, script)
    latency = {"50": f"{result['p50_ms']:.1f}ms", "90": f"{result['p90_ms']:.1f}ms", "99": f"{result['p99_ms']:.1f}ms"}
    errors = ", ".join(f"{kind} {count}" for kind, count in result["errors"].items())
    return {"command": command, "requests_per_s": result["requests_per_s"], "non_2xx": result["non_2xx_3xx"],
            "socket_errors": errors, "latency": latency}  # fmt: skip


SERVERS = {
    "scripts/serve (h11), ACCESS_LOG=1": {"workers": 1, "env": {"ACCESS_LOG": "1"}},
    "scripts/serve (h11), ACCESS_LOG=0": {"workers": 1, "env": {"ACCESS_LOG": "0"}},
    "uvicorn --factory app.main:create_app (httptools), ACCESS_LOG=0": {"workers": None, "env": {"ACCESS_LOG": "0"}},
}


def bench_wrk(duration, server_name):
    with LiveServer(**SERVERS[server_name]) as server:
        for path in (HEALTH_PATH, API_PATH):  # warm-up
            wrk(server.base + path, 2)
        health = wrk(server.base + HEALTH_PATH, duration)
        api = wrk(server.base + API_PATH, duration)
        script = Path("/tmp/attention-lens-distinct.lua")
        script.write_text(DISTINCT_LUA)
        distinct = wrk(server.base + API_PATH, duration, script=script)
    return {"server": server_name, "healthz": health, "api": api, "api_distinct": distinct,
            "ratio": api["requests_per_s"] / health["requests_per_s"],
            "ratio_distinct": distinct["requests_per_s"] / health["requests_per_s"]}  # fmt: skip


def percentiles(samples):
    ordered = sorted(samples)
    return {"p50_ms": statistics.median(ordered) * 1000, "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1000}


def timed(function, runs, warm=10):
    for _ in range(warm):
        function()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return percentiles(samples)


def bench_in_process(runs):
    from fastapi.testclient import TestClient

    from app.engine.text.tokenize import tokenize
    from app.main import create_app
    from app.view.compute import compute_view
    from app.view.links import state_from_values
    from app.web.jsonio import dumps

    assert len(tokenize(LONG_SOURCE)) == 128
    client = TestClient(create_app())
    response = client.get("/api/attention", params=LONG_PARAMS, headers={"accept-encoding": "identity"})
    assert response.status_code == 200 and response.json()["n_heads"] == 8
    size = len(response.content)

    seeds = iter(range(1, 10**9))

    def through_fastapi():  # a new seed each time: the response cache must not answer
        params = {**LONG_PARAMS, "seed": str(next(seeds))}
        assert client.get("/api/attention", params=params, headers={"accept-encoding": "identity"}).status_code == 200

    def direct():
        return dumps(compute_view(state_from_values(LONG_PARAMS)))

    state = state_from_values(LONG_PARAMS)
    view = compute_view(state)
    return {
        "request": f"GET /api/attention source=<128 tokens> heads=8 ({size} bytes of JSON)",
        "testclient": timed(through_fastapi, runs),
        "direct": timed(direct, runs),
        "parts": {
            "links.state_from_values": timed(lambda: state_from_values(LONG_PARAMS), runs),
            "compute.compute_view": timed(lambda: compute_view(state), runs),
            "jsonio.dumps": timed(lambda: dumps(view), runs),
        },
        "direct_equals_http": dumps(view) == response.content,
        "small_parts": small_parts(runs * 5),
    }


def small_parts(runs):
    """The three parts for the 4-word sentence of the wrk run."""
    from app.view.compute import compute_view
    from app.view.links import state_from_values
    from app.web.jsonio import dumps

    params = {"source": "walk by river bank"}
    state = state_from_values(params)
    view = compute_view(state)
    return {
        "links.state_from_values": timed(lambda: state_from_values(params), runs),
        "compute.compute_view": timed(lambda: compute_view(state), runs),
        "jsonio.dumps": timed(lambda: dumps(view), runs),
    }


async def asgi_call(app, path, query):
    return (await call(app, http_scope(path, query, headers=[(b"host", b"127.0.0.1")])))[0]["status"]


def bench_asgi(runs):
    import asyncio

    from app.main import create_app

    app = create_app()
    cases = {
        "GET /healthz": ("/healthz", b"", 200),
        "GET /api/attention?source=walk+by+river+bank": ("/api/attention", b"source=walk+by+river+bank", 200),
        "GET /api/attention?...&score=foo (422)": ("/api/attention", b"source=walk+by+river+bank&score=foo", 422),
        "GET /nothing (404)": ("/nothing", b"", 404),
    }

    async def run():
        results = {}
        for name, (path, query, status) in cases.items():
            for _ in range(50):
                assert await asgi_call(app, path, query) == status
            samples = []
            for _ in range(runs):
                started = time.perf_counter()
                await asgi_call(app, path, query)
                samples.append(time.perf_counter() - started)
            results[name] = {key.replace("_ms", "_us"): value * 1000 for key, value in percentiles(samples).items()}
        return results

    return asyncio.run(run())


def bench_encoders(runs):
    import numpy as np
    from fastapi.encoders import jsonable_encoder

    from app.web.jsonio import dumps

    matrix = np.random.default_rng(0).standard_normal((128, 128))
    nested = matrix.tolist()

    def fastapi_default():  # what JSONResponse.render does with a nested list
        return json.dumps(jsonable_encoder(nested), ensure_ascii=False, allow_nan=False, indent=None,
                          separators=(",", ":")).encode("utf-8")  # fmt: skip

    import orjson

    default = timed(fastapi_default, runs, warm=3)
    app_orjson = timed(lambda: dumps(matrix), runs, warm=3)
    orjson_lists = timed(lambda: orjson.dumps(nested), runs, warm=3)
    return {
        "fastapi_default_ms": default["p50_ms"],
        "app_jsonio_orjson_numpy_ms": app_orjson["p50_ms"],
        "orjson_nested_lists_float64_ms": orjson_lists["p50_ms"],
        "ratio_default_over_app": default["p50_ms"] / app_orjson["p50_ms"],
        "ratio_default_over_orjson_lists": default["p50_ms"] / orjson_lists["p50_ms"],
    }


def machine():
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())  # fmt: skip
    return {"nproc": os.cpu_count(), "cpu": model, "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_average_at_start": os.getloadavg()}  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description="API benchmark (see the module docstring)")
    parser.add_argument("--duration", type=int, default=10, help="seconds of each wrk measurement")
    parser.add_argument("--runs", type=int, default=200, help="in-process repetitions")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--skip-wrk", action="store_true")
    args = parser.parse_args()

    figures = {"machine": machine()}
    if not args.skip_wrk:
        if shutil.which("wrk") is None:
            raise SystemExit("wrk is not installed (apt-get install -y wrk)")
        figures["wrk"] = [bench_wrk(args.duration, name) for name in SERVERS]
    figures["in_process"] = bench_in_process(args.runs)
    figures["asgi_direct"] = bench_asgi(args.runs * 10)
    figures["encoders"] = bench_encoders(args.runs)

    print(json.dumps(figures, indent=2, ensure_ascii=False))
    for run in figures.get("wrk", []):
        distinct = run["api_distinct"]["requests_per_s"]
        print(f"\n{run['server']}\n  /healthz {run['healthz']['requests_per_s']:.0f} req/s, "
              f"/api/attention {run['api']['requests_per_s']:.0f} req/s, ratio {run['ratio']:.2f} (goal >= 0.5); "
              f"every request a new link {distinct:.0f} req/s, ratio {run['ratio_distinct']:.2f}")  # fmt: skip
    ip = figures["in_process"]
    client, direct = ip["testclient"], ip["direct"]
    print(f"\n128 tokens, 8 heads: TestClient p50 {client['p50_ms']:.1f} ms (p95 {client['p95_ms']:.1f}), "
          f"direct p50 {direct['p50_ms']:.1f} ms (p95 {direct['p95_ms']:.1f}) (goal < 30 ms)")  # fmt: skip
    small = ", ".join(f"{name} {t['p50_ms'] * 1000:.0f} us" for name, t in ip["small_parts"].items())
    print(f"walk by river bank, p50 of each part: {small}")
    for name, times in figures["asgi_direct"].items():
        print(f"ASGI direct {name}: p50 {times['p50_us']:.0f} us")
    enc = figures["encoders"]
    print(f"128x128 matrix: FastAPI default {enc['fastapi_default_ms']:.2f} ms, "
          f"app orjson {enc['app_jsonio_orjson_numpy_ms']:.3f} ms, "
          f"ratio {enc['ratio_default_over_app']:.0f}x")  # fmt: skip
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
