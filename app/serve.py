"""The production server: uvicorn with the settings of app.settings (scripts/serve runs this).

It listens on 127.0.0.1 by default: on the internet, nginx with deploy/nginx.conf faces the clients
(slow and idle connections, header limits, slow readers; docs/deploy.md) and this server only sees
whole requests from it. Its own defences are for what reaches it anyway (a teacher's laptop on a
school network has no nginx):

- h11, the HTTP parser with a bound on the request head (MAX_REQUEST_HEAD_KB), so a huge cookie is
  refused after 256 KiB instead of being buffered whole; below it the app answers 414 and 431 itself
  (HTTP_PARSER=httptools needs less than half the CPU per small request, without that bound: behind nginx only);
- a connection that has not sent a whole request head within REQUEST_HEAD_TIMEOUT seconds of opening (or
  of its previous answer) is closed: uvicorn alone only times out a kept-alive connection that sent
  nothing after an answer, never one that sends nothing at all or a head byte by byte;
- each accepted connection's kernel send buffer capped at SEND_BUFFER_KB, so that an answer waits in
  the app, where SEND_TIMEOUT sees a client that stopped reading, instead of in megabytes of kernel memory;
- idle kept-alive connections closed after TIMEOUT_KEEP_ALIVE seconds;
- at most LIMIT_CONCURRENCY connections and requests per worker (503 past it), BACKLOG waiting; open
  live-class streams take at most three quarters of it (app/live/rooms.py), and the open-files limit is
  raised to what that many connections need;
- the supervisor waits WORKER_HEALTHCHECK_SECONDS for a worker's health check before replacing it (a
  worker starting on a busy machine is not killed);
- on SIGTERM, open requests drain for up to 20 s; the app writes its own access log (uvicorn's is off).
"""

import asyncio
import contextlib
import functools
import logging
import resource
import socket

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.settings import Settings, get_settings

LOOPBACK = ("127.0.0.1", "::1", "localhost")
GRACEFUL_SHUTDOWN_S = 20
SPARE_FILES = 256  # open files a worker needs besides its connections (models, logs, Redis, the listener)


class HeadTimeout:
    """A protocol mixin: the request head must arrive within REQUEST_HEAD_TIMEOUT; a capped send buffer
    (both from the settings it is given: ``server_options`` passes the server's own)."""

    head_timer: asyncio.TimerHandle | None = None
    watched = None  # the request cycle current when the timer was set: a new one means a head arrived

    def __init__(self, *args: object, settings: Settings, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.settings = settings

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if self.settings.send_buffer_kb and sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.settings.send_buffer_kb * 1024)
        self.watch_for_head()

    def watch_for_head(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
        self.watched = self.cycle
        self.head_timer = self.loop.call_later(self.settings.request_head_timeout, self.head_overdue)

    def head_overdue(self) -> None:
        self.head_timer = None
        if self.cycle is self.watched and not self.transport.is_closing():
            self.close_without_answer()

    def close_without_answer(self) -> None:
        self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self.watch_for_head()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None
        super().connection_lost(exc)


class H11WithHeadTimeout(HeadTimeout, H11Protocol):
    def close_without_answer(self) -> None:
        with contextlib.suppress(h11.LocalProtocolError):
            self.conn.send(h11.ConnectionClosed())
        self.transport.close()


class HttpToolsWithHeadTimeout(HeadTimeout, HttpToolsProtocol):
    pass


PROTOCOLS = {"h11": H11WithHeadTimeout, "httptools": HttpToolsWithHeadTimeout}


def raise_open_files_limit(wanted: int) -> int:
    """The soft limit on open files up to `wanted` (never past the hard limit); the limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def server_options(settings: Settings) -> dict:
    """uvicorn's options for these settings, but for the app, host, port and workers (tests run the same
    server in their own process with them)."""
    return {
        # The protocol class with these settings (uvicorn makes one per connection; a worker process is
        # handed it, settings and all, as it is handed the rest of the server's configuration).
        "http": functools.partial(PROTOCOLS[settings.http_parser], settings=settings),
        "timeout_worker_healthcheck": settings.worker_healthcheck_seconds,
        "h11_max_incomplete_event_size": settings.max_request_head_kb * 1024,
        "timeout_keep_alive": settings.timeout_keep_alive,
        "limit_concurrency": settings.limit_concurrency,
        "backlog": settings.backlog,
        "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_S,
        "access_log": False,
        "server_header": False,
        "proxy_headers": True,
        "forwarded_allow_ips": settings.forwarded_allow_ips,
    }


def main() -> None:
    settings = get_settings()
    log = logging.getLogger("uvicorn.error")
    where = "loopback only" if settings.host in LOOPBACK else "every address given: put nginx in front"
    log.warning(
        "Attention Lens on http://%s:%d (%s; production: nginx with deploy/nginx.conf, docs/deploy.md)",
        settings.host,
        settings.port,
        where,
    )
    files = raise_open_files_limit(settings.limit_concurrency + SPARE_FILES)
    if files < settings.limit_concurrency + SPARE_FILES:
        log.warning(
            "open files limited to %d, under LIMIT_CONCURRENCY=%d + %d: raise `ulimit -n` (the hard limit)",
            files,
            settings.limit_concurrency,
            SPARE_FILES,
        )
    uvicorn.run(
        "app.main:create_app",  # each worker builds its app from the environment's settings
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        **server_options(settings),
    )


if __name__ == "__main__":
    main()
