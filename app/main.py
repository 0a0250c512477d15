"""The web app: wires the API, the pages and the static files together.

Run it with ``uvicorn app.main:app``.
"""

import logging
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.engine.models.registry import ModelUnavailable
from app.live.rooms import RoomError
from app.live.store import get_rooms
from app.settings import get_settings
from app.view.compare import compare_presets_for
from app.view.compute import warm_up
from app.view.i18n import STRINGS
from app.view.lessons import lessons_for
from app.view.presets import presets_for
from app.web import api, assets, errors, live, pages
from app.web.compression import NegotiatedGZip
from app.web.middleware import Hardening, ResponseCache, access_log


def configure_access_log() -> None:
    """One line per request on stderr ("GET /api/attention?... 200 3.1ms"); ACCESS_LOG=0 turns it off."""
    if get_settings().access_log and not access_log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(message)s"))
        access_log.addHandler(handler)
        access_log.setLevel(logging.INFO)
        access_log.propagate = False


def prepare_lessons() -> None:
    """The examples' and lessons' numbers are computed by the engine (some by the real models): once per
    process, in the background, so the first visitor's page does not wait for them."""
    for lang in STRINGS:
        presets_for(lang)
        lessons_for(lang)
        compare_presets_for(lang)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    warm_up()
    threading.Thread(target=prepare_lessons, name="prepare-lessons", daemon=True).start()
    assets.warm_up()  # chooses the Plotly bundle (logging why if it is the full one), compresses the assets
    rooms = get_rooms()  # live classes: in this process, or Redis and this worker's subscriber
    await rooms.start()
    yield
    await rooms.stop()


def create_app() -> FastAPI:
    configure_access_log()
    app = FastAPIOffline(
        lifespan=lifespan,
        title="Attention Lens",
        description="Attention, stage by stage: similarity, softmax weights, weighted sum of the values. "
        "Every page URL has a JSON twin at /api/attention with the same query string.",
        version="1.0",
    )
    app.add_exception_handler(RequestValidationError, errors.on_validation_error)
    app.add_exception_handler(errors.InvalidInput, errors.on_invalid_input)
    app.add_exception_handler(ModelUnavailable, errors.on_model_unavailable)
    app.add_exception_handler(StarletteHTTPException, errors.on_http_error)
    app.add_exception_handler(RoomError, live.on_room_error)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(assets.router)
    app.include_router(live.router)
    app.add_middleware(
        NegotiatedGZip, minimum_size=1000, compresslevel=1
    )  # level 1: ~20x smaller JSON at a third of level 5's cost
    cache_mb = get_settings().response_cache_mb  # 0: every request computed (for benchmarks)
    if cache_mb > 0:
        app.add_middleware(ResponseCache, max_bytes=cache_mb * 1024 * 1024)
    app.add_middleware(Hardening)
    return app


app = create_app()
