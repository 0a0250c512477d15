"""bench/bench_typed.py measures what it says: every request a new everyday sentence. Its sentences are the same
for a seed, never repeat and use the lexicon's own words; wrk, with its script, asks each line of a run's file at
most once over both threads, and a run that comes to its file's end asks a path that is counted as an error."""

import itertools
import subprocess
import threading
from collections import Counter
from urllib.parse import parse_qs, urlsplit

import pytest

from app.engine.text.lexicon import load_lexicon
from bench.bench_typed import SENTENCES_LUA, everyday_sentences, write_block
from tests.support.live_server import free_port
from tests.test_bench_sentences import QuietServer, Recorder


def test_the_sentences_are_new_everyday_and_the_same_for_a_seed():
    sentences = list(itertools.islice(everyday_sentences(), 20_000))
    assert len(set(sentences)) == len(sentences)
    assert sentences[:500] == list(itertools.islice(everyday_sentences(), 500))
    assert sentences[:500] != list(itertools.islice(everyday_sentences(seed=1), 500))
    lexicon = load_lexicon()
    assert all(lexicon.entry(word) is not None for sentence in sentences[:2000] for word in sentence.split())
    assert {len(sentence.split()) for sentence in sentences} == {5, 6, 7, 8}


def asked(tmp_path, block, seconds=1):
    """The paths wrk asks in a run over `block` (a file of paths), two threads, 4 connections."""
    script = tmp_path / "typed.lua"
    script.write_text(SENTENCES_LUA)
    server = QuietServer(("127.0.0.1", free_port()), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Recorder.paths = []
    try:
        url = f"http://127.0.0.1:{server.server_port}/api/attention"
        command = ["wrk", "-t2", "-c4", f"-d{seconds}s", "-s", str(script), url, "--", str(block), "2"]
        subprocess.run(command, capture_output=True, check=True)
    finally:
        server.shutdown()
        server.server_close()
    return list(Recorder.paths)


@pytest.mark.slow  # runs wrk
def test_wrk_asks_each_sentence_of_a_run_once(tmp_path):
    sentences = everyday_sentences()
    runs = [asked(tmp_path, write_block(sentences, 50_000, tmp_path, f"run-{n}")) for n in range(2)]
    assert all(len(paths) > 100 for paths in runs), [len(paths) for paths in runs]
    asked_twice = [path for path, n in Counter(path for paths in runs for path in paths).items() if n > 1]
    assert asked_twice == []
    words = {parse_qs(urlsplit(path).query)["source"][0] for paths in runs for path in paths}
    assert words <= set(itertools.islice(everyday_sentences(), 100_000))  # the two runs' blocks


@pytest.mark.slow  # runs wrk
def test_a_run_at_the_end_of_its_sentences_asks_a_path_that_fails(tmp_path):
    paths = asked(tmp_path, write_block(everyday_sentences(), 40, tmp_path, "short"))
    sentences = [path for path in paths if path.startswith("/api/attention?source=")]
    assert len(sentences) == len(set(sentences)) >= 38  # wrk may skip a thread's first line, never repeat one
    assert set(paths) - set(sentences) == {"/bench-ran-out-of-sentences"}
