"""The access log: one JSON object per line on stderr for every request, with its status and time.

    {"time":"2026-11-30T07:41:02.125Z","pid":27484,"client":"127.0.0.1","method":"GET",
     "path":"/api/attention","query":"source=walk+by+river+bank","status":200,"bytes":3561,"ms":3.1}

(on one line). The path is the decoded one, so it may hold anything a client sent percent-encoded;
the stdlib json module writes every control character, newline and non-ASCII character as an
escape, so a request can neither forge a line nor write a terminal escape. Long paths and query
strings are cut at 1000 characters. status 0: the app sent no answer (the server answered 500).
"""

import datetime
import json
import logging
import sys
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_FIELD_CHARS = 1000

access_log = logging.getLogger("attention_lens.access")
ONE_LINE = json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode  # made once: one is made per call else


class JsonLines(logging.Formatter):
    """A log record as one line of JSON: its time (UTC), process id and the fields it was given."""

    def format(self, record: logging.LogRecord) -> str:
        created = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
        fields = getattr(record, "fields", None) or {"message": record.getMessage()}
        line = {"time": created.isoformat(timespec="milliseconds").replace("+00:00", "Z"), "pid": record.process}
        return ONE_LINE({**line, **fields})


def configure_access_log(enabled: bool) -> None:
    """Write the access log to stderr (once per process); an app with it turned off has no AccessLog layer."""
    if enabled and not access_log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonLines())
        access_log.addHandler(handler)
        access_log.setLevel(logging.INFO)
        access_log.propagate = False


class AccessLog:
    """Logs each request after its answer: who, what, the status, the body's bytes and the time taken."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not access_log.isEnabledFor(logging.INFO):
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        status, sent = 0, 0

        async def watched(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            client = scope.get("client") or ("-", 0)
            fields = {
                "client": client[0],
                "method": scope["method"],
                "path": scope["path"][:MAX_FIELD_CHARS],
                "query": scope.get("query_string", b"")[:MAX_FIELD_CHARS].decode("latin-1"),
                "status": status,
                "bytes": sent,
                "ms": round((time.perf_counter() - started) * 1000, 1),
            }
            # The record made as Logger.info would make it, less the search of the stack for the caller's
            # file and line, which the line does not show (a tenth of the log's time per request).
            record = access_log.makeRecord(access_log.name, logging.INFO, __file__, 0, "request", (), None, None,
                                           extra={"fields": fields})  # fmt: skip
            access_log.handle(record)
