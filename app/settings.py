"""Every setting of the app, read once from the environment (pydantic-settings).

The README lists them. Command-line wrappers (scripts/run, scripts/serve) read HOST, PORT and
WORKERS themselves to start uvicorn; the app reads the rest here. Tests change settings by starting
a server with another environment (tests/support/live_server.py), never by patching this module.
"""

import functools
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parents[1]  # the project folder: templates/ and static/ live here


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    host: str = Field("127.0.0.1", description="HOST: address scripts/serve binds to.")
    port: int = Field(8000, ge=1, le=65535, description="PORT: port scripts/serve listens on.")
    workers: int = Field(
        1,
        ge=1,
        le=64,
        description="WORKERS: uvicorn worker processes. scripts/serve starts 2 when unset and exports the number, "
        "so each worker knows it; a process started by plain uvicorn is one worker. More than one worker keeps "
        "live-class rooms only with REDIS_URL.",
    )
    response_cache_mb: int = Field(
        64, ge=0, description="RESPONSE_CACHE_MB: per-worker cache of deterministic GET answers; 0 turns it off."
    )
    access_log: bool = Field(True, description="ACCESS_LOG: one line per request on stderr; 0 turns it off.")
    minilm_dir: Path | None = Field(
        None, description="MINILM_DIR: folder with all-MiniLM-L6-v2's files (default: the installed package)."
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
    rooms_per_client_hour: int = Field(
        30, ge=1, description="ROOMS_PER_CLIENT_HOUR: rooms one client address may start in any 60 minutes."
    )
    rooms_max: int = Field(1000, ge=1, description="ROOMS_MAX: open rooms in total (over all workers and machines).")
    room_streams_max: int = Field(
        1000, ge=1, description="ROOM_STREAMS_MAX: open student streams of one room on one worker."
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
