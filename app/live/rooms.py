"""Rooms of a live class, kept in this process (MemoryRooms), and the Hub that feeds open streams.

A room is a short code to type from a projector, a secret only the teacher's page knows (the
store keeps its SHA-256, compared in constant time), and the latest view: the canonical query
string of a link, with a version number that grows by one with each change.

Each worker has one Hub. Every open student stream is a Listener in it that holds only the
newest view it has been handed, so a slow student skips straight to the latest view instead of
working through a queue of old ones, and memory per stream stays constant. The Hub bounds the
open streams of the worker, of one client address and of one room, apart from (and well below)
the connections the server takes, so requests keep being answered with every stream slot taken.

Abuse is bounded per client address (an IPv6 address counts by its /64, what one subscriber
gets): rooms started per hour, rooms open at once, and room codes looked up in vain per minute.
A room nobody follows ends ROOM_IDLE_SECONDS after the teacher's last change; the workers that
stream a room keep it open (`touch`), up to ROOM_TTL_SECONDS after the last change.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import ipaddress
import logging
import secrets
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, Protocol

# Crockford's base 32 without 0 and 1: no 0/O, 1/I/L or U/V to mix up when reading a projector.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 8  # 30**8, about 6.6e11 codes: guessing is pointless (docs/deploy.md works out the time to a hit)
SECRET_BYTES = 24  # 192 random bits
RATE_WINDOW_SECONDS = 3600  # rooms per client address are counted over the last hour
log = logging.getLogger("attention_lens.live")
EXPIRY_CHECK_SECONDS = 1.0  # how often the keeper looks for followed rooms past their time
MISS_WINDOW_SECONDS = 60  # room codes looked up in vain are counted over the last minute

Status = Literal["live", "reconnecting", "ended"]


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str | None:
    """A code as a person typed it (any case, spaces or dashes), or None if it cannot be one."""
    code = text.strip().upper().replace("-", "").replace(" ", "")
    if len(code) != CODE_LENGTH or any(character not in CODE_ALPHABET for character in code):
        return None
    return code


def client_key(host: str) -> str:
    """The address limits count by: an IPv4 address itself, an IPv6 address by its /64 (one subscriber's)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def new_secret() -> str:
    return secrets.token_urlsafe(SECRET_BYTES)


def secret_hash(secret: str) -> str:
    """What a store keeps instead of the secret. One SHA-256 suffices: the secret is 192 random bits."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def secret_matches(secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(secret_hash(secret), stored_hash)


@dataclass(frozen=True)
class Room:
    code: str
    version: int  # 1 when created, +1 with each change of view
    view: str  # the canonical query string of the view (no leading '?')
    updated: float  # time.time() of the last update by the teacher


@dataclass(frozen=True)
class Limits:
    ttl_seconds: int  # a room ends this long after its last update
    per_client_hour: int  # rooms one client address may start within RATE_WINDOW_SECONDS
    rooms_max: int  # open rooms in total
    streams_max: int  # open streams of one room in one worker
    idle_seconds: int = 1200  # a room nobody follows ends this long after its last update
    per_client_open: int = 40  # rooms one client address has open at once
    worker_streams_max: int = 5000  # open streams of one worker, all rooms
    client_streams_max: int = 2000  # open streams of one client address in one worker
    misses_per_client_minute: int = 60  # room codes one client address may look up in vain per minute
    keepalive_seconds: float = 15  # a stream that sent nothing this long gets a keep-alive comment

    @property
    def first_expiry(self) -> int:
        """Seconds a room stays open after a change when nobody follows it."""
        return min(self.idle_seconds, self.ttl_seconds)


# ---------------------------------------------------------------------------
# Errors: each becomes one HTTP status with a message naming the limit (app/web/live.py)
# ---------------------------------------------------------------------------


class RoomError(Exception):
    status = 400
    field = "room"

    def __init__(self, message: str, *, retry_after: int | None = None):
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class RoomNotFound(RoomError):
    status = 404


class WrongSecret(RoomError):
    status = 403
    field = "authorization"


class TooManyRooms(RoomError):
    status = 429
    field = "rooms_per_client_hour"


class RoomsFull(RoomError):
    status = 503
    field = "rooms_max"


class RoomStreamsFull(RoomError):
    status = 503
    field = "room_streams_max"


class WorkerStreamsFull(RoomError):
    status = 503
    field = "live_streams_max"


class ClientStreamsFull(RoomError):
    status = 429
    field = "live_streams_per_client"


class TooManyOpenRooms(RoomError):
    status = 429
    field = "rooms_per_client"


class TooManyMisses(RoomError):
    status = 429
    field = "room_misses_per_client_minute"


class LiveUnavailable(RoomError):
    """The rooms cannot be reached (Redis is down) or cannot work here (several workers, no Redis)."""

    status = 503
    field = "live"


def duration(seconds: int, lang: str = "en") -> str:
    """12 * 3600 -> '12 hours' ('12 小时'), 90 -> '90 seconds' ('90 秒')."""
    for size, en, zh in ((3600, "hour", "小时"), (60, "minute", "分钟"), (1, "second", "秒")):
        if seconds % size == 0:
            count = seconds // size
            return f"{count} {zh}" if lang == "zh" else f"{count} {en}{'s' if count != 1 else ''}"
    raise ValueError(seconds)  # every whole number of seconds is caught above


def not_found(code: str, limits: Limits) -> RoomNotFound:
    return RoomNotFound(
        f"no live class with the code {code}: it may have ended (a room ends {duration(limits.first_expiry)} "
        f"after the teacher's last change when nobody follows it, {duration(limits.ttl_seconds)} after it at most)"
    )


def too_many(limits: Limits, oldest: float, now: float) -> TooManyRooms:
    wait = max(1, int(oldest + RATE_WINDOW_SECONDS - now) + 1)
    return TooManyRooms(
        f"at most {limits.per_client_hour} new rooms per address per hour; try again in {wait} s", retry_after=wait
    )


def too_many_open(limits: Limits) -> TooManyOpenRooms:
    return TooManyOpenRooms(
        f"at most {limits.per_client_open} open rooms per address; a room nobody follows ends "
        f"{duration(limits.first_expiry)} after its last change",
        retry_after=60,
    )


def rooms_full(limits: Limits) -> RoomsFull:
    return RoomsFull(f"at most {limits.rooms_max} open rooms on this server; try again later", retry_after=60)


# ---------------------------------------------------------------------------
# Open streams of one worker
# ---------------------------------------------------------------------------


class Listener:
    """One open student stream: the newest room state it was handed, its status and a wake-up."""

    def __init__(self, room: Room, status: Status, client: str = ""):
        self.code = room.code
        self.client = client  # the address it counts against (client_key)
        self.room = room
        self.status: Status = status
        self.closing = False  # the student left or the server is shutting down: end the stream without 'ended'
        self.keepalive_due = False  # it sent nothing for LIVE_KEEPALIVE_SECONDS: a comment keeps proxies patient
        self.sent_at = time.monotonic()  # when the stream last sent something (the stream sets it)
        self.changed = asyncio.Event()

    def offer(self, room: Room) -> None:
        """Keep `room` if it is newer; wake the stream if its view changed."""
        if (room.version, room.updated) > (self.room.version, self.room.updated):
            wake = room.version != self.room.version
            self.room = room
            if wake:
                self.changed.set()

    def set_status(self, status: Status) -> None:
        if status != self.status and self.status != "ended":
            self.status = status
            self.changed.set()

    def close(self) -> None:
        self.closing = True
        self.changed.set()

    def keep_alive(self) -> None:
        self.keepalive_due = True
        self.changed.set()

    async def wait(self) -> None:
        """Until something changed. No timer of its own: the store's keeper ends the streams of a room past its
        time and asks for keep-alives (keep_followed_rooms); one timer per student, re-armed at every change,
        cost a third of what a change costs to send."""
        await self.changed.wait()
        self.changed.clear()


class Hub:
    """The open streams of this worker, by room code, bounded per room, per client address and in all."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.streams_max = limits.streams_max
        self.listeners: dict[str, set[Listener]] = {}
        self.by_client: dict[str, int] = {}  # client_key -> open streams
        self.total = 0
        self.status: Status = "live"  # 'reconnecting' while the shared store is out of reach

    def open(self, room: Room, client: str = "") -> Listener:
        limits = self.limits
        streams = self.listeners.get(room.code, set())
        if self.total >= limits.worker_streams_max:
            raise WorkerStreamsFull(
                f"at most {limits.worker_streams_max} students follow live classes on each server worker; "
                "try again later",
                retry_after=30,
            )
        if self.by_client.get(client, 0) >= limits.client_streams_max:
            raise ClientStreamsFull(
                f"at most {limits.client_streams_max} students from one address follow live classes on each "
                "server worker; try again later",
                retry_after=30,
            )
        if len(streams) >= self.streams_max:
            raise RoomStreamsFull(
                f"at most {self.streams_max} students follow one room on each server worker; try again later",
                retry_after=30,
            )
        listener = Listener(room, self.status, client)
        self.listeners.setdefault(room.code, streams).add(listener)
        self.by_client[client] = self.by_client.get(client, 0) + 1
        self.total += 1
        return listener

    def close(self, listener: Listener) -> None:
        """Forget a stream (called twice for most streams: once is counted)."""
        streams = self.listeners.get(listener.code)
        if streams is None or listener not in streams:
            return
        streams.discard(listener)
        if not streams:
            del self.listeners[listener.code]
        self.total -= 1
        left = self.by_client[listener.client] - 1
        if left:
            self.by_client[listener.client] = left
        else:
            del self.by_client[listener.client]

    def every_listener(self) -> Iterator[Listener]:
        """Every open stream of this worker, all rooms."""
        for streams in self.listeners.values():
            yield from streams

    def codes(self) -> list[str]:
        return list(self.listeners)

    def count(self, code: str) -> int:
        return len(self.listeners.get(code, ()))

    def deliver(self, room: Room) -> None:
        for listener in self.listeners.get(room.code, ()):
            listener.offer(room)

    def past_their_time(self, now: float) -> list[str]:
        """Codes of the followed rooms whose newest state (the newest any of its streams holds) is older than
        ROOM_TTL_SECONDS: the store may have ended them without a word (Redis expires keys by itself)."""
        ttl = self.limits.ttl_seconds
        return [code for code, streams in self.listeners.items() if max(s.room.updated for s in streams) + ttl <= now]

    def end(self, code: str) -> None:
        for listener in self.listeners.get(code, ()):
            listener.set_status("ended")

    def keep_alive(self, now: float) -> None:
        """Streams that sent nothing for LIVE_KEEPALIVE_SECONDS (by time.monotonic) send a keep-alive comment:
        each in its own time, not all at once."""
        quiet_since = now - self.limits.keepalive_seconds
        for listener in self.every_listener():
            if listener.sent_at <= quiet_since and not listener.keepalive_due:
                listener.keep_alive()

    def close_all(self) -> None:
        """The server is stopping: every stream ends (without 'ended': the class goes on elsewhere)."""
        for listener in self.every_listener():
            listener.close()

    def set_status(self, status: Status) -> None:
        self.status = status
        for listener in self.every_listener():
            listener.set_status(status)


class Misses:
    """Room codes each client address looked up in vain within the last MISS_WINDOW_SECONDS, in this worker.

    Past the budget every lookup by that address is refused (429) until the window moves on, so a
    guesser learns nothing more, while a class behind one address can still mistype a code often.
    """

    def __init__(self, per_minute: int):
        self.per_minute = per_minute
        self.times: dict[str, deque[float]] = {}

    def recent(self, client: str, now: float) -> deque[float]:
        times = self.times.get(client)
        if times is None:
            return deque()
        while times and times[0] <= now - MISS_WINDOW_SECONDS:
            times.popleft()
        if not times:
            del self.times[client]
        return times

    def check(self, client: str, now: float) -> None:
        times = self.recent(client, now)
        if len(times) >= self.per_minute:
            wait = max(1, int(times[0] + MISS_WINDOW_SECONDS - now) + 1)
            raise TooManyMisses(
                f"at most {self.per_minute} room codes that do not exist per address per minute; try again in {wait} s",
                retry_after=wait,
            )

    def record(self, client: str, now: float) -> None:
        if len(self.times) > 10_000:  # bounded memory: forget the addresses whose window has passed
            for stale in [key for key, times in self.times.items() if times[-1] <= now - MISS_WINDOW_SECONDS]:
                del self.times[stale]
        self.times.setdefault(client, deque()).append(now)


# ---------------------------------------------------------------------------
# Stores
# ---------------------------------------------------------------------------


class Rooms(Protocol):
    """What app/web/live.py needs from a store (MemoryRooms, RedisRooms, Unavailable)."""

    hub: Hub
    limits: Limits

    async def create(self, view: str, client: str) -> tuple[Room, str]: ...
    async def get(self, code: str) -> Room | None: ...
    async def update(self, code: str, secret: str, view: str) -> Room: ...
    async def touch(self, codes: list[str]) -> None: ...
    async def start(self) -> None: ...
    async def stop(self) -> None: ...


class MemoryRooms:
    """Rooms in this process: right for one worker (scripts/run, WORKERS=1)."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.hub = Hub(limits)
        self.rooms: dict[str, Room] = {}
        self.secret_hashes: dict[str, str] = {}
        self.open_until: dict[str, float] = {}  # code -> when it ends unless changed or followed
        self.owners: dict[str, str] = {}  # code -> the client address that started it
        self.created: dict[str, deque[float]] = {}  # client address -> times it started a room, last hour
        self.keeper: asyncio.Task | None = None

    async def start(self) -> None:
        if self.keeper is None:
            self.keeper = asyncio.get_running_loop().create_task(keep_followed_rooms(self), name="lens-room-keeper")

    async def stop(self) -> None:
        if self.keeper is not None:
            self.keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.keeper
            self.keeper = None

    def expired(self, room: Room, now: float) -> bool:
        return now >= min(room.updated + self.limits.ttl_seconds, self.open_until.get(room.code, 0.0))

    def forget_expired(self, now: float) -> None:
        for code in [code for code, room in self.rooms.items() if self.expired(room, now)]:
            del self.rooms[code]
            del self.secret_hashes[code]
            self.open_until.pop(code, None)
            self.owners.pop(code, None)
            self.hub.end(code)
        stale = now - RATE_WINDOW_SECONDS
        for client in [client for client, times in self.created.items() if not times or times[-1] <= stale]:
            del self.created[client]

    async def create(self, view: str, client: str) -> tuple[Room, str]:
        now = time.time()
        self.forget_expired(now)
        times = self.created.get(client, deque())
        while times and times[0] <= now - RATE_WINDOW_SECONDS:
            times.popleft()
        if len(times) >= self.limits.per_client_hour:
            raise too_many(self.limits, times[0], now)
        if sum(owner == client for owner in self.owners.values()) >= self.limits.per_client_open:
            raise too_many_open(self.limits)
        if len(self.rooms) >= self.limits.rooms_max:
            raise rooms_full(self.limits)
        code = new_code()
        while code in self.rooms:
            code = new_code()
        secret = new_secret()
        room = Room(code=code, version=1, view=view, updated=now)
        self.rooms[code] = room
        self.secret_hashes[code] = secret_hash(secret)
        self.open_until[code] = now + self.limits.first_expiry
        self.owners[code] = client
        self.created[client] = times
        times.append(now)
        return room, secret

    async def touch(self, codes: list[str]) -> None:
        """These rooms have followers: each stays open another ROOM_IDLE_SECONDS (never past its TTL)."""
        now = time.time()
        for code in codes:
            if code in self.rooms:
                self.open_until[code] = max(self.open_until.get(code, 0.0), now + self.limits.first_expiry)

    async def get(self, code: str) -> Room | None:
        room = self.rooms.get(code)
        if room is not None and self.expired(room, time.time()):
            self.forget_expired(time.time())
            return None
        return room

    async def update(self, code: str, secret: str, view: str) -> Room:
        room = await self.get(code)
        if room is None:
            raise not_found(code, self.limits)
        if not secret_matches(secret, self.secret_hashes[code]):
            raise WrongSecret("the secret does not match this room's (only the teacher's page has it)")
        version = room.version + (view != room.view)
        room = Room(code=code, version=version, view=view, updated=time.time())
        self.rooms[code] = room
        self.open_until[code] = room.updated + self.limits.first_expiry
        self.hub.deliver(room)
        return room


class Unavailable:
    """Rooms that cannot work in this configuration: every call answers 503 with the reason."""

    def __init__(self, limits: Limits, reason: str):
        self.limits = limits
        self.hub = Hub(limits)
        self.reason = reason

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    async def create(self, view: str, client: str) -> tuple[Room, str]:
        raise LiveUnavailable(self.reason)

    async def get(self, code: str) -> Room | None:
        raise LiveUnavailable(self.reason)

    async def update(self, code: str, secret: str, view: str) -> Room:
        raise LiveUnavailable(self.reason)

    async def touch(self, codes: list[str]) -> None:
        pass


async def refresh(rooms: Rooms, codes: list[str]) -> None:
    """These followed rooms as the store has them now: their streams get the newest view, or end."""
    for code in codes:
        room = await rooms.get(code)
        if room is None:
            rooms.hub.end(code)
        else:
            rooms.hub.deliver(room)


async def keep_followed_rooms(rooms: Rooms) -> None:
    """A store's task for the rooms this worker streams. Every second (or every LIVE_KEEPALIVE_SECONDS, if
    shorter): streams that were quiet that long send a keep-alive, and a followed room past its time is looked
    up, and its streams end if the store no longer has it. Every quarter of ROOM_IDLE_SECONDS: the followed
    rooms stay open (touch)."""
    touch_every = max(1.0, rooms.limits.first_expiry / 4)
    touched = time.monotonic()
    while True:
        await asyncio.sleep(min(EXPIRY_CHECK_SECONDS, rooms.limits.keepalive_seconds))
        try:
            touched = await keeper_round(rooms, touched, touch_every)
        except Exception:  # a round that failed must not end the keeper: every followed room would then end
            log.exception("the live rooms' keeper: a round failed; the next one follows")


async def keeper_round(rooms: Rooms, touched: float, touch_every: float) -> float:
    """One round of keep_followed_rooms; returns when the followed rooms were last touched."""
    rooms.hub.keep_alive(time.monotonic())
    with contextlib.suppress(LiveUnavailable):  # the subscriber reports an outage and catches up after it
        await refresh(rooms, rooms.hub.past_their_time(time.time()))
    codes = rooms.hub.codes()
    if codes and time.monotonic() - touched >= touch_every:
        touched = time.monotonic()
        try:
            await rooms.touch(codes)
        except RoomError as error:  # tried again in touch_every: a room ends only if every try fails for its idle time
            log.warning("the live rooms' keeper could not keep %d followed rooms open: %s", len(codes), error)
    return touched
