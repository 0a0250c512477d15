"""Live classes over HTTP: rooms (JSON), their Server-Sent Events stream, QR code and follow page.

    POST /api/rooms                    {"view"?} -> 201 {code, secret, version, view, follow_url, ...}
    GET  /api/rooms/{code}             -> {code, version, view, follow_url, ...}
    PUT  /api/rooms/{code}             Authorization: Bearer <secret>, {"view"} -> 204
    GET  /api/rooms/{code}/events      text/event-stream: the current view at once, then one event per change
    GET  /api/rooms/{code}/qr.svg      a QR code of the absolute follow link
    GET  /live/{code}                  the page, showing the room's current view, in follow mode

A view is the canonical query string of a link; `canonical_view` is the one place that checks it.
A stream is written by its request's own task (EventStream), with one more task per student that waits for
the client to leave; the store's keeper asks quiet streams for keep-alive comments, and every stream ends
when uvicorn is asked to stop (end_streams_when_the_server_stops), so a graceful shutdown never waits on them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import signal
import time
from collections.abc import AsyncIterator, Iterator
from typing import Annotated

import segno
from fastapi import APIRouter, Header, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.types import Receive, Scope, Send

from app.live.rooms import (
    CODE_ALPHABET,
    CODE_LENGTH,
    Hub,
    Listener,
    LiveUnavailable,
    Misses,
    Room,
    RoomError,
    RoomNotFound,
    Rooms,
    Status,
    client_key,
    duration,
    normal_code,
    not_found,
)
from app.settings import Settings
from app.view.i18n import STRINGS
from app.view.links import state_from_query
from app.web import routes
from app.web.errors import error_body, error_items
from app.web.jsonio import JSONBytes, dumps
from app.web.pages import page_template, render_page
from app.web.schema import ErrorResponse
from app.web.shared import cached

router = APIRouter(tags=["live class"])

RETRY_MS = 2000  # EventSource waits this long before reconnecting after a stream ends
STOP_CHECK_SECONDS = 0.5  # how often a worker looks whether uvicorn was asked to stop
NO_STORE = {"Cache-Control": "no-store"}
# Never cached, and never buffered by nginx (X-Accel-Buffering), or a student would see a change late.
STREAM_HEADERS = {**NO_STORE, "X-Accel-Buffering": "no"}


class RoomBody(BaseModel):
    view: str = Field(
        description="The canonical query string of the view, as in a share link without '/?' "
        "(e.g. source=walk+by+river+bank&step=2). At most ROOM_VIEW_MAX_BYTES bytes."
    )


class RoomAnswer(BaseModel):
    code: str = Field(
        description=f"{CODE_LENGTH} characters from {CODE_ALPHABET}; case, spaces and dashes do not matter."
    )
    version: int = Field(description="1 when the room starts, +1 with each change of view.")
    view: str = Field(description="The room's current view: a canonical query string.")
    follow_url: str = Field(description="The page students open: /live/<code>.")
    room_url: str
    events_url: str = Field(description="Server-Sent Events of the room's changes.")
    qr_url: str = Field(description="A QR code (SVG) of the absolute follow link.")


class NewRoomAnswer(RoomAnswer):
    secret: str = Field(description="The teacher's key (192 random bits): PUT needs it as a Bearer token.")
    expires_in: int = Field(description="Seconds the room stays open without an update (ROOM_TTL_SECONDS).")
    idle_seconds: int = Field(
        description="Seconds the room stays open without an update while nobody follows it (ROOM_IDLE_SECONDS): "
        "the teacher's page sends its view again well within it."
    )


def problem(description: str) -> dict:
    return {"model": ErrorResponse, "description": description}


ROOM_ERRORS = {
    404: problem("No room with this code: it never existed or has ended."),
    429: problem(
        "This address looked up ROOM_MISSES_PER_CLIENT_MINUTE codes that do not exist within the last minute, "
        "or follows LIVE_STREAMS_PER_CLIENT streams on this worker already. Retry-After says when to try again."
    ),
    503: problem(
        "Live classes are unavailable: Redis cannot be reached, or several workers run without REDIS_URL; "
        "or a limit (ROOMS_MAX, ROOM_STREAMS_MAX) is reached. The message says which.",
    ),
}


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


class SecretMissing(RoomError):
    status = 401
    field = "authorization"


class InvalidView(RoomError):
    """A view that is not a valid link: the usual 422 body, the field named inside the view."""

    status = 422
    field = "view"

    def __init__(self, items: list[dict]):
        super().__init__(items[0]["msg"])
        self.items = items


async def on_room_error(request: Request, error: RoomError) -> Response:
    """Every RoomError as JSON: {"detail", "message"} naming the field or limit (the 422 as usual)."""
    if isinstance(error, InvalidView):
        return JSONBytes(dumps(error_body(error.items)), status_code=422)
    headers = {}
    if error.retry_after is not None:
        headers["Retry-After"] = str(error.retry_after)
    if isinstance(error, SecretMissing):
        headers["WWW-Authenticate"] = 'Bearer realm="live class"'
    body = {"detail": error.message, "message": f"{error.field}: {error.message}"}
    return JSONBytes(dumps(body), status_code=error.status, headers=headers)


def view_item(field: str, message: str, kind: str = "value_error") -> dict:
    return {"loc": ["body", "view", field], "msg": message, "type": kind, "field": field}


# ---------------------------------------------------------------------------
# The view: the one call into the app's link validation
# ---------------------------------------------------------------------------


def rooms_of(request: Request) -> Rooms:
    """The app's room store (app.main makes it from the app's settings)."""
    return request.app.state.rooms


def settings_of(request: Request) -> Settings:
    return request.app.state.settings


DEFAULT_VIEW_MAX_BYTES = Settings.model_fields["room_view_max_bytes"].default


def canonical_view(query: str, limit: int = DEFAULT_VIEW_MAX_BYTES) -> str:
    """The canonical query string of the view a link's query string describes, at most `limit` bytes
    (ROOM_VIEW_MAX_BYTES); InvalidView if it is not one.

    Checked exactly as a share link (app/view/links.py); the answer is the link's
    canonical form (defaults left out, fixed order), so one view is always the same text.
    """
    size = len(query.encode("utf-8"))
    if size > limit:
        item = view_item("view", f"at most {limit} bytes (got {size})", "string_too_long")
        item["loc"] = ["body", "view"]
        raise InvalidView([item])
    try:
        state = state_from_query(query.removeprefix("?"))
    except ValidationError as error:
        raise InvalidView(
            [view_item(item["field"], item["msg"], item["type"]) for item in error_items(error.errors(), "body", "en")]
        ) from None
    return state.query_string()


def room_answer(room: Room) -> dict:
    return {**routes.room_links(room.code), "version": room.version, "view": room.view}


def client_of(request: Request) -> str:
    """The address limits count by (X-Forwarded-For from a proxy in FORWARDED_ALLOW_IPS; IPv6 by its /64)."""
    return client_key(request.client.host if request.client else "unknown")


@functools.cache
def misses_of(rooms: Rooms) -> Misses:
    """This worker's lookups in vain, counted with its room store (one per app)."""
    return Misses(rooms.limits.misses_per_client_minute)


def known_code(code: str) -> str:
    """The code as stored (upper case); a text that cannot be a code is a room that does not exist."""
    normal = normal_code(code)
    if normal is None:
        raise RoomNotFound(f"{code[:20]!r} is not a room code ({CODE_LENGTH} characters such as K7WQ3MXA)")
    return normal


@contextlib.contextmanager
def counting_misses(rooms: Rooms, client: str) -> Iterator[None]:
    """Around a lookup of a room by its code: a client that looked up too many codes in vain this minute is
    refused (429); a lookup that finds no room (RoomNotFound) counts as one more."""
    now = time.time()
    misses = misses_of(rooms)
    misses.check(client, now)
    try:
        yield
    except RoomNotFound:
        misses.record(client, now)
        raise


async def existing_room(rooms: Rooms, code: str, client: str) -> Room:
    """The room with this code, or RoomNotFound (404)."""
    with counting_misses(rooms, client):
        normal = known_code(code)
        room = await rooms.get(normal)
        if room is None:
            raise not_found(normal, rooms.limits)
        return room


async def find_room(rooms: Rooms, code: str, client: str) -> Room | None:
    """The room with this code, or None."""
    try:
        return await existing_room(rooms, code, client)
    except RoomNotFound:
        return None


def bearer_secret(authorization: str | None) -> str:
    scheme, _, secret = (authorization or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise SecretMissing(
            "send the room's secret as 'Authorization: Bearer <secret>' (only the teacher's page has it)"
        )
    return secret.strip()


# ---------------------------------------------------------------------------
# Rooms (JSON)
# ---------------------------------------------------------------------------


@router.post(
    routes.ROOMS,
    status_code=201,
    response_model=NewRoomAnswer,
    responses={
        **ROOM_ERRORS,
        422: problem("The view is not a valid link, or is over ROOM_VIEW_MAX_BYTES."),
        429: problem(
            "This address started ROOMS_PER_CLIENT_HOUR rooms within the last hour, or has ROOMS_PER_CLIENT open."
        ),
    },
    summary="Start a live class",
)
async def create_room(request: Request, body: RoomBody | None = None) -> Response:
    """A new room showing `view` (default: the default view). The secret is shown once: keep it in the page."""
    view = canonical_view(body.view if body is not None else "", settings_of(request).room_view_max_bytes)
    rooms = rooms_of(request)
    client = client_of(request)
    room, secret = await rooms.create(view, client)
    limits = rooms.limits
    answer = {**room_answer(room), "secret": secret, "expires_in": limits.ttl_seconds}
    answer["idle_seconds"] = limits.first_expiry
    return JSONBytes(dumps(answer), status_code=201, headers=NO_STORE)


@router.get(routes.ROOM, response_model=RoomAnswer, responses=ROOM_ERRORS, summary="A room's current view")
async def get_room(request: Request, code: str) -> Response:
    """The latest view and its version. Never cached: it changes whenever the teacher moves."""
    room = await existing_room(rooms_of(request), code, client_of(request))
    return JSONBytes(dumps(room_answer(room)), headers=NO_STORE)


@router.put(
    routes.ROOM,
    status_code=204,
    responses={
        401: problem("No 'Authorization: Bearer <secret>' header."),
        403: problem("The secret is not this room's."),
        422: problem("The view is not a valid link, or is over ROOM_VIEW_MAX_BYTES."),
        **ROOM_ERRORS,
    },
    summary="The teacher's new view",
)
async def update_room(
    request: Request, code: str, body: RoomBody, authorization: Annotated[str | None, Header()] = None
) -> Response:
    """Every follower's page moves to `view`. The same view again only keeps the room open."""
    secret = bearer_secret(authorization)
    view = canonical_view(body.view, settings_of(request).room_view_max_bytes)
    client = client_of(request)
    rooms = rooms_of(request)
    with counting_misses(rooms, client):
        await rooms.update(known_code(code), secret, view)
    return Response(status_code=204, headers=NO_STORE)


# ---------------------------------------------------------------------------
# The event stream
# ---------------------------------------------------------------------------


def event(*lines: str) -> bytes:
    """One Server-Sent Events block: its `field: value` lines, then the blank line that ends it."""
    return "".join(line + "\n" for line in lines).encode() + b"\n"


@functools.lru_cache(maxsize=256)
def view_event(room: Room) -> bytes:
    """One change as an event, encoded once however many students receive it (compact JSON: one line)."""
    return event(f"id: {room.version}", "data: " + dumps({"view": room.view, "version": room.version}).decode())


def status_event(status: Status) -> bytes:
    return event("event: status", "data: " + dumps({"status": status}).decode())


OPENING = event(f"retry: {RETRY_MS}")
KEEPALIVE = event(": keep-alive")


def last_event_id(header: str | None) -> int | None:
    return int(header) if header is not None and header.strip().isdigit() else None


async def room_stream(listener: Listener, sent_version: int | None) -> AsyncIterator[bytes]:
    """The events of one student: a status when it changes, the view when it is newer than theirs, a
    keep-alive when the keeper asks for one. Between them it waits; a room that ends meanwhile (its time is
    up, or its store says so) ends it through the hub (the store's keeper, app/live/rooms.py)."""
    sent_status: Status = "live"
    yield OPENING
    while not listener.closing:
        if listener.status != sent_status:
            sent_status = listener.status
            yield status_event(sent_status)
        if sent_status == "ended":
            return
        room = listener.room
        if room.version != sent_version:
            sent_version = room.version
            yield view_event(room)
        if listener.keepalive_due:
            listener.keepalive_due = False
            yield KEEPALIVE
        await listener.wait()


async def close_when_gone(receive: Receive, listener: Listener) -> None:
    """Wait for the client to leave (its connection closed), then end its stream. A client that sends a body
    past the limit instead (the guard raises) is ended the same way."""
    with contextlib.suppress(Exception):
        while (await receive())["type"] != "http.disconnect":
            pass
    listener.close()


class EventStream(Response):
    """One student's `text/event-stream`, written by its request's own task, plus one task that waits for the
    student to leave: no timer, nothing else per student, so that a class of thousands costs a worker little
    to hold and little for the garbage collector to walk (bench/README.md: a class of 5,000)."""

    media_type = "text/event-stream"

    def __init__(self, hub: Hub, listener: Listener, sent_version: int | None):
        self.hub, self.listener, self.sent_version = hub, listener, sent_version
        self.status_code = 200
        self.background = None
        self.init_headers(STREAM_HEADERS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        listener, leaving = self.listener, None
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            if scope["method"] != "HEAD":  # HEAD: the headers alone
                leaving = asyncio.get_running_loop().create_task(close_when_gone(receive, listener))
                async for chunk in room_stream(listener, self.sent_version):
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    listener.sent_at = time.monotonic()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            if leaving is not None:
                leaving.cancel()
            self.hub.close(listener)


def server_is_stopping() -> bool:
    """Whether the uvicorn server of this worker was asked to stop (SIGTERM, SIGINT). uvicorn tells the app
    nothing before it waits for open requests to finish, and a stream never finishes by itself; its signal
    handler is its Server's handle_exit, which sets the Server's should_exit."""
    handler = signal.getsignal(signal.SIGTERM)
    return bool(getattr(getattr(handler, "__self__", None), "should_exit", False))


async def end_streams_when_the_server_stops(hub: Hub) -> None:
    """A worker's task from start-up: once uvicorn is asked to stop, every open stream ends (EventSource then
    reconnects, to another worker or machine), so the graceful shutdown does not wait out its 20 s on them."""
    while True:
        if server_is_stopping():
            hub.close_all()
        await asyncio.sleep(STOP_CHECK_SECONDS)


@router.get(
    routes.ROOM_EVENTS,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "Server-Sent Events (see the summary)."},
        **ROOM_ERRORS,
    },
    summary="Follow a room (Server-Sent Events)",
)
async def room_events(
    request: Request, code: str, last_event_id_header: Annotated[str | None, Header(alias="Last-Event-ID")] = None
) -> Response:
    """`text/event-stream`. At once: `retry`, then the current view unless Last-Event-ID is its version.
    Each change: `id: <version>` and `data: {"view": ..., "version": ...}`. `event: status` with
    `data: {"status": "live" | "reconnecting" | "ended"}` when the room's store is lost, back, or the room
    ended. `: keep-alive` comments every LIVE_KEEPALIVE_SECONDS. The stream ends when the server shuts
    down; EventSource then reconnects (to any worker or machine) and gets the latest view.
    """
    rooms = rooms_of(request)
    client = client_of(request)
    room = await existing_room(rooms, code, client)
    await rooms.start()
    return EventStream(rooms.hub, rooms.hub.open(room, client), last_event_id(last_event_id_header))


# ---------------------------------------------------------------------------
# QR code and follow page
# ---------------------------------------------------------------------------


def follow_url(request: Request, code: str, lang: str | None = None) -> str:
    """The absolute link students open, in the teacher's language when `lang` is given (a room's views carry
    none; each student may then switch). Its origin is PUBLIC_ORIGIN, else the request's (scheme and Host as
    the browser sent them, through a proxy too)."""
    origin = settings_of(request).public_origin or str(request.base_url).rstrip("/")
    link = origin + routes.LIVE.format(code=code)
    return f"{link}?lang={lang}" if lang in STRINGS else link


def qr_svg(text: str) -> bytes:
    out = io.BytesIO()
    segno.make_qr(text, error="m").save(out, kind="svg", scale=8, border=2, xmldecl=False, title="QR code: " + text)
    return out.getvalue()


@router.get(
    routes.ROOM_QR,
    responses={200: {"content": {"image/svg+xml": {}}, "description": "An SVG QR code."}, **ROOM_ERRORS},
    summary="QR code of the follow link",
)
async def room_qr(request: Request, code: str, lang: str | None = None) -> Response:
    """An SVG QR code of the absolute follow link (with `lang`, in that language). With PUBLIC_ORIGIN the link
    never changes and the answer is cacheable by anyone; without it the link comes from the Host header, so only
    the browser may keep it (a shared cache would hand one Host's link to every other)."""
    room = await existing_room(rooms_of(request), code, client_of(request))
    response = cached(qr_svg(follow_url(request, room.code, lang)), "image/svg+xml", max_age=86400)
    if settings_of(request).public_origin is None:
        response.headers["Cache-Control"] = "private, max-age=86400"
    return response


@router.get(routes.LIVE, response_class=HTMLResponse, include_in_schema=False)
async def follow_page(request: Request, code: str) -> Response:
    """The page in follow mode, showing the room's current view; the page's script then follows the stream.

    The room store out of reach: the default view in follow mode (the script says 'reconnecting' and
    follows once it is back). An unknown or ended room: a page that says so (404), in English and Chinese.
    """
    normal = normal_code(code)
    try:
        room = await find_room(rooms_of(request), code, client_of(request))
    except LiveUnavailable:
        room = Room(code=normal, version=0, view="", updated=0.0) if normal else None
    if room is None:
        ttl = rooms_of(request).limits.ttl_seconds
        strings = {"code": code[:20], "ttl_en": duration(ttl), "ttl_zh": duration(ttl, "zh")}
        html = page_template(request, "live_missing.html", **strings)
        return HTMLResponse(html, status_code=404, headers=NO_STORE)
    response = await run_in_threadpool(render_page, request, query=room.view, follow=routes.room_links(room.code))
    response.headers["Cache-Control"] = "no-cache"  # the room moves on: revalidate (ETag) every time
    return response
