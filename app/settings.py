"""Every setting of the app (pydantic-settings): `get_settings()` reads them from the environment once.

The README lists them. The server's settings (HOST to BACKLOG) are read by app/serve.py, which
scripts/serve runs, to start uvicorn; the app is given the rest: `create_app(settings)` (app/main.py)
keeps them in app.state.settings, and nothing reads the environment while answering. Tests build apps
with the settings they need, `create_app(Settings(response_cache_mb=0))`, in their own process
(tests/support/live_server.py), never by patching this module.
"""

import functools
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parents[1]  # the project folder: templates/ and static/ live here


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    # The server (app/serve.py). It is meant to sit behind nginx (deploy/nginx.conf), which faces clients.
    host: str = Field(
        "127.0.0.1",
        description="HOST: address scripts/serve binds to; loopback by default, 0.0.0.0 for every address "
        "(a container behind the proxy).",
    )
    port: int = Field(8000, ge=1, le=65535, description="PORT: port scripts/serve listens on.")
    workers: int = Field(
        1,
        ge=1,
        le=64,
        description="WORKERS: uvicorn worker processes. scripts/serve starts 2 when unset and exports the number, "
        "so each worker knows it; a process started by plain uvicorn is one worker. More than one worker keeps "
        "live-class rooms only with REDIS_URL.",
    )
    forwarded_allow_ips: str = Field(
        "127.0.0.1",
        description="FORWARDED_ALLOW_IPS: addresses of the reverse proxy, whose X-Forwarded-For/-Proto are trusted.",
    )
    http_parser: Literal["h11", "httptools"] = Field(
        "h11",
        description="HTTP_PARSER: h11 bounds a request head (MAX_REQUEST_HEAD_KB); httptools needs less than half "
        "its CPU for a cached answer but buffers any head whole: only behind nginx, which bounds heads itself.",
    )
    max_request_head_kb: int = Field(
        256,
        ge=64,
        le=4096,
        description="MAX_REQUEST_HEAD_KB: the HTTP server's bound on a request line plus headers (h11); above "
        "it, its bare 400. Below it the app answers for itself: 414 past a 48 KiB URL, 431 past 16 KiB of headers.",
    )
    timeout_keep_alive: int = Field(
        5, ge=1, le=300, description="TIMEOUT_KEEP_ALIVE: seconds an idle kept-alive connection stays open."
    )
    limit_concurrency: int = Field(
        8000,
        ge=1,
        description="LIMIT_CONCURRENCY: connections plus requests per worker; past it, new requests get 503 at once. "
        "Open live-class streams take at most three quarters of it (LIVE_STREAMS_MAX), so requests keep an answer.",
    )
    backlog: int = Field(2048, ge=16, description="BACKLOG: connections waiting to be accepted, per listening socket.")
    request_head_timeout: float = Field(
        10.0,
        gt=0,
        description="REQUEST_HEAD_TIMEOUT: seconds a connection may take to send a whole request head, from its "
        "opening or the end of the previous answer; one that sends nothing (or too slowly) is closed.",
    )
    send_buffer_kb: int = Field(
        128,
        ge=0,
        description="SEND_BUFFER_KB: the kernel's send buffer of each accepted connection (Linux doubles it), so "
        "that a client that stops reading is noticed by SEND_TIMEOUT instead of the kernel holding the answer; "
        "0 leaves the system's default (which grows to megabytes).",
    )
    worker_healthcheck_seconds: int = Field(
        60,
        ge=5,
        description="WORKER_HEALTHCHECK_SECONDS: how long the supervisor waits for a worker's answer to its health "
        "check before it kills the worker and starts another (uvicorn's default, 5 s, kills slow starts on a busy "
        "machine).",
    )

    # The app.
    threads: int = Field(
        2,
        ge=1,
        le=64,
        description="THREADS: requests a worker computes at once (views, pages); the others wait their turn. More "
        "threads than CPUs add no speed, only contention for Python's GIL, which starves the event loop (/healthz).",
    )
    send_timeout: float = Field(
        10.0,
        gt=0,
        description="SEND_TIMEOUT: seconds a client may take to make room for the next 64 KiB of a large answer "
        "before it is dropped (nginx's send_timeout does the same in front).",
    )
    coalesce: bool = Field(
        True,
        description="COALESCE: simultaneous requests for the same view compute it once; 0 turns it off (benchmarks).",
    )
    response_cache_mb: int = Field(
        64, ge=0, description="RESPONSE_CACHE_MB: per-worker cache of deterministic GET answers; 0 turns it off."
    )
    access_log: bool = Field(
        True, description="ACCESS_LOG: one JSON object per line per request on stderr; 0 turns it off."
    )
    frontend_modules: Path = Field(
        ROOT / "frontend" / "node_modules",
        description="FRONTEND_MODULES: where `npm ci --prefix frontend` installed the page's libraries "
        "(Plotly's cartesian bundle); without it the app serves the plotly package's full bundle.",
    )

    # Live classes (app/live): rooms a teacher drives and students follow.
    redis_url: str | None = Field(
        None,
        description="REDIS_URL: redis://host:port/db shared by every worker and machine; rooms and their changes "
        "go through it. Unset: rooms live in the process (one worker only).",
    )
    live_keepalive_seconds: float = Field(
        15, gt=0, le=300, description="LIVE_KEEPALIVE_SECONDS: a comment line on idle event streams this often."
    )
    room_ttl_seconds: int = Field(
        12 * 3600, ge=1, description="ROOM_TTL_SECONDS: a room ends this long after its last update (12 hours)."
    )
    room_idle_seconds: int = Field(
        1200,
        ge=1,
        description="ROOM_IDLE_SECONDS: a room nobody follows ends this long after the teacher's last change (the "
        "teacher's open page keeps it open); while students follow it, it stays open up to ROOM_TTL_SECONDS.",
    )
    rooms_per_client_hour: int = Field(
        60, ge=1, description="ROOMS_PER_CLIENT_HOUR: rooms one client address may start in any 60 minutes."
    )
    rooms_per_client: int = Field(
        40,
        ge=1,
        description="ROOMS_PER_CLIENT: rooms one client address (an IPv6 address: its /64) may have open at once.",
    )
    rooms_max: int = Field(5000, ge=1, description="ROOMS_MAX: open rooms in total (over all workers and machines).")
    room_streams_max: int = Field(
        1000, ge=1, description="ROOM_STREAMS_MAX: open student streams of one room on one worker."
    )
    live_streams_max: int = Field(
        5000,
        ge=1,
        description="LIVE_STREAMS_MAX: open student streams of one worker, all rooms; never more than three quarters "
        "of LIMIT_CONCURRENCY, so that pages, the API and /healthz keep being answered.",
    )
    live_streams_per_client: int = Field(
        2000,
        ge=1,
        description="LIVE_STREAMS_PER_CLIENT: open student streams of one client address on one worker (a school "
        "behind one NAT address shares it).",
    )
    room_misses_per_client_minute: int = Field(
        60,
        ge=1,
        description="ROOM_MISSES_PER_CLIENT_MINUTE: room codes that do not exist one client address may look up per "
        "minute on one worker; past it every room lookup by that address gets 429 for the rest of the minute.",
    )
    model_cache_dir: str = Field(
        str(ROOT / ".cache" / "models"),
        description="MODEL_CACHE_DIR: folder where the first worker to load a real model writes its verified, "
        "arranged weights (one file per model, named by the package file's sha256); every worker then maps that "
        "file read-only, so the workers share one copy. Empty: no file, each worker keeps its own copy.",
    )
    public_origin: str | None = Field(
        None,
        pattern=r"^https?://[^/?#\s]+$",
        description="PUBLIC_ORIGIN: scheme and host students reach the server at (https://lens.example.org); the "
        "QR code's link is built from it. Unset: from the request (the Host header), and the QR code is not "
        "shared by caches.",
    )
    room_view_max_bytes: int = Field(
        48 * 1024,
        ge=64,
        description="ROOM_VIEW_MAX_BYTES: the longest view (its query string, UTF-8 bytes) a room accepts; the "
        "default is the longest URL the app accepts.",
    )


@functools.cache
def get_settings() -> Settings:
    return Settings()
