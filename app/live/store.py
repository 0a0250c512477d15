"""Which room store this process uses, chosen once from the settings."""

from app.live.redis_rooms import RedisRooms
from app.live.rooms import Limits, MemoryRooms, Rooms, Unavailable
from app.settings import Settings


def limits_from(settings: Settings) -> Limits:
    return Limits(
        ttl_seconds=settings.room_ttl_seconds,
        per_client_hour=settings.rooms_per_client_hour,
        rooms_max=settings.rooms_max,
        streams_max=settings.room_streams_max,
        idle_seconds=settings.room_idle_seconds,
        per_client_open=settings.rooms_per_client,
        worker_streams_max=worker_streams_max(settings),
        client_streams_max=settings.live_streams_per_client,
        misses_per_client_minute=settings.room_misses_per_client_minute,
        keepalive_seconds=settings.live_keepalive_seconds,
    )


def worker_streams_max(settings: Settings) -> int:
    """LIVE_STREAMS_MAX, but never past three quarters of LIMIT_CONCURRENCY: the rest answers requests."""
    return max(1, min(settings.live_streams_max, settings.limit_concurrency * 3 // 4))


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
