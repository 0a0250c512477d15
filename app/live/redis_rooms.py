"""Rooms in Redis: any number of workers and machines serve one room.

Keys (every name starts with `lens:`):

    lens:room:<code>       hash {view, version, secret (SHA-256), updated}; expires ROOM_IDLE_SECONDS after
                           the last update, or later while followed (TOUCH), never past ROOM_TTL_SECONDS
                           after the last update: a forgotten room disappears by itself
    lens:rooms             sorted set code -> expiry time: counts the open rooms (ROOMS_MAX)
    lens:created:<client>  sorted set of the times a client address started a room, last hour
    lens:owned:<client>    set of the codes a client address started (ROOMS_PER_CLIENT open at once)
    lens:room-changes      the pub/sub channel: one JSON message {code, version, view, updated} per change

Creating and updating a room are Lua scripts, so each is one atomic step however many workers
race. Each worker keeps ONE subscription to `lens:room-changes` (Subscriber) and hands each
change to its own Hub, which wakes the streams of that room. If Redis goes away the Hub says
'reconnecting' to every stream; the subscriber reconnects with backoff, then re-reads the latest
view of every room it has streams for and says 'live' again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Iterator

import orjson
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.exceptions import RedisError

from app.live.rooms import (
    RATE_WINDOW_SECONDS,
    Hub,
    Limits,
    LiveUnavailable,
    Room,
    WrongSecret,
    keep_followed_rooms,
    new_code,
    new_secret,
    not_found,
    refresh,
    rooms_full,
    secret_hash,
    secret_matches,
    too_many,
    too_many_open,
)

log = logging.getLogger("attention_lens.live")

CHANNEL = "lens:room-changes"
ROOMS_KEY = "lens:rooms"
UNREACHABLE = "live classes are unavailable: the room store (Redis) cannot be reached; the page keeps working"
BACKOFF_FIRST, BACKOFF_MAX = 0.1, 5.0  # seconds between the subscriber's attempts to reconnect

CREATE = """
local now, ttl, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - window)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then
  return {'rate', redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2]}
end
local open = 0
for _, owned in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  if redis.call('EXISTS', 'lens:room:' .. owned) == 1 then open = open + 1 else redis.call('SREM', KEYS[4], owned) end
end
if open >= tonumber(ARGV[10]) then return {'owned', ''} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return {'full', ''} end
if redis.call('EXISTS', KEYS[1]) == 1 then return {'taken', ''} end
redis.call('HSET', KEYS[1], 'view', ARGV[6], 'version', 1, 'secret', ARGV[7], 'updated', ARGV[1])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], now + ttl, ARGV[8])
redis.call('ZADD', KEYS[3], now, ARGV[9])
redis.call('EXPIRE', KEYS[3], window)
redis.call('SADD', KEYS[4], ARGV[8])
redis.call('EXPIRE', KEYS[4], tonumber(ARGV[11]))
return {'ok', ''}
"""

UPDATE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
local version = tonumber(redis.call('HGET', KEYS[1], 'version'))
if redis.call('HGET', KEYS[1], 'view') ~= ARGV[1] then
  version = redis.call('HINCRBY', KEYS[1], 'version', 1)
  redis.call('HSET', KEYS[1], 'view', ARGV[1])
  redis.call('PUBLISH', ARGV[5], cjson.encode({code = ARGV[4], version = version, view = ARGV[1], updated = now}))
end
redis.call('HSET', KEYS[1], 'updated', ARGV[2])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], now + ttl, ARGV[4])
return version
"""

TOUCH = """
local now, ttl, idle = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local touched = 0
for i, key in ipairs(KEYS) do
  local updated = tonumber(redis.call('HGET', key, 'updated'))
  if updated and updated + ttl > now then
    local left = math.min(idle, math.ceil(updated + ttl - now))
    if redis.call('TTL', key) < left then
      redis.call('EXPIRE', key, left)
      redis.call('ZADD', 'lens:rooms', now + left, string.sub(key, 11))
    end
    touched = touched + 1
  end
end
return touched
"""


def room_key(code: str) -> str:
    return f"lens:room:{code}"


def created_key(client: str) -> str:
    return f"lens:created:{client}"


def owned_key(client: str) -> str:
    return f"lens:owned:{client}"


@contextlib.contextmanager
def reachable() -> Iterator[None]:
    """Redis errors (stopped, unreachable, loading) become a 503 that says so."""
    try:
        yield
    except (RedisError, OSError) as error:
        raise LiveUnavailable(UNREACHABLE) from error


class RedisRooms:
    """The room store shared through Redis (REDIS_URL)."""

    def __init__(self, url: str, limits: Limits):
        self.limits = limits
        self.hub = Hub(limits)
        # Requests: fail fast (a 503) when Redis is down; one quick retry covers a pooled connection
        # that a restarted Redis closed.
        self.redis = Redis.from_url(
            url,
            decode_responses=True,
            socket_connect_timeout=1,
            socket_timeout=2,
            retry=Retry(ExponentialBackoff(cap=0.1, base=0.01), 1),
        )
        self.create_script = self.redis.register_script(CREATE)
        self.update_script = self.redis.register_script(UPDATE)
        self.touch_script = self.redis.register_script(TOUCH)
        self.subscriber = Subscriber(url, self)
        self.keeper: asyncio.Task | None = None

    async def start(self) -> None:
        self.subscriber.start()
        if self.keeper is None:
            self.keeper = asyncio.get_running_loop().create_task(keep_followed_rooms(self), name="lens-room-keeper")

    async def stop(self) -> None:
        if self.keeper is not None:
            self.keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.keeper
            self.keeper = None
        await self.subscriber.stop()
        await self.redis.aclose()

    async def touch(self, codes: list[str]) -> None:
        """These rooms have followers here: each stays open another ROOM_IDLE_SECONDS (never past its TTL)."""
        with reachable():
            for start in range(0, len(codes), 500):
                await self.touch_script(
                    keys=[room_key(code) for code in codes[start : start + 500]],
                    args=[repr(time.time()), self.limits.ttl_seconds, self.limits.first_expiry],
                )

    async def create(self, view: str, client: str) -> tuple[Room, str]:
        secret = new_secret()
        for _ in range(10):  # a code already taken is drawn again (1 chance in millions)
            now = time.time()
            code = new_code()
            with reachable():
                outcome, detail = await self.create_script(
                    keys=[room_key(code), ROOMS_KEY, created_key(client), owned_key(client)],
                    args=[
                        repr(now),
                        self.limits.first_expiry,
                        RATE_WINDOW_SECONDS,
                        self.limits.per_client_hour,
                        self.limits.rooms_max,
                        view,
                        secret_hash(secret),
                        code,
                        f"{now!r}:{secrets.token_hex(4)}",  # one member per creation, even at the same instant
                        self.limits.per_client_open,
                        self.limits.ttl_seconds,
                    ],
                )
            if outcome == "ok":
                return Room(code=code, version=1, view=view, updated=now), secret
            if outcome == "rate":
                raise too_many(self.limits, float(detail), now)
            if outcome == "owned":
                raise too_many_open(self.limits)
            if outcome == "full":
                raise rooms_full(self.limits)
        raise LiveUnavailable("could not draw a free room code; try again")

    async def get(self, code: str) -> Room | None:
        with reachable():
            view, version, updated = await self.redis.hmget(room_key(code), ["view", "version", "updated"])
        if view is None or version is None or updated is None:
            return None
        return Room(code=code, version=int(version), view=view, updated=float(updated))

    async def update(self, code: str, secret: str, view: str) -> Room:
        with reachable():
            stored = await self.redis.hget(room_key(code), "secret")
        if stored is None:
            raise not_found(code, self.limits)
        if not secret_matches(secret, stored):
            raise WrongSecret("the secret does not match this room's (only the teacher's page has it)")
        now = time.time()
        with reachable():
            version = await self.update_script(
                keys=[room_key(code), ROOMS_KEY], args=[view, repr(now), self.limits.first_expiry, code, CHANNEL]
            )
        if version == -1:
            raise not_found(code, self.limits)
        return Room(code=code, version=int(version), view=view, updated=now)


class Subscriber:
    """This worker's one subscription to the change channel, fanned out to its Hub."""

    def __init__(self, url: str, rooms: RedisRooms):
        self.rooms = rooms
        # Its own connection, no silent retries: a lost connection must reach `run` at once, which
        # marks the streams 'reconnecting' and re-reads the rooms after reconnecting.
        self.redis = Redis.from_url(
            url, socket_connect_timeout=1, health_check_interval=10, retry=Retry(NoBackoff(), 0)
        )
        self.task: asyncio.Task | None = None

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self.run(), name="lens-room-subscriber")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            self.task = None
        await self.redis.aclose()

    async def run(self) -> None:
        hub = self.rooms.hub
        delay = BACKOFF_FIRST
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                await self.catch_up()
                hub.set_status("live")
                delay = BACKOFF_FIRST
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5.0)
                    if message is not None and message["type"] == "message":
                        hub.deliver(room_from_message(message["data"]))
            except (RedisError, OSError, LiveUnavailable) as error:
                if hub.status != "reconnecting":
                    log.warning("room changes: lost Redis (%s); reconnecting", error)
                hub.set_status("reconnecting")
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    async def catch_up(self) -> None:
        """After (re)subscribing: the latest view of every room this worker streams, or its end."""
        await refresh(self.rooms, self.rooms.hub.codes())


def room_from_message(data: bytes) -> Room:
    change = orjson.loads(data)
    return Room(code=change["code"], version=int(change["version"]), view=change["view"], updated=change["updated"])
