"""The second half of a forward pass's rows in a helper process (``bert.encode``'s other core).

Why a process and not a thread: two threads of one process each ran their half of the encoder about 1.5x
slower than one thread alone, on the 2-CPU virtual machines this was measured on; two processes did not
(bench/README.md, "An AVX-512 machine"). So each worker keeps one helper process, which maps the same
weights cache file as the worker (the operating system keeps one copy of its pages for both) and computes
the second half of a long sentence's rows through every layer with the very same ``encoder.layers_for_rows``.
The numbers are the same bytes as on the helper thread: the same code on the same CPU, split at the same row.

What the two processes share: one block of memory (``memfd``) that holds a run's arrays as
``encoder.EncoderOutput.over`` lays them out. Both write their rows' keys and values there; the helper
writes its rows of everything else there too, and the worker copies them into the run when the pass is done.
They talk through two pipes, a byte at a time: the worker sends a job, then both send ``MEET`` once a layer
(when its keys and values are written) and read the other's, and the helper sends ``DONE`` at the end.

The helper never costs an answer:

* it is used only when it is idle, has mapped the model's weights file, and the layers are those mapped from
  that file (``BertParams.layers_file``); otherwise the pass runs on the helper thread as before;
* it starts in the background and maps a model's file when first asked: meanwhile passes use the thread;
* a helper that dies, fails or does not answer within ``ANSWER_SECONDS`` is killed and the pass is
  computed again on the thread; after ``MAX_LOST`` such helpers the process stops starting new ones;
* it exits when the worker does: its pipe from the worker then reads as closed.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import mmap
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from app.engine.models import encoder

log = logging.getLogger(__name__)

JOB, MEET, DONE, READY = b"j", b"m", b"d", b"r"  # what a byte on either pipe means
ANSWER_SECONDS = 30.0  # far beyond a layer's few milliseconds: a helper this late is stuck, not slow
MAX_LOST = 3  # helpers lost in one process before it stops starting new ones
ROOT = Path(__file__).resolve().parents[3]  # the folder that holds the ``app`` package
use_process = hasattr(os, "memfd_create")  # Linux; elsewhere (and when tests switch it off) the helper thread
# glibc's malloc in a fresh process hands a layer's temporaries (up to ~0.4 MB each) back to the system when they
# are freed, and faults fresh pages in for the next: 1,316 page faults a pass at 128 pieces. A worker does not
# (its model load raised both thresholds). These keep the helper's freed memory for its next layer.
MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(64 << 20)}


class HelperLost(Exception):
    """The helper process died, failed, answered out of turn or not at all."""


def _read_exactly(fd: int, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = os.read(fd, count - len(data))
        if not chunk:
            raise HelperLost("the pipe was closed")
        data += chunk
    return data


# --------------------------------------------------------------------------- the worker's side


class HelperProcess:
    """One helper process, and the worker's ends of its pipes and shared memory. Used under ``lock``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.scratch_fd = os.memfd_create("attention-lens-rows")  # the shared block, grown as runs need
        self.mapping: mmap.mmap | None = None
        jobs_read, self.jobs = os.pipe()  # worker -> helper
        self.answers, answers_write = os.pipe()  # helper -> worker
        fds = (jobs_read, answers_write, self.scratch_fd)  # the helper's: main() reads them from its arguments
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", f"import {__name__} as m; m.main()", *map(str, fds)],
                pass_fds=fds,
                stdin=subprocess.DEVNULL,
                cwd=ROOT,
                env=os.environ | MALLOC,
            )
        except BaseException:
            self._close_files()
            raise
        finally:
            os.close(jobs_read)  # the helper's ends: closed here, so that either side sees the other exit
            os.close(answers_write)
        self.mapped_files: set[str] = set()
        self.waiting_for: str | None = ""  # what the next READY answers: "" the start, a path that file's mapping
        self.passes = 0  # passes it has computed (benchmarks and tests read it)
        self.closed = False

    def _answered(self, seconds: float) -> bool:
        """Whether the helper has written (or closed its pipe) within ``seconds``. poll, not select: a worker with
        thousands of open streams has file numbers beyond select's 1,024."""
        waiting = select.poll()
        waiting.register(self.answers, select.POLLIN)
        return bool(waiting.poll(seconds * 1000))

    def ready_for(self, weights_file: str) -> bool:
        """Whether the helper has mapped ``weights_file``; when idle and it has not, asks it to. Never waits."""
        if self.waiting_for is not None:
            if not self._answered(0):
                return False  # still starting, or still mapping a file
            self._expect(READY)
            if self.waiting_for:
                self.mapped_files.add(self.waiting_for)
            self.waiting_for = None
        if weights_file in self.mapped_files:
            return True
        self._send({"map": weights_file})
        self.waiting_for = weights_file
        return False

    def encode(self, p: encoder.BertParams, out: encoder.EncoderOutput, halves: list[tuple[int, int]]) -> None:
        """``out.hidden[0]``'s first half of rows through every layer here, the second in the helper."""
        sizes = (*out.q.shape, out.hidden.shape[-1])  # n_layers, n_heads, n, d_head, d_model
        shared = encoder.EncoderOutput.over(self._scratch(encoder.EncoderOutput.size(*sizes)), *sizes)
        mine, (start, stop) = halves
        shared.hidden[0, start:stop] = out.hidden[0, start:stop]  # (m, d) the helper's rows of the embeddings
        job = {"weights": p.layers_file, "config": dataclasses.asdict(p.config), "sizes": sizes, "rows": [start, stop]}
        self._send(job | {"bytes": len(self.mapping)})  # the config: a run may change it (e5 without its rounding)
        encoder.layers_for_rows(p.layers, p.config, out, mine, meet=self._meet, keys=shared)
        self._expect(DONE)
        out.k[...], out.v[...] = shared.k, shared.v  # (L, H, n, dh) every row's, written by both
        theirs = slice(start, stop)
        for name in ("q", "scores", "weights", "context"):  # (L, H, m, ...) the helper's rows as queries
            getattr(out, name)[:, :, theirs] = getattr(shared, name)[:, :, theirs]
        out.hidden[1:, theirs] = shared.hidden[1:, theirs]  # (L, m, d)
        self.passes += 1

    def close(self) -> None:
        """Stop the helper (it may be in the middle of a job) and let go of its pipes and memory."""
        if self.closed:
            return
        self.closed = True  # before the numbers are let go: another file may get them next
        self.process.kill()
        self.process.wait()
        self._close_files()
        self.mapping = None

    def _close_files(self) -> None:
        """The worker's ends of the pipes and its shared block's file (the mapping, if any, stays valid)."""
        for fd in (self.jobs, self.answers, self.scratch_fd):
            os.close(fd)

    def _scratch(self, numbers: int) -> np.ndarray:
        """The shared block as float32, at least ``numbers`` long (grown, never shrunk)."""
        size = numbers * np.dtype(encoder.DTYPE).itemsize
        if self.mapping is None or len(self.mapping) < size:
            os.ftruncate(self.scratch_fd, size)
            self.mapping = mmap.mmap(self.scratch_fd, size)
        return np.frombuffer(self.mapping, encoder.DTYPE)

    def _send(self, job: dict) -> None:
        data = json.dumps(job).encode("utf-8")
        try:
            os.write(self.jobs, JOB + struct.pack("<I", len(data)) + data)
        except OSError as e:  # the helper is gone (EPIPE)
            raise HelperLost(f"cannot send a job ({e})") from None

    def _meet(self) -> None:
        try:
            os.write(self.jobs, MEET)
        except OSError as e:
            raise HelperLost(f"cannot meet ({e})") from None
        self._expect(MEET)

    def _expect(self, answer: bytes) -> None:
        if not self._answered(ANSWER_SECONDS):
            raise HelperLost(f"no answer within {ANSWER_SECONDS:.0f} s")
        got = os.read(self.answers, 1)
        if got != answer:
            raise HelperLost(f"expected {answer!r}, got {got!r}" if got else "the helper exited")


_helper: HelperProcess | None = None
_lost = 0  # helpers lost in this process
_start_lock = threading.Lock()


def _forget_in_forked_child() -> None:
    """A forked process must not use (nor keep open) its parent's helper: it starts its own when it needs one."""
    global _helper, _lost, _start_lock
    if _helper is not None and not _helper.closed:
        _helper._close_files()
    _helper, _lost, _start_lock = None, 0, threading.Lock()


os.register_at_fork(after_in_child=_forget_in_forked_child)


def _the_helper() -> HelperProcess | None:
    """This process's helper, started on first use; None when none may run here."""
    global _helper
    with _start_lock:
        if _helper is None and _lost < MAX_LOST:
            try:
                _helper = HelperProcess()
            except OSError as e:  # no memfd, no process left, no python: the helper thread does the work
                log.warning("no helper process for the forward pass: %s", e)
                _count_lost()
        return _helper


def _lose(helper: HelperProcess) -> None:
    """Stop a helper that failed (its caller holds its lock), and count it."""
    global _helper
    helper.close()
    with _start_lock:
        if _helper is helper:
            _helper = None
        _count_lost()


def _count_lost() -> None:
    global _lost
    _lost += 1
    if _lost == MAX_LOST:
        log.warning("%d helper processes lost: the forward pass uses the helper thread from now on", MAX_LOST)


def encode_with_helper(p: encoder.BertParams, out: encoder.EncoderOutput, halves: list[tuple[int, int]]) -> bool:
    """Run ``halves`` (this thread's rows, the helper's rows) through every layer with the helper process.

    False, with ``out`` to be computed again, when the helper cannot: none may run here, the model's weights
    are not in a file the helper can map, it is busy with another sentence or still starting, or it was lost
    during this pass. Raises what this thread's own half raises.
    """
    if not use_process or p.layers_file is None or out.hidden.dtype != np.float32:
        return False
    helper = _the_helper()
    if helper is None or not helper.lock.acquire(blocking=False):
        return False
    try:
        if helper.closed or not helper.ready_for(p.layers_file):  # closed: lost by another thread just now
            return False
        helper.encode(p, out, halves)
        return True
    except HelperLost as e:
        log.warning("the forward pass's helper process was lost (%s): this pass runs on the helper thread", e)
        _lose(helper)
        return False
    except BaseException:
        _lose(helper)  # it may be waiting for this half at a meeting that will never come
        raise
    finally:
        helper.lock.release()


def started(p: encoder.BertParams, timeout: float = 30.0) -> HelperProcess | None:
    """Start this process's helper and have it map ``p``'s layers; wait until it has (benchmarks and tests:
    a worker never waits). None when none may run here or it did not get ready within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and p.layers_file is not None:
        helper = _the_helper()
        if helper is None:
            return None
        with helper.lock:
            try:
                if not helper.closed and helper.ready_for(p.layers_file):
                    return helper
            except HelperLost:
                _lose(helper)
        time.sleep(0.01)
    return None


def stop() -> None:
    """Stop this process's helper, if it has one; the next long sentence starts another (tests)."""
    global _helper
    with _start_lock:
        helper, _helper = _helper, None
    if helper is not None:
        with helper.lock:
            helper.close()


# --------------------------------------------------------------------------- the helper's side


def serve_rows(jobs: int, answers: int, scratch_fd: int) -> None:
    """The helper's loop: map weights files and compute rows, as the worker asks, until its pipe closes."""
    layers_of: dict[str, tuple[encoder.LayerParams, ...]] = {}  # weights file -> its layers, mapped
    mapping: mmap.mmap | None = None

    def meet() -> None:
        os.write(answers, MEET)
        if _read_exactly(jobs, 1) != MEET:
            raise HelperLost("the worker sent something other than a meeting")

    os.write(answers, READY)
    while True:
        try:
            kind = _read_exactly(jobs, 1)
        except HelperLost:
            return  # the worker exited
        if kind != JOB:
            raise HelperLost(f"expected a job, got {kind!r}")
        (length,) = struct.unpack("<I", _read_exactly(jobs, 4))
        job = json.loads(_read_exactly(jobs, length))
        if "map" in job:
            from app.engine.models import weights_cache  # noqa: PLC0415 (only a helper maps files itself)

            arrays, facts = weights_cache.read(Path(job["map"]))  # checks the file's sha256, as the worker did
            config = weights_cache.config_from_facts(facts["config"])
            layers_of[job["map"]] = weights_cache.layers_from_arrays(arrays, config)
            os.write(answers, READY)
            continue
        if mapping is None or len(mapping) != job["bytes"]:
            mapping = mmap.mmap(scratch_fd, job["bytes"])
        shared = encoder.EncoderOutput.over(np.frombuffer(mapping, encoder.DTYPE), *job["sizes"])
        config = encoder.BertConfig(**job["config"])
        try:
            rows = tuple(job["rows"])
            encoder.layers_for_rows(layers_of[job["weights"]], config, shared, rows, meet=meet, keys=shared)
        except HelperLost:
            return  # the worker exited or gave up on this pass (it then stops this process)
        os.write(answers, DONE)


def main() -> None:
    """The helper process's start (``HelperProcess`` runs it): its file descriptors come as arguments."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the worker; its helper then sees the pipe close
    serve_rows(*(int(fd) for fd in sys.argv[1:4]))
