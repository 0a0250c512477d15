"""Rooms of a live class, kept in this process (MemoryRooms), and the Hub that feeds open streams.

A room is a short code to type from a projector, a secret only the teacher's page knows (the
store keeps its SHA-256, compared in constant time), and the latest view: the canonical query
string of a link, with a version number that grows by one with each change.

Each worker has one Hub. Every open student stream is a Listener in it that holds only the
newest view it has been handed, so a slow student skips straight to the latest view instead of
working through a queue of old ones, and memory per stream stays constant.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from collections import deque
from dataclasses import dataclass
from typing import Literal, Protocol

# Crockford's base 32 without 0 and 1: no 0/O, 1/I/L or U/V to mix up when reading a projector.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 6  # 30**6, about 7e8 codes
SECRET_BYTES = 24  # 192 random bits
RATE_WINDOW_SECONDS = 3600  # rooms per client address are counted over the last hour

Status = Literal["live", "reconnecting", "ended"]


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str | None:
    """A code as a person typed it (any case, spaces or dashes), or None if it cannot be one."""
    code = text.strip().upper().replace("-", "").replace(" ", "")
    if len(code) != CODE_LENGTH or any(character not in CODE_ALPHABET for character in code):
        return None
    return code


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
        f"no live class with the code {code}: it may have ended "
        f"(a room ends {duration(limits.ttl_seconds)} after the teacher's last change)"
    )


def too_many(limits: Limits, oldest: float, now: float) -> TooManyRooms:
    wait = max(1, int(oldest + RATE_WINDOW_SECONDS - now) + 1)
    return TooManyRooms(
        f"at most {limits.per_client_hour} new rooms per address per hour; try again in {wait} s", retry_after=wait
    )


def rooms_full(limits: Limits) -> RoomsFull:
    return RoomsFull(f"at most {limits.rooms_max} open rooms on this server; try again later", retry_after=60)


# ---------------------------------------------------------------------------
# Open streams of one worker
# ---------------------------------------------------------------------------


class Listener:
    """One open student stream: the newest room state it was handed, its status and a wake-up."""

    def __init__(self, room: Room, status: Status):
        self.code = room.code
        self.room = room
        self.status: Status = status
        self.closing = False  # the server is shutting down: end the stream without 'ended'
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

    async def wait(self, timeout: float) -> bool:
        """Until something changed (True) or `timeout` seconds passed (False)."""
        try:
            async with asyncio.timeout(timeout):
                await self.changed.wait()
        except TimeoutError:
            return False
        self.changed.clear()
        return True


class Hub:
    """The open streams of this worker, by room code."""

    def __init__(self, streams_max: int):
        self.streams_max = streams_max
        self.listeners: dict[str, set[Listener]] = {}
        self.status: Status = "live"  # 'reconnecting' while the shared store is out of reach

    def open(self, room: Room) -> Listener:
        streams = self.listeners.setdefault(room.code, set())
        if len(streams) >= self.streams_max:
            raise RoomStreamsFull(
                f"at most {self.streams_max} students follow one room on each server worker; try again later",
                retry_after=30,
            )
        listener = Listener(room, self.status)
        streams.add(listener)
        return listener

    def close(self, listener: Listener) -> None:
        streams = self.listeners.get(listener.code)
        if streams is not None:
            streams.discard(listener)
            if not streams:
                del self.listeners[listener.code]

    def codes(self) -> list[str]:
        return list(self.listeners)

    def count(self, code: str) -> int:
        return len(self.listeners.get(code, ()))

    def deliver(self, room: Room) -> None:
        for listener in self.listeners.get(room.code, ()):
            listener.offer(room)

    def end(self, code: str) -> None:
        for listener in self.listeners.get(code, ()):
            listener.set_status("ended")

    def set_status(self, status: Status) -> None:
        self.status = status
        for streams in self.listeners.values():
            for listener in streams:
                listener.set_status(status)


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
    async def start(self) -> None: ...
    async def stop(self) -> None: ...


class MemoryRooms:
    """Rooms in this process: right for one worker (scripts/run, WORKERS=1)."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.hub = Hub(limits.streams_max)
        self.rooms: dict[str, Room] = {}
        self.secret_hashes: dict[str, str] = {}
        self.created: dict[str, deque[float]] = {}  # client address -> times it started a room, last hour

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def expired(self, room: Room, now: float) -> bool:
        return now >= room.updated + self.limits.ttl_seconds

    def forget_expired(self, now: float) -> None:
        for code in [code for code, room in self.rooms.items() if self.expired(room, now)]:
            del self.rooms[code]
            del self.secret_hashes[code]
            self.hub.end(code)
        for client in [client for client, times in self.created.items() if times[-1] <= now - RATE_WINDOW_SECONDS]:
            del self.created[client]

    async def create(self, view: str, client: str) -> tuple[Room, str]:
        now = time.time()
        self.forget_expired(now)
        times = self.created.setdefault(client, deque())
        while times and times[0] <= now - RATE_WINDOW_SECONDS:
            times.popleft()
        if len(times) >= self.limits.per_client_hour:
            raise too_many(self.limits, times[0], now)
        if len(self.rooms) >= self.limits.rooms_max:
            raise rooms_full(self.limits)
        code = new_code()
        while code in self.rooms:
            code = new_code()
        secret = new_secret()
        room = Room(code=code, version=1, view=view, updated=now)
        self.rooms[code] = room
        self.secret_hashes[code] = secret_hash(secret)
        times.append(now)
        return room, secret

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
        self.hub.deliver(room)
        return room


class Unavailable:
    """Rooms that cannot work in this configuration: every call answers 503 with the reason."""

    def __init__(self, limits: Limits, reason: str):
        self.limits = limits
        self.hub = Hub(limits.streams_max)
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
