"""Which room store this process uses, chosen once from the settings."""

import functools

from app.live.redis_rooms import RedisRooms
from app.live.rooms import Limits, MemoryRooms, Rooms, Unavailable
from app.settings import Settings, get_settings


def limits_from(settings: Settings) -> Limits:
    return Limits(
        ttl_seconds=settings.room_ttl_seconds,
        per_client_hour=settings.rooms_per_client_hour,
        rooms_max=settings.rooms_max,
        streams_max=settings.room_streams_max,
    )


def make_rooms(settings: Settings) -> Rooms:
    """REDIS_URL: rooms in Redis. Otherwise rooms in this process, which only one worker can do."""
    limits = limits_from(settings)
    if settings.redis_url:
        return RedisRooms(settings.redis_url, limits)
    if settings.workers > 1:
        return Unavailable(
            limits,
            f"live classes need REDIS_URL when the server runs more than one worker (WORKERS={settings.workers}): "
            "a room kept in one worker's memory is invisible to students served by the others",
        )
    return MemoryRooms(limits)


@functools.cache
def get_rooms() -> Rooms:
    return make_rooms(get_settings())
