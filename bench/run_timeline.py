"""Where a whole test run's time goes: each module's start and end on each pytest-xdist worker.

As a pytest plugin, it appends every test's start and end (wall clock) to one JSON-lines file per worker:

    PYTHONPATH=. ./scripts/test -p no:cacheprovider -p bench.run_timeline

Then ``python -m bench.run_timeline`` prints, per worker, its modules in the order it ran them (seconds since
the run's first test began, and each module's length, its fixtures' set-up included), and when each worker
finished: whether the two end together, and which modules are long (tests/conftest.py's handing_out_order).
"""

import json
import os
import sys
import time
from pathlib import Path

FOLDER = Path(os.environ.get("TIMELINE_DIR", "/tmp/attention-lens-timeline"))
_files: dict[str, object] = {}
_controller: list[bool] = []  # [True] in xdist's controller, which runs no test


def _write(record: dict) -> None:
    if _controller:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    if worker not in _files:
        FOLDER.mkdir(parents=True, exist_ok=True)
        _files[worker] = (FOLDER / f"{worker}.jsonl").open("a", encoding="utf-8")
    _files[worker].write(json.dumps(record) + "\n")
    _files[worker].flush()


def pytest_configure(config):
    """In the run's first process (xdist's controller, or the only one), before any worker starts: the last run's
    timeline goes."""
    if not hasattr(config, "workerinput"):
        for path in FOLDER.glob("*.jsonl"):
            path.unlink()
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        _controller.append(True)  # xdist's controller (-n 2): it hears its workers' tests again


def pytest_runtest_logstart(nodeid, location):
    _write({"id": nodeid, "start": time.time()})


def pytest_runtest_logfinish(nodeid, location):
    _write({"id": nodeid, "end": time.time()})


def main(folder: Path = FOLDER) -> None:
    runs = {path.stem: [json.loads(line) for line in path.open(encoding="utf-8")] for path in folder.glob("*.jsonl")}
    runs = {worker: records for worker, records in runs.items() if records}
    if not runs:
        sys.exit(f"no timeline in {folder}: run the tests with -p bench.run_timeline first")
    t0 = min(r["start"] for records in runs.values() for r in records if "start" in r)
    for worker, records in sorted(runs.items()):
        modules: dict[str, list[float]] = {}
        for r in records:
            span = modules.setdefault(r["id"].split("::")[0], [float("inf"), 0.0])
            span[0] = min(span[0], r.get("start", span[0]))
            span[1] = max(span[1], r.get("end", span[1]))
        print(f"== {worker}: finished {max(end for _, end in modules.values()) - t0:.1f} s after the first test")
        for module, (start, end) in modules.items():
            print(f"{start - t0:7.1f} {end - t0:7.1f} {end - start:6.1f}  {module}")


if __name__ == "__main__":
    main()
