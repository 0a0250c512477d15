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
    workers: int = Field(2, ge=1, le=64, description="WORKERS: uvicorn worker processes (scripts/serve).")
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


@functools.cache
def get_settings() -> Settings:
    return Settings()
