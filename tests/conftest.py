"""Shared fixtures of every test (tests/browser/ adds its own): an in-process client, and the session's
one live server, Redis and nginx for what truly needs a socket.

A test that needs other settings builds its own app in process: TestClient(create_app(Settings(...))),
or AppServer(Settings(...)) (tests/support/live_server.py) when it needs a socket.
"""

import functools
import gc
import os
import re
import shutil
import sys
import time
from pathlib import Path

# One OpenBLAS thread per process, set before numpy loads (it reads this once), for tests that use numpy
# before they import the engine; the engine asks OpenBLAS for one thread itself when it loads
# (app/engine/models/openblas.py) and splits a sentence's rows over two threads (bert.encode). OpenBLAS's
# own threads busy-wait for a core: the e5 reference tests took 5x the CPU time with two of them.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest

from tests.support import examples

# Python may keep what it compiles, even where PYTHONDONTWRITEBYTECODE is set (scripts/test unsets it for the
# same reason): pytest keeps each test module with its asserts rewritten in tests/__pycache__ (gitignored), and
# Python the app's modules in app/__pycache__. Without them every process of every run rewrote and compiled
# them all again: collecting the fast loop took 5.4 s of each worker's CPU, 1.8 s with them. Set here, before
# the test modules and the app are imported; the cached files are checked against their source each time.
sys.dont_write_bytecode = False

# schemathesis builds its cases while pytest collects, and hypothesis then parses the source of a 200 KB
# schemathesis module to name a lambda. On CPython 3.11.7 that parse once failed as "SystemError: AST
# constructor recursion depth mismatch" at collection. The likelier cause is the app's lesson thread
# parsing at the same moment (CPython 3.11 keeps one AST depth counter per interpreter), which
# tests/test_schemathesis.py now waits out; the higher limit is kept as room to spare for deep parses.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

# pytest's temporary folders (tmp_path) in memory, on /dev/shm, when the machine has room there: the tests that
# write model-sized files (tests/test_weights_cache.py writes, fsyncs and hashes 90 and 145 MB ones, test_e5.py
# and test_minilm.py copy the model files) otherwise wait on the disk, 1 to 2 s of the fast loop's time. The same
# code runs; only the filesystem under the test's folder differs. pytest.ini's tmp_path_retention_policy =
# failed keeps only a failed test's folder, so that memory is given back as each test passes. A run's own
# PYTEST_DEBUG_TEMPROOT wins.
MEMORY_TEMPROOT = Path("/dev/shm")
if (
    MEMORY_TEMPROOT.is_dir()
    and os.access(MEMORY_TEMPROOT, os.W_OK)
    and shutil.disk_usage(MEMORY_TEMPROOT).free > 4 * 1024**3
):
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", str(MEMORY_TEMPROOT))

HERE = Path(__file__).resolve().parent
WHOLLY_SLOW = re.compile(r"^pytestmark = pytest\.mark\.slow(\s*#.*)?$", re.MULTILINE)  # every test is slow


def markers_of_every_test(path):
    """Markers every test under `path` carries, known without importing it: tests/browser/'s conftest marks
    all of its tests `browser`; a module that declares `pytestmark = pytest.mark.slow` marks all of its
    tests `slow`. Empty when nothing is known."""
    if path == HERE / "browser":
        return {"browser"}
    is_test_module = path.suffix == ".py" and path.parent == HERE and path.name.startswith("test_")
    if is_test_module and WHOLLY_SLOW.search(path.read_text(encoding="utf-8")):
        return {"slow"}
    return set()


def pytest_ignore_collect(collection_path, config):
    """With -m, leave uncollected what -m would deselect anyway: a wholly slow module, tests/browser/. Its
    imports (Playwright, schemathesis, which builds its cases while collected) then cost the fast loop
    nothing; the tests are the same ones, just not listed as deselected."""
    expression = config.getoption("markexpr")
    markers = markers_of_every_test(collection_path) if expression else set()
    if not markers:
        return None
    from _pytest.mark.expression import Expression  # pytest's own reading of -m (pytest is pinned)

    if not Expression.compile(expression).evaluate(lambda name, **kwargs: name in markers):
        return True
    return None


SCHEMATHESIS_PLUGIN = "schemathesis-on-demand"  # not "schemathesis": pytest.ini's -p no:schemathesis blocks that name


def pytest_collectstart(collector):
    """schemathesis's pytest plugin (pytest.ini blocks its automatic loading: importing it costs every process
    half a second) is registered just before tests/test_schemathesis.py, the one module that uses it, is
    collected; pytest calls its pytest_configure then, as for any plugin registered late."""
    plugins = collector.config.pluginmanager
    if collector.path.name == "test_schemathesis.py" and not plugins.has_plugin(SCHEMATHESIS_PLUGIN):
        import schemathesis.pytest.plugin

        plugins.register(schemathesis.pytest.plugin, SCHEMATHESIS_PLUGIN)


def pytest_collection_modifyitems(items):
    """schemathesis names each operation's test after it (`test_api_conforms_to_its_schema[GET /healthz]`) but all
    of them keep one node id (`...::test_api_conforms_to_its_schema`): it sets the attribute older pytest read
    (`_nodeid`), pytest 9 reads `_id`. pytest-xdist schedules by node id, so under -n only one operation was
    tested (2 of the module's 11 tests ran). Each such item gets the node id pytest gives any item: its
    parent's, then its name."""
    for item in items:
        if not item.nodeid.endswith("::" + item.name):
            item._id = item.parent.id.child(item.name)
    items.sort(key=lambda item: handing_out_order(item.path))


# The fast loop's longest modules, longest first (seconds of CPU each took under -n 0 on 2 December 2026, after
# the fast loop's changes of that day: 5.1 down to 1.2; test_e5.py's long sentences also keep
# app/engine/models/row_process.py's helper process busy). Handed out before the rest, so that each worker ends
# on short modules and the two finish within a second of each other; handed out in their usual order, the
# longest came last and one worker ran it alone (38 s against 36 s). A module not named here goes after them,
# in its usual order. Measured again when a module's cost changes: test_zeroing.py (6.4 s) was missing from the
# list, and the worker that ran it ran 6 s of CPU more than the other (28 against 34).
LONGEST_FIRST = (
    "test_e5.py",
    "test_weights_cache.py",
    "test_zeroing.py",
    "test_hardening.py",
    "test_api.py",
    "test_bert.py",
    "test_assets.py",
    "test_minilm.py",
    "test_app_models.py",
    "test_response_cache.py",
)
# Modules that spend much of their time waiting (on a timeout, a process starting or dying): handed out among
# the browser tests, each right after the browser module named here, so that the other worker's Chromium (several
# processes) uses the core they leave idle; among single-process tests that core stood idle. Spaced so that the
# browser modules between two of them keep the other worker busy longer than the first waits: handed out after every
# fourth browser module instead, test_live.py came 10 s of browser modules after test_live_hostile.py (37 s) and
# both workers waited together for 12-14 s of each run (bench.run_timeline, 6 December 2026).
WAITING = {
    "test_live_hostile.py": "test_classroom.py",  # 37 s
    "test_live.py": "test_history_keys.py",  # 26 s, after 42 s of browser modules
    "test_faults.py": "test_live_module.py",  # 17 s, after 50 s
    "test_nginx.py": "test_presets.py",  # 17 s, after 47 s
}
BROWSER_MODULES = tuple(sorted(path.name for path in (HERE / "browser").glob("test_*.py")))
CONTAINER_AFTER = 3  # the container tests go after this many of LONGEST_FIRST (see handing_out_order)
# The longest of the modules the fast loop leaves out (slow): right after the container tests, not at the end.
# test_tatoeba.py last of them: by then test_translator_figures.py has written the corpus it reads too
# (training_corpus), and it does not end the run alone (21 s, last of all on 6 December 2026).
SLOW_AND_LONG = ("test_translator_figures.py", "test_schemathesis.py", "test_determinism.py", "test_tatoeba.py")


@functools.cache  # once per module, not per test: the path's parents cost 0.2 ms each time
def handing_out_order(path):
    """Modules in the order scripts/test's two workers (-n 2 --dist loadfile) are handed them: the browser tests
    first (more than half of the run's time) with the WAITING modules among them, then the rest, the longest of
    them first (LONGEST_FIRST, with the container tests and then SLOW_AND_LONG after its first
    CONTAINER_AFTER). The container tests come early in the rest, not last: last, one worker ran them
    alone at the end (half a minute, much of it waiting on podman) while the other was done. They never run
    beside a browser test: podman adds and removes network interfaces as it starts containers, and Chromium then
    fails the requests it has in flight with net::ERR_NETWORK_CHANGED (a browser test failed so when the two ran
    at once); their module waits until every browser test of the run has finished (browser_tests_finished).
    Each module's tests stay together and in their order (the sort is stable)."""
    if HERE / "browser" in path.parents:
        return (0, BROWSER_MODULES.index(path.name) if path.name in BROWSER_MODULES else len(BROWSER_MODULES), 0)
    if path.name in WAITING:
        return (0, BROWSER_MODULES.index(WAITING[path.name]), 1)  # right after that browser module
    if path.name == "test_container.py":
        return (1, CONTAINER_AFTER - 0.5, 0)
    if path.name in SLOW_AND_LONG:
        return (1, CONTAINER_AFTER - 0.5, 1 + SLOW_AND_LONG.index(path.name))
    return (1, LONGEST_FIRST.index(path.name) if path.name in LONGEST_FIRST else len(LONGEST_FIRST), 0)


BROWSER_TESTS = pytest.StashKey[int]()
CONFIG = []  # this process's pytest config (pytest_runtest_logfinish is not handed it)


def browser_tests_file(config):
    """The file that the run's workers append the node id of each finished browser test to: in the run's
    temporary folder (pytest's, which keeps the last three runs'), the one its workers' folders are in."""
    base = config._tmp_path_factory.getbasetemp()
    return (base.parent if hasattr(config, "workerinput") else base) / "finished-browser-tests"


def pytest_sessionstart(session):
    """No test asserts on the wall clock: Hypothesis's default deadline (200 ms an example) is such an assertion,
    and a busy machine broke it (test_live.py's canonical-view property, once, while other tests ran beside it).
    The profile without it is loaded in each process that runs tests, before it imports a test module; under -n,
    not in pytest-xdist's controller ("dsession"), which runs none: importing hypothesis there (0.25 s) delayed
    starting the workers."""
    if session.config.pluginmanager.has_plugin("dsession"):
        return
    from hypothesis import settings as hypothesis_settings

    hypothesis_settings.register_profile("no-deadline", deadline=None)
    hypothesis_settings.load_profile("no-deadline")


def pytest_collection_finish(session):
    session.config.stash[BROWSER_TESTS] = sum(1 for item in session.items if item.get_closest_marker("browser"))
    # Every object alive now (the app and every module imported to collect the tests) lives until the process
    # ends: frozen, the garbage collector's full collections no longer walk them each time (0.4 s of each
    # worker's CPU in the fast loop, of 1.2 to 1.6 s spent collecting garbage).
    gc.collect()
    gc.freeze()


def pytest_runtest_logfinish(nodeid, location):
    if nodeid.startswith("tests/browser/"):
        with open(browser_tests_file(CONFIG[0]), "a", encoding="utf-8") as finished:
            finished.write(nodeid + "\n")


def pytest_configure(config):
    CONFIG[:] = [config]
    examples.FAST_LOOP = leaves_out_slow_tests(config)


def leaves_out_slow_tests(config):
    """Whether this run's -m deselects a test marked slow (and nothing else): the fast loop's does."""
    expression = config.getoption("markexpr")
    if not expression:
        return False
    from _pytest.mark.expression import Expression  # pytest's own reading of -m, as in pytest_ignore_collect

    return not Expression.compile(expression).evaluate(lambda name, **kwargs: name == "slow")


@pytest.fixture(scope="session")
def browser_tests_finished(pytestconfig):
    """Waits until every browser test this run selected has finished, on any worker (each appends its finished
    browser tests' node ids to browser_tests_file); gives up waiting after 20 minutes (a worker that crashed)."""
    expected = pytestconfig.stash.get(BROWSER_TESTS, 0)
    path = browser_tests_file(pytestconfig)
    deadline = time.monotonic() + 1200
    while expected and time.monotonic() < deadline:
        done = set(path.read_text(encoding="utf-8").split()) if path.exists() else set()
        if len(done) >= expected:
            break
        time.sleep(0.2)


@pytest.fixture(scope="session")
def training_corpus(pytestconfig):
    """The translators' whole corpus (tools/translator/dataset.generate(): 10 s of CPU), generated once in a run:
    the first worker that asks writes it beside browser_tests_file, and a worker that asks later reads it (a
    second). test_translator_figures.py checks its checksum against the one the models were trained on."""
    import pickle

    from tools.translator import dataset

    path = browser_tests_file(pytestconfig).with_name("training-corpus.pickle")
    if path.exists():
        gc.disable()  # its million new objects set off the collector again and again: 2.5 s, 0.4 s without
        try:
            return pickle.loads(path.read_bytes())
        finally:
            gc.enable()
    splits = dataset.generate()
    partial = path.with_name(f"{path.name}.{os.getpid()}")  # renamed when whole: a reader never sees it half written
    partial.write_bytes(pickle.dumps(splits, protocol=pickle.HIGHEST_PROTOCOL))
    partial.replace(path)
    return splits


@pytest.fixture(scope="session")
def client():
    """One in-process client of the app for the whole run; server errors become 500 responses (a TestClient's
    interface over one event loop: tests/support/asgi.py's AppClient)."""
    from app.main import create_app
    from tests.support.asgi import AppClient

    return AppClient(create_app(), raise_server_exceptions=False)


@pytest.fixture(scope="session")
def live_server():
    """The session's one real server: the app with the default settings under uvicorn with the production
    options, in this process; .base, .host, .port, .output() (its access log: JSON lines). Browser tests
    use it too (app_server)."""
    import urllib.request

    from app.settings import Settings  # here, not at the top: pytest's main process (under -n) never needs it
    from tests.support.live_server import AppServer

    # Every test reaches it from 127.0.0.1: the budgets per address are not what the tests sharing it check.
    limits = {"rooms_per_client_hour": 10_000, "rooms_per_client": 10_000, "room_misses_per_client_minute": 10_000}
    with AppServer(Settings(access_log=True, **limits)) as server:
        # The first page waits for the examples' and lessons' numbers (computed once, at start-up): wait here,
        # so that no test's own deadline includes them.
        urllib.request.urlopen(server.base + "/", timeout=600).read()
        yield server


@pytest.fixture(scope="session")
def redis_server():
    """The session's one redis-server (Debian's) on a free loopback port; tests use databases of their own."""
    from tests.support.redis_server import RedisServer

    with RedisServer() as server:
        yield server


@pytest.fixture(scope="session")
def nginx(live_server):
    """The session's one nginx (deploy/nginx.conf's shape) in front of the live server."""
    from tests.support.nginx import Nginx

    with Nginx(live_server.port) as proxy:
        yield proxy
