"""Faults: a worker killed under load, the model failing to load, graceful shutdown.

The worker and shutdown tests run the production command (scripts/serve, 2 workers) on a free
127.0.0.1 port with the .venv of this checkout; every load is a few threads for a few seconds.
"""

import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.support.live_server import LiveServer, alive
from tests.support.load import Load, wait_until
from tests.support.pages import page_data

THREADS = 6
VIEW = "/api/attention?source=walk+by+river+bank&embedding=hash&dim=32&heads=4&projection=random&seed={seed}"


def maps(pid):
    """The files process `pid` has mapped (/proc/<pid>/maps), as text; empty once it is gone."""
    try:
        return Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return ""


def access_lines(server):
    """The app's access log: the whole JSON lines of the server's output (uvicorn's own lines are text)."""
    lines = server.output().splitlines(keepends=True)
    return [json.loads(line) for line in lines if line.startswith('{"time"') and line.endswith("\n")]


def view(n, count):
    return VIEW.format(seed=(n * 1000 + count) % 37)


# ---------------------------------------------------------------------------
# A worker killed under load
# ---------------------------------------------------------------------------


def asleep_between_health_checks(supervisor: int) -> bool:
    """Is uvicorn's supervisor asleep between its rounds of worker health checks (its one thread waits on a
    futex for 0.5 s) rather than checking (waiting for a worker's answer, a poll on its pipe)?"""
    try:
        return "futex" in Path(f"/proc/{supervisor}/wchan").read_text()
    except OSError:
        return False


def until_a_round_of_health_checks_ends(supervisor: int, guard: float = 5.0) -> None:
    """Return as the supervisor falls asleep after a round of health checks: a worker killed now is dead before
    the next round, which replaces it at once. Killed during a round, or just before one (a killed process
    takes a moment to die), it is asked for its answer, and the supervisor waits WORKER_HEALTHCHECK_SECONDS
    (60 s) for it: it holds the pipe's other end itself, so its poll sees no end of file. Where /proc/<pid>/wchan
    tells nothing, this returns after `guard` seconds, and the test may just take that minute longer."""
    deadline = time.monotonic() + guard
    checking = False
    while time.monotonic() < deadline:  # no sleep: a round lasts a few milliseconds
        asleep = asleep_between_health_checks(supervisor)
        if asleep and checking:
            return
        checking = checking or not asleep


@pytest.fixture(scope="module")
def production():
    with LiveServer(workers=2) as server:
        yield server


@pytest.mark.slow  # starts real servers
def test_killed_worker_loses_only_its_requests_and_is_replaced(production):
    load = Load(production.base, view, threads=THREADS, request_timeout=5)
    try:
        wait_until(lambda: len(load.snapshot()) > 10, "the load to be served (10 requests)")
        before = production.worker_pids()
        assert len(before) == 2, before
        victim = before[0]
        until_a_round_of_health_checks_ends(production.process.pid)
        killed_at = time.monotonic()
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: not alive(victim), "the killed worker to be gone")
        dead_at = time.monotonic()  # no request that starts after this can reach the victim

        replacement = None
        deadline = killed_at + 300  # a hang guard: a new worker loads both real models before it serves
        while time.monotonic() < deadline:
            fresh = [pid for pid in production.worker_pids() if pid not in before and alive(pid)]
            if fresh and any(
                line["pid"] == fresh[0] and line["path"] == "/api/attention" for line in access_lines(production)
            ):
                replacement = fresh[0]  # the new worker exists and has served part of the load
                break
            time.sleep(0.2)
        replaced_at = time.monotonic()
        wait_until(lambda: len(load.started_after(dead_at)) >= 20, "20 requests started after the kill", timeout=120)
    finally:
        results = load.stop()

    log = production.output()
    assert replacement is not None, f"no replacement worker served within 300 s of the kill:\n{log[-3000:]}"
    assert not alive(victim)
    assert production.process.poll() is None, "the supervisor survives"
    workers = production.worker_pids()
    assert len(workers) == 2 and replacement in workers, workers
    assert f"Child process [{victim}] died" in log

    failures = [
        (started - killed_at, finished - killed_at, outcome) for started, finished, outcome in results if outcome != 200
    ]
    assert all(not isinstance(outcome, int) for _, _, outcome in failures), f"server errors under load: {failures}"
    # Each client thread has at most one request in flight, so the dead worker held at most THREADS: only
    # requests already started when it died (an order of events, not a duration) may fail.
    assert len(failures) <= THREADS, failures
    assert all(started <= dead_at - killed_at for started, _, _ in failures), f"failures after the kill: {failures}"
    after = [outcome for started, _, outcome in results if started > dead_at]
    assert after.count(200) >= 20, f"service continued after the kill: {len(after)} requests"
    during = [outcome for started, _, outcome in results if dead_at < started < replaced_at]
    assert all(outcome == 200 for outcome in during), "one worker carries the load while the other restarts"
    served = [line for line in access_lines(production) if line["status"] == 200]
    assert served and all(isinstance(line["ms"], float) for line in served), "access log lines carry the request time"


# ---------------------------------------------------------------------------
# Graceful shutdown
# ---------------------------------------------------------------------------


@pytest.mark.slow  # starts real servers
def test_sigterm_drains_and_exits_zero():
    server = LiveServer(workers=2)
    try:
        server.start()
        workers = server.worker_pids()
        load = Load(server.base, view, threads=2, limit=30, request_timeout=5)
        slow = {}

        def slow_request():
            # The first minilm request of a worker verifies and loads the model: long enough to be in flight.
            try:
                slow["status"] = httpx.get(
                    server.base + "/api/attention?model=minilm&source=" + "the+river+bank+" * 20, timeout=25
                ).status_code
            except httpx.HTTPError as error:
                slow["status"] = repr(error)

        def reached_a_worker():
            """A worker maps the model's weights file to answer it (or it was answered already): from then on
            uvicorn counts it as a request in progress, which shutdown waits for, not an idle connection."""
            return "status" in slow or any("/minilm-" in maps(pid) for pid in workers)

        thread = threading.Thread(target=slow_request, daemon=True)
        wait_until(lambda: load.snapshot(), "the load to be served")
        thread.start()
        wait_until(reached_a_worker, "the minilm request to reach a worker")
        server.process.send_signal(signal.SIGTERM)
        try:
            code = server.process.wait(timeout=25)
        except subprocess.TimeoutExpired:
            pytest.fail("the supervisor did not exit within 25 s of SIGTERM:\n" + server.output()[-3000:])
        thread.join(timeout=5)
        results = load.stop()
        log = server.output()
        assert code == 0, f"exit code {code}:\n{log[-3000:]}"
        assert slow.get("status") == 200, f"the request in flight at SIGTERM: {slow}"
        assert not [pid for pid in workers if alive(pid)], "workers exit with the supervisor"
        statuses = {outcome for _, _, outcome in results if isinstance(outcome, int)}
        assert statuses <= {200}, f"answers during shutdown: {statuses}"
        assert log.count("Finished server process") == 2, log[-3000:]
        with pytest.raises(httpx.TransportError):
            httpx.get(server.base + "/healthz", timeout=1)
    finally:
        server.stop()


# ---------------------------------------------------------------------------
# The model failing to load
# ---------------------------------------------------------------------------


@pytest.fixture
def web():
    from fastapi.testclient import TestClient

    from app.main import create_app

    return TestClient(create_app(), raise_server_exceptions=False)


@pytest.fixture
def model_missing(monkeypatch, tmp_path):
    """The model's package points at an empty folder: get_model() raises ModelUnavailable."""
    from app.engine.models import minilm, registry
    from app.view import models

    monkeypatch.setattr(minilm, "default_model_dir", lambda: tmp_path)
    registry.reset_for_tests("minilm")
    models.forget_runs()
    yield tmp_path
    registry.reset_for_tests("minilm")  # the next test loads the real model again
    models.forget_runs()


def test_model_api_answers_503_with_a_message(web, model_missing):
    response = web.get("/api/attention?model=minilm&source=the+cat+sat")
    assert response.status_code == 503
    body = response.json()
    assert body["message"].startswith("model:")
    assert "model.safetensors" in body["message"] and "pip install" in body["message"]
    assert "etag" not in response.headers, "an outage must not be cached as the view"
    assert "max-age" not in response.headers.get("cache-control", "")
    posted = web.post("/api/attention", json={"model": "minilm", "source": "the cat sat"})
    assert posted.status_code == 503 and posted.json()["message"].startswith("model:")


@pytest.mark.parametrize("base", ["/", "/embed"])
def test_model_page_still_renders_with_a_notice(web, model_missing, base):
    response = web.get(base + "?model=minilm&source=the+cat+sat")
    assert response.status_code == 200
    notices = re.findall(r'<p class="notice">(.*?)</p>', response.text, re.S)
    assert any(notice.startswith("model:") and "model.safetensors" in notice for notice in notices), notices
    assert page_data(response.text)["view"]["mode"] == "self", "the page falls back to the toy engine's view"


@pytest.mark.parametrize("base", ["/", "/embed"])
def test_the_fallback_page_names_what_it_ignored(web, model_missing, base):
    response = web.get(base + "?model=minilm&source=the+cat+sat&temperature=hot")
    ignored = re.findall(r'<p class="notice ignored">(.*?)</p>', response.text, re.S)
    assert len(ignored) == 1 and "temperature:" in ignored[0] and "(" not in ignored[0], ignored


def test_toy_engine_keeps_working_without_the_model(web, model_missing):
    assert web.get("/api/attention?model=minilm").status_code == 503
    for path in ("/api/attention?source=walk+by+river+bank", "/?source=walk+by+river+bank", "/healthz"):
        response = web.get(path)
        assert response.status_code == 200, path
    body = web.get("/api/attention?source=walk+by+river+bank&heads=2").json()
    assert body["mode"] == "self" and body["n_heads"] == 2
    posted = web.post("/api/attention", json={"q": [[1, 0]], "k": [[1, 0], [0, 1]], "v": [[1], [2]]})
    assert posted.status_code == 200 and posted.json()["mode"] == "exercise"


def test_the_real_model_is_back_after_the_fault(web):
    """The fixture above restores the process: the model loads again (the tests can tell the difference)."""
    from app.engine.models import registry

    registry.reset_for_tests("minilm")
    response = web.get("/api/attention?model=minilm&source=the+cat+sat&head=0")
    assert response.status_code == 200, response.text[:300]
    assert response.json()["mode"] == "model"
