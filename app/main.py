"""The web app: wires the API, the pages and the static files together.

`create_app(settings)` builds one app from the settings it is given (app.state.settings; nothing reads
the environment while answering), so tests build apps with the settings they need in their own process.
Run it with ``uvicorn app.main:app`` (scripts/serve runs it as in production: app/serve.py), which
builds `app` from the environment's settings.
"""

import functools
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio.to_thread
from fastapi.exceptions import RequestValidationError
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from app.engine.models.registry import ModelUnavailable
from app.live.rooms import RoomError
from app.live.store import make_rooms
from app.settings import Settings, get_settings
from app.view.compare import compare_presets_for
from app.view.i18n import STRINGS
from app.view.lessons import lessons_for
from app.view.presets import presets_for
from app.web import api, assets, errors, live, pages
from app.web.accesslog import AccessLog, configure_access_log
from app.web.backpressure import SendInPieces
from app.web.cache import ResponseCache
from app.web.coalesce import Coalesce
from app.web.compression import GZIP_LEVEL, GZIP_MINIMUM_BYTES, GzipExceptAssets, NegotiateGzip
from app.web.conditional import ConditionalGet
from app.web.head import HeadAsGet
from app.web.middleware import Hardening
from app.web.release import ReleaseMemory


def prepare_lessons() -> None:
    """The examples and lessons made ready for the page: once per process, in the background, so that
    neither the worker's start (its health check, /healthz) nor the first visitor's page waits for them.
    The numbers they quote from the real models come from examples.json (app/view/examples.py), so no
    model is loaded here: each is loaded by the first request that needs its numbers (the registry loads
    each once, and that request waits for that model alone)."""
    for lang in STRINGS:
        presets_for(lang)
        lessons_for(lang)
        compare_presets_for(lang)


@asynccontextmanager
async def lifespan(app: FastAPIOffline) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    # Sync routes (views, pages) run in this many threads at once; the rest wait for one without
    # holding the GIL, so the event loop (and /healthz) still gets it promptly.
    anyio.to_thread.current_default_thread_limiter().total_tokens = settings.threads
    # Chooses the Plotly bundle (logging why if it is the full one), compresses the assets.
    assets.warm_up(settings.frontend_modules)
    rooms = app.state.rooms  # live classes: in this process, or Redis and this worker's subscriber
    await rooms.start()
    # Once the worker is otherwise ready: started earlier, its work (jieba's dictionary, the translators)
    # took the GIL from the start-up and delayed /healthz by about 0.6 s of CPU.
    threading.Thread(target=prepare_lessons, name="prepare-lessons", daemon=True).start()
    yield
    await rooms.stop()


def with_http_layers(routes_app: ASGIApp, settings: Settings) -> ASGIApp:
    """The app behind the HTTP layers every request meets, in this order (each its own module):

    AccessLog (one JSON line per request), Hardening (security headers on every answer, request
    limits), ReleaseMemory (freed memory back to the system after large answers), SendInPieces
    (large bodies in 64 KiB pieces; a client that stops reading is dropped), HeadAsGet (HEAD on every
    GET route), ConditionalGet (304), NegotiateGzip (Accept-Encoding by its q-values), ResponseCache
    and Coalesce (a shared link computed once), GzipExceptAssets (Starlette's gzip; /assets/ are
    precompressed), then the routes.

    They wrap the FastAPI app from outside, so they also see the 500 that its ServerErrorMiddleware
    (always its outermost layer) writes for an unexpected exception: it gets the security headers too.
    """
    layers = [AccessLog] if settings.access_log else []
    layers += [Hardening, ReleaseMemory, functools.partial(SendInPieces, timeout=settings.send_timeout)]
    layers += [HeadAsGet, ConditionalGet, NegotiateGzip]
    if settings.response_cache_mb > 0:  # 0: every request computed (benchmarks)
        layers.append(functools.partial(ResponseCache, max_bytes=settings.response_cache_mb * 1024 * 1024))
    if settings.coalesce:
        layers.append(Coalesce)
    layers.append(functools.partial(GzipExceptAssets, minimum_size=GZIP_MINIMUM_BYTES, compresslevel=GZIP_LEVEL))
    app = routes_app
    for layer in reversed(layers):
        app = layer(app)
    return app


class App:
    """The routes (`routes_app`, the FastAPI app; its `state` holds the settings and the rooms) behind the
    HTTP layers (`app`, the outermost; each layer keeps the next in `.app`)."""

    def __init__(self, routes_app: FastAPIOffline, settings: Settings):
        self.routes_app = routes_app
        self.state = routes_app.state
        self.settings = settings
        self.app = with_http_layers(routes_app, settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


def create_app(settings: Settings | None = None) -> App:
    """One app with these settings (default: the environment's, read once)."""
    settings = settings or get_settings()
    configure_access_log(settings.access_log)
    routes_app = FastAPIOffline(
        lifespan=lifespan,
        title="Attention Lens",
        description="Attention, stage by stage: similarity, softmax weights, weighted sum of the values. "
        "Every page URL has a JSON twin at /api/attention with the same query string.",
        version="1.0",
        redirect_slashes=False,  # /embed/ is not /embed: 404, never a redirect built from the Host header
    )
    routes_app.add_exception_handler(RequestValidationError, errors.on_validation_error)
    routes_app.add_exception_handler(errors.InvalidInput, errors.on_invalid_input)
    routes_app.add_exception_handler(ModelUnavailable, errors.on_model_unavailable)
    routes_app.add_exception_handler(StarletteHTTPException, errors.on_http_error)
    routes_app.add_exception_handler(RoomError, live.on_room_error)
    routes_app.include_router(api.router)
    routes_app.include_router(pages.router)
    routes_app.include_router(assets.router)
    routes_app.include_router(live.router)
    routes_app.state.settings = settings
    routes_app.state.rooms = make_rooms(settings)
    return App(routes_app, settings)


app = create_app(get_settings())
