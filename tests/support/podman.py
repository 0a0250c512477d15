"""podman for the container tests: the flags this sandbox needs, building the image, waiting for a URL.

No Docker engine runs on these machines and no registry is reachable: scripts/container-base builds
stand-in base images from Debian packages (scripts/test runs it when they are missing) and prints
the flags every `podman build` and `podman run` needs here (runc, ulimits within the hard limits).
podman-compose gets the same settings through a containers.conf (CONTAINERS_CONF).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def podman_flags() -> list[str]:
    """`--runtime runc --ulimit nofile=H:H --ulimit nproc=N:N`, from scripts/container-base --flags."""
    output = subprocess.run(
        [ROOT / "scripts" / "container-base", "--flags"], capture_output=True, text=True, check=True
    )
    return output.stdout.split()


def containers_conf(path: Path) -> Path:
    """The same settings as podman_flags(), as a containers.conf for tools that run podman themselves."""
    flags = podman_flags()
    runtime = flags[flags.index("--runtime") + 1]
    ulimits = [flags[i + 1] for i, flag in enumerate(flags) if flag == "--ulimit"]
    path.write_text(
        f"[containers]\ndefault_ulimits = {json.dumps(ulimits)}\n\n[engine]\nruntime = {json.dumps(runtime)}\n"
    )
    return path


def podman(*args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(["podman", *args], capture_output=True, text=True, check=check, timeout=timeout)


def build_image(tag: str) -> float:
    """Build the Dockerfile from the working tree (docker format keeps HEALTHCHECK); returns seconds taken."""
    started = time.monotonic()
    result = subprocess.run(
        ["podman", "build", "--format", "docker", "--network", "host", *podman_flags(), "-t", tag, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return time.monotonic() - started


def wait_for(url: str, timeout: float = 180, status: int = 200) -> None:
    """Poll `url` until it answers `status` (containers start in tens of seconds on 2 shared cores)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=3) as answer:
                if answer.status == status:
                    return
                last = answer.status
        except OSError as error:
            last = error
        time.sleep(0.5)
    raise AssertionError(f"{url} did not answer {status} within {timeout} s (last: {last!r})")


def remove_container(name: str) -> None:
    with contextlib.suppress(subprocess.SubprocessError):
        podman("rm", "--force", "--time", "0", name, check=False)
