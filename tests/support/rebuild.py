"""A committed file that a module writes (python -m <module> --out <path>) is written again byte for byte, in two
Python processes with different hash seeds (a set's order changes with the seed)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def rebuilt_in_two_processes(module: str, out: Path) -> list[Path]:
    """Runs ``python -m module --out <out>/<seed>`` with PYTHONHASHSEED 1 and 2; -> the two paths written."""
    written = []
    for seed in ("1", "2"):
        path = out / seed
        env = {**os.environ, "PYTHONHASHSEED": seed}
        command = [sys.executable, "-m", module, "--out", str(path)]
        subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, timeout=600)
        written.append(path)
    return written
