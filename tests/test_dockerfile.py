"""The Dockerfile cannot be built here (no Docker engine), so it is linted and checked against scripts/run."""

import subprocess
import sys
from pathlib import Path

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
    assert dockerfile.startswith("# ") and "FROM python:3.11-slim" in dockerfile
    assert "USER 10001" in dockerfile and "HEALTHCHECK" in dockerfile
    assert 'CMD ["scripts/serve"]' in dockerfile and "scripts/serve" in run
