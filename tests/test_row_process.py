"""The forward pass's helper process: the same bytes as the helper thread, and never an answer lost to it."""

from __future__ import annotations

import dataclasses
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from app.engine.models import bert, encoder, registry, row_process
from tests.support.encoder import errors_of_a_pass

LONG = "Attention lets every token look at every other token. 注意力 机制 让 每个 词 都 能 看到 其他 词。 " * 6
FIELDS = ("q", "k", "v", "scores", "weights", "context", "hidden")
HELPER = row_process.encode_with_helper  # the runner of the second half the models give bert.encode
ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # each test starts a helper process (a child Python process)


@pytest.fixture(autouse=True)
def own_helper(monkeypatch):
    """Each test starts without a helper and with none lost, and stops the one it started."""
    row_process.stop()
    monkeypatch.setattr(row_process, "use_process", True)
    monkeypatch.setattr(row_process, "_lost", 0)
    monkeypatch.setattr(bert, "split_work", True)
    yield
    row_process.stop()


def on_the_thread(params, ids, monkeypatch) -> bert.EncoderOutput:
    with monkeypatch.context() as patch:
        patch.setattr(row_process, "use_process", False)
        return bert.encode(params, ids, HELPER)


def same(a: bert.EncoderOutput, b: bert.EncoderOutput) -> bool:
    return all(np.array_equal(getattr(a, key), getattr(b, key)) for key in FIELDS)


def in_the_process(params, ids) -> bert.EncoderOutput:
    """One pass whose second half the helper process computes (asserted, not assumed)."""
    helper = row_process.started(params)
    assert helper is not None, "no helper process got ready"
    before = helper.passes
    out = bert.encode(params, ids, HELPER)
    assert helper.passes == before + 1, "the pass did not use the helper process"
    return out


@pytest.mark.parametrize("name", ["minilm", "e5"])
@pytest.mark.parametrize("text", [LONG, LONG[:150]], ids=["128 pieces", "short"])
def test_the_helper_process_gives_the_bytes_of_the_helper_thread(name, text, monkeypatch):
    """Same code, same CPU, same rows: nothing may differ, down to the last bit of every intermediate."""
    model = registry.get_model(name)
    ids = model.tokenize(text).ids
    assert len(bert.row_halves(len(ids), big_enough=True)) == 2, "the rows are split"
    assert same(in_the_process(model.params, ids), on_the_thread(model.params, ids, monkeypatch))


def test_a_run_with_its_own_config_is_computed_with_it(monkeypatch):
    """e5 without its 8-bit rounding (the examples' check) keeps the mapped layers: the helper must take the
    run's config, not the one written in the weights file."""
    model = registry.get_model("e5")
    ids = model.tokenize(LONG).ids
    plain = model.without_rounding().params
    assert plain.layers_file == model.params.layers_file  # the helper may take it
    unrounded = in_the_process(plain, ids)
    assert same(unrounded, on_the_thread(plain, ids, monkeypatch))
    assert not np.array_equal(unrounded.hidden, on_the_thread(model.params, ids, monkeypatch).hidden)


def test_layers_that_are_not_the_mapped_ones_never_go_to_the_helper(monkeypatch):
    """A test's float64 copy, or any other replaced layers: the helper would compute the file's numbers."""
    model = registry.get_model("minilm")
    ids = model.tokenize(LONG).ids
    helper = row_process.started(model.params)
    assert helper is not None
    first = model.params.layers[0]
    moved = dataclasses.replace(first, b_o=first.b_o + np.float32(0.5))  # (d,) another output bias
    replaced = dataclasses.replace(model.params, layers=(moved, *model.params.layers[1:]))
    assert replaced.layers_file is None
    out = bert.encode(replaced, ids, HELPER)
    assert helper.passes == 0
    assert same(out, on_the_thread(replaced, ids, monkeypatch))
    assert not np.array_equal(out.hidden, on_the_thread(model.params, ids, monkeypatch).hidden)


def test_a_helper_killed_between_sentences_costs_nothing(monkeypatch):
    model = registry.get_model("minilm")
    ids = model.tokenize(LONG).ids
    expected = on_the_thread(model.params, ids, monkeypatch)
    first = row_process.started(model.params)
    os.kill(first.process.pid, signal.SIGKILL)
    first.process.wait()
    assert same(bert.encode(model.params, ids, HELPER), expected)  # on the thread: the lost helper found and stopped
    assert row_process._lost == 1
    assert same(in_the_process(model.params, ids), expected)  # a new helper
    assert row_process._helper is not first


def test_a_helper_killed_in_the_middle_of_a_sentence_costs_nothing(monkeypatch):
    model = registry.get_model("minilm")
    ids = model.tokenize(LONG).ids
    expected = on_the_thread(model.params, ids, monkeypatch)
    helper = row_process.started(model.params)
    meet, meetings = row_process.HelperProcess._meet, []

    def killed_at_the_third(self):
        meetings.append(1)
        if len(meetings) == 3:
            os.kill(self.process.pid, signal.SIGKILL)
        meet(self)

    monkeypatch.setattr(row_process.HelperProcess, "_meet", killed_at_the_third)
    assert same(bert.encode(model.params, ids, HELPER), expected)  # computed again on the thread
    # found lost at that meeting, or at the next when its answer to the third was already on its way
    assert len(meetings) in (3, 4) and helper.process.poll() is not None and row_process._helper is None


def test_an_error_in_this_half_is_raised_and_stops_the_helper(monkeypatch):
    """The helper then waits at a meeting that never comes: it is stopped, never left to hang."""
    model = registry.get_model("minilm")
    ids = model.tokenize(LONG).ids
    helper = row_process.started(model.params)
    feed_forward = bert.feed_forward

    def failing(x, lp, cfg):
        raise FloatingPointError("failed in this half")

    monkeypatch.setattr(encoder, "feed_forward", failing)  # this process only: the helper computes as ever
    assert len(errors_of_a_pass(model.params, ids, FloatingPointError, HELPER)) == 1
    assert helper.process.poll() is not None, "the helper was stopped"
    monkeypatch.setattr(encoder, "feed_forward", feed_forward)
    assert same(in_the_process(model.params, ids), on_the_thread(model.params, ids, monkeypatch))


def test_a_helper_that_cannot_map_the_file_leaves_the_work_to_the_thread(monkeypatch, tmp_path, caplog):
    """It fails to start its work (here: no weights file at that path) three times, then no more are started."""
    model = registry.get_model("minilm")
    ids = model.tokenize(LONG).ids
    expected = on_the_thread(model.params, ids, monkeypatch)
    broken = tmp_path / "not-a-weights-file"
    broken.write_bytes(b"not a weights cache")
    params = dataclasses.replace(model.params, mapped_from=bert.MappedFile(str(broken), model.params.layers))
    assert params.layers_file == str(broken)
    deadline = time.monotonic() + 60
    while row_process._lost < row_process.MAX_LOST and time.monotonic() < deadline:
        assert same(bert.encode(params, ids, HELPER), expected)
        time.sleep(0.02)
    assert row_process._lost == row_process.MAX_LOST
    assert row_process._the_helper() is None  # none started any more
    assert same(bert.encode(params, ids, HELPER), expected)
    assert "helper thread from now on" in caplog.text


def test_the_helper_exits_with_its_worker():
    """Killed without a chance to clean up, the worker leaves no helper behind: its pipe reads as closed."""
    script = (
        "from app.engine.models import registry, row_process\n"
        "helper = row_process.started(registry.get_model('minilm').params)\n"
        "print(helper.process.pid, flush=True)\n"
        "import time; time.sleep(120)\n"  # a worker busy with something else until it is killed below (it stays)
    )
    worker = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        helper_pid = int(worker.stdout.readline())
    finally:
        worker.kill()
        worker.wait()
    deadline = time.monotonic() + 30  # it exits at once; 30 s only bounds a failure
    while time.monotonic() < deadline and alive(helper_pid):
        time.sleep(0.05)
    assert not alive(helper_pid)


def alive(pid: int) -> bool:
    """Running, not exited (a zombie waiting for init to reap it has exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_forked_process_starts_its_own_helper():
    """A worker forked from a process that has a helper must not talk to that helper (its pipes are the parent's)."""
    helper = row_process.started(registry.get_model("minilm").params)
    assert helper is not None
    child = os.fork()
    if child == 0:  # pragma: no cover (the forked child reports by its exit status)
        os._exit(0 if row_process._helper is None and row_process._lost == 0 else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert row_process._helper is helper and helper.process.poll() is None  # the parent's is untouched


def test_a_worker_with_thousands_of_open_files_still_uses_its_helper(monkeypatch):
    """A class of 5,000 holds a worker's file numbers far beyond 1,024, where select() cannot wait on a pipe."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1_200 + 64
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.fail(f"this machine allows {hard} open files; the test needs {wanted}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    model = registry.get_model("minilm")
    ids = model.tokenize(LONG).ids
    expected = on_the_thread(model.params, ids, monkeypatch)
    taken = [os.dup(0) for _ in range(1_200)]
    try:
        helper = row_process.started(model.params)  # its pipes get the next free numbers: beyond 1,200
        assert helper is not None and min(helper.jobs, helper.answers) > 1_024
        assert same(in_the_process(model.params, ids), expected)
    finally:
        row_process.stop()
        for fd in taken:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_sentences_at_the_same_time_share_the_helper_and_the_thread(monkeypatch):
    """Two sentences at once: one goes to the helper process, the other to the helper thread; both exact."""
    model = registry.get_model("minilm")
    texts = [LONG, LONG[:150], LONG[:300], LONG[40:]]
    expected = {text: on_the_thread(model.params, model.tokenize(text).ids, monkeypatch) for text in texts}
    helper = row_process.started(model.params)
    results, errors = [], []

    def sentences(offset: int) -> None:
        try:
            for i in range(12):
                text = texts[(i + offset) % len(texts)]
                results.append(same(bert.encode(model.params, model.tokenize(text).ids, HELPER), expected[text]))
        except Exception as error:  # noqa: BLE001 (reported by the assertion below)
            errors.append(error)

    callers = [threading.Thread(target=sentences, args=(k,), daemon=True) for k in range(3)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join(timeout=300)  # a hang guard, not a speed limit
    assert not errors and len(results) == 36 and all(results)
    assert 0 < helper.passes < 36 and row_process._lost == 0  # both ways were taken
