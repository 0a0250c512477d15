"""What the benchmarks share: the machine's description, wrk and its output, a process's CPU time and memory
from /proc, percentiles, and a raw HTTP exchange. Servers are started with tests.support (LiveServer, Nginx)."""

from __future__ import annotations

import contextlib
import datetime
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Words every tokenizer here reads as one token (one word piece for MiniLM): sentences of a known length.
WORDS = ["the", "teacher", "gave", "the", "student", "a", "book", "about", "the", "river", "and", "the", "sea",
         "in", "the", "old", "school"]  # fmt: skip


def sentence(n_words: int) -> str:
    """The WORDS repeated to exactly n_words words."""
    return " ".join(WORDS[i % len(WORDS)] for i in range(n_words))


# ---------------------------------------------------------------------------- the machine


def new_sentences_lua(request: str, more_words: str = "") -> str:
    """A wrk Lua script whose every request asks a sentence no request asked before (so neither the response
    cache nor the coalescing answers it): four words chosen by a number's digits in base 16, then
    ``more_words`` (Lua lines that add to the table ``sentence``; ``unique`` is a string of digits no other
    request of any run has), then ``request`` (a Lua expression of the words joined by '+', ``words``) names
    the URL.

    Each wrk thread runs its own copy of the script, and LuaJIT's math.random starts from the same seed in
    every copy and every run: drawn from it, the threads asked the same sentences, so half of them were
    answered by the coalescing or the cache. The numbers come from the run's start, the thread's number and
    a counter instead (tests/test_bench_sentences.py checks them with wrk)."""
    return f"""
local vocabulary = {{"the", "teacher", "gave", "student", "a", "book", "about", "river", "and", "sea", "in", "old",
                    "school", "cat", "sat", "mat"}}
local run = os.time()  -- runs start at least a second apart
local threads = 0
function setup(thread)  -- in wrk's main copy of the script, once per thread
  thread:set("run", run)
  thread:set("thread_number", threads)
  threads = threads + 1
end
local counter = 0
request = function()
  counter = counter + 1
  local unique = string.format("%d%02d%07d", run, thread_number, counter)
  -- the four words: 65,536 choices, the threads' sequences 32,768 requests apart, each run's 4,096 apart
  local c = (counter + thread_number * 32768 + (run % 16) * 4096) * 7919
  local sentence = {{}}
  for i = 1, 4 do
    sentence[#sentence + 1] = vocabulary[(c % 16) + 1]
    c = math.floor(c / 16)
  end
{more_words}
  local words = table.concat(sentence, "+")
  return wrk.format("GET", {request})
end
"""


def machine() -> dict:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if "model name" in line
        ),
        platform.processor(),
    )
    wrk = subprocess.run(["wrk", "--version"], capture_output=True, text=True).stdout if shutil.which("wrk") else ""
    nginx = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr if shutil.which("nginx") else ""
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "loadavg_before": Path("/proc/loadavg").read_text().split()[:3],
        "python": platform.python_version(),
        "kernel": platform.release(),
        "wrk": " ".join(wrk.split()[:2]) or "-",
        "nginx": nginx.strip().removeprefix("nginx version: ") or "-",
    }


def print_preamble(info: dict, commands: list[str]) -> None:
    """The machine, the date and the exact commands, before a run's table."""
    print(
        f"Machine: {info['nproc']} CPUs ({info['cpu']}), Linux {info['kernel']}, Python {info['python']}, "
        f"{info['wrk']}, nginx {info['nginx']}"
    )
    print(f"Date: {info['date']}; load average before the run: {' '.join(info['loadavg_before'])}")
    print("Commands:")
    for command in commands:
        print("    " + command)
    print()


def require(*tools: str) -> None:
    missing = [tool for tool in tools if not shutil.which(tool)]
    if missing:
        raise SystemExit(f"missing: {' '.join(missing)} (apt-get install -y {' '.join(missing)})")


# ---------------------------------------------------------------------------- wrk

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def to_ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * UNITS[unit]


def parse_wrk(output: str) -> dict:
    result = {"errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0}, "non_2xx_3xx": 0}
    result["requests_per_s"] = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    result["requests"] = int(re.search(r"(\d+) requests in", output).group(1))
    for label, key in (("50%", "p50_ms"), ("75%", "p75_ms"), ("90%", "p90_ms"), ("99%", "p99_ms")):
        result[key] = to_ms(re.search(rf"^\s+{re.escape(label)}\s+(\S+)", output, re.M).group(1))
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if errors:
        result["errors"] = dict(zip(("connect", "read", "write", "timeout"), map(int, errors.groups()), strict=True))
    non_ok = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if non_ok:
        result["non_2xx_3xx"] = int(non_ok.group(1))
    return result


def wrk(
    url: str, connections: int, duration: int, threads: int = 2, script: Path | None = None, args: list[str] = ()
) -> tuple[str, dict]:
    """Run wrk (2 s timeout, latency percentiles; `args` go to the script's init); returns (the command, its
    figures and raw output)."""
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--timeout", "2s", "--latency"]
    command += ["-s", str(script)] if script else []
    command.append(url)
    command += ["--", *args] if args else []
    output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=duration + 60).stdout
    return " ".join(command), {**parse_wrk(output), "raw": output}


HEADER = (
    "| endpoint | requests/s | p50 | p99 | socket errors | timeouts | non-2xx/3xx | requests |\n"
    "|---|---|---|---|---|---|---|---|"
)


def row(name: str, result: dict) -> str:
    e = result["errors"]
    return (
        f"| {name} | {result['requests_per_s']:,.0f} | {result['p50_ms']:.1f} ms | {result['p99_ms']:.1f} ms | "
        f"{e['connect'] + e['read'] + e['write']} | {e['timeout']} | {result['non_2xx_3xx']} | {result['requests']:,} |"
    )


# ---------------------------------------------------------------------------- processes (/proc)


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / CLOCK_TICKS


def memory_mb(pid: int, field: str = "VmRSS") -> float:
    """VmRSS (resident now) or VmHWM (peak resident) of a process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def server_pids(server) -> list[int]:
    """The processes that answer requests: the workers of scripts/serve, or the one process."""
    return server.worker_pids() or [server.process.pid]


# ---------------------------------------------------------------------------- numbers and raw HTTP


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary_ms(seconds: list[float]) -> str:
    ms = [value * 1000 for value in seconds]
    return f"p50 {statistics.median(ms):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, max {max(ms):.1f} ms (n={len(ms)})"


def exchange(port: int, request: bytes, timeout: float = 30) -> tuple[int, bytes, float]:
    """Send raw bytes on a new connection; (status, whole answer, seconds until the first byte of the answer)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        started = time.perf_counter()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # it may answer before reading all
            connection.sendall(request)
        answer, first = b"", None
        try:
            while chunk := connection.recv(65536):
                first = first or time.perf_counter()
                answer += chunk
        except ConnectionResetError:
            pass
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0
    return status, answer, (first or time.perf_counter()) - started
