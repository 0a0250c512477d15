"""The benchmarks' "every request a new sentence" holds: wrk, with the script bench/common.py writes, asks a
server that records every path; no path comes twice, within a run (two threads) or across two runs."""

import subprocess
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from bench.bench_speed import SENTENCES_LUA
from tests.support.live_server import free_port

pytestmark = pytest.mark.slow  # two wrk runs of a second each


class Recorder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the app's server answers wrk
    disable_nagle_algorithm = True  # the body is not held back 40 ms for the headers' ACK
    paths: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        self.paths.append(self.path)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # wrk resets its connections when its time is up


def test_every_request_of_the_sentence_benchmark_asks_a_new_sentence(tmp_path):
    script = tmp_path / "sentences.lua"
    script.write_text(SENTENCES_LUA)
    server = QuietServer(("127.0.0.1", free_port()), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    runs = []
    try:
        for _ in range(2):
            Recorder.paths = []
            url = f"http://127.0.0.1:{server.server_port}/api/attention?source=x"
            subprocess.run(["wrk", "-t2", "-c4", "-d1s", "-s", str(script), url], capture_output=True, check=True)
            runs.append(Recorder.paths)
    finally:
        server.shutdown()
        server.server_close()
    sentences = [parse_qs(urlsplit(path).query)["source"][0] for run in runs for path in run]
    assert all(len(run) > 100 for run in runs), [len(run) for run in runs]
    assert [s for s, n in Counter(sentences).items() if n > 1] == []
    # both threads asked, each its own sentences (the thread's number is part of the unique word)
    words = [sentence.split()[4] for sentence in sentences]
    assert {word[len("word") + 10 : len("word") + 12] for word in words} == {"00", "01"}
    assert all(5 <= len(sentence.split()) <= 8 for sentence in sentences)
