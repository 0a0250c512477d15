"""The production server: uvicorn with the settings of app.settings (scripts/serve runs this).

It listens on 127.0.0.1 by default: on the internet, nginx with deploy/nginx.conf faces the clients
(slow and idle connections, header limits, slow readers; docs/deploy.md) and this server only sees
whole requests from it. Its own defences are for what reaches it anyway:

- h11, the HTTP parser with a bound on the request head (MAX_REQUEST_HEAD_KB), so a huge cookie is
  refused after 256 KiB instead of being buffered whole; below it the app answers 414 and 431 itself
  (HTTP_PARSER=httptools needs less than half the CPU per small request, without that bound: behind nginx only);
- idle kept-alive connections closed after TIMEOUT_KEEP_ALIVE seconds;
- at most LIMIT_CONCURRENCY connections and requests per worker (503 past it), BACKLOG waiting;
- on SIGTERM, open requests drain for up to 20 s; the app writes its own access log (uvicorn's is off).
"""

import logging

import uvicorn

from app.settings import Settings, get_settings

LOOPBACK = ("127.0.0.1", "::1", "localhost")
GRACEFUL_SHUTDOWN_S = 20


def server_options(settings: Settings) -> dict:
    """uvicorn's options for these settings, but for the app, host, port and workers (tests run the same
    server in their own process with them)."""
    return {
        "http": settings.http_parser,
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
    where = "loopback only" if settings.host in LOOPBACK else "every address given: put nginx in front"
    logging.getLogger("uvicorn.error").warning(
        "Attention Lens on http://%s:%d (%s; production: nginx with deploy/nginx.conf, docs/deploy.md)",
        settings.host,
        settings.port,
        where,
    )
    uvicorn.run(
        "app.main:app",
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        **server_options(settings),
    )


if __name__ == "__main__":
    main()
