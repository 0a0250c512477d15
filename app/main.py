"""The web app: wires the API, the pages and the static files together.

`create_app(settings)` builds one app from the settings it is given (app.state.settings; nothing reads
the environment while answering), so tests build apps with the settings they need in their own process.
Its models are the registry of its settings' weights folder (MODEL_CACHE_DIR), in use while it answers.
No app is built at import: uvicorn calls the factory, ``uvicorn --factory app.main:create_app``, which
reads the environment's settings (scripts/serve runs it as in production: app/serve.py).
"""

import asyncio
import copy
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio.to_thread
from fastapi import APIRouter
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from app.engine.models import registry
from app.engine.models.registry import ModelUnavailable, Registry
from app.live.rooms import RoomError
from app.live.store import make_rooms
from app.settings import Settings, get_settings
from app.view import models
from app.view.compare import compare_presets_for
from app.view.i18n import STRINGS
from app.view.lessons import lessons_for
from app.view.presets import presets_for
from app.web import api, assets, errors, live, pages
from app.web.accesslog import AccessLog, configure_access_log
from app.web.compression import Compression
from app.web.guard import Guard
from app.web.release import memory_released_after_bursts
from app.web.shared import SharedAnswers


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
    # Open event streams end as soon as uvicorn is asked to stop, so that its graceful shutdown has no wait.
    stopping = asyncio.get_running_loop().create_task(live.end_streams_when_the_server_stops(rooms.hub))
    # Once the worker is otherwise ready: started earlier, its work (jieba's dictionary, the translators)
    # took the GIL from the start-up and delayed /healthz by about 0.6 s of CPU.
    preparing = threading.Thread(target=prepare_lessons, name="prepare-lessons", daemon=True)
    preparing.start()
    # Freed memory back to the system once a burst of large answers is over (app/web/release.py).
    async with memory_released_after_bursts() as app.state.memory_release:
        yield
    stopping.cancel()
    await rooms.stop()
    # Not left running into the interpreter's exit, where a daemon thread is stopped wherever it is.
    await anyio.to_thread.run_sync(preparing.join)


def with_http_layers(routes_app: ASGIApp, settings: Settings) -> ASGIApp:
    """The app behind the HTTP layers every request meets, each one idea in a module of its own:

    AccessLog, Guard, SharedAnswers, Compression, LightViews, then the routes: every request is logged as
    it was answered, checked and guarded (security headers, limits, slow readers) before anything is
    computed for it, answered from what was already computed when it can be, and compressed only
    when computed, so that what is shared is the compressed bytes. LightViews answers the typed sentence's
    JSON (GET /api/attention computed in line) itself, the same bytes as its route, without FastAPI's layers.

    They wrap the FastAPI app from outside, so they also see the 500 that its ServerErrorMiddleware
    (always its outermost layer) writes for an unexpected exception: it gets the security headers too.
    """
    # RESPONSE_CACHE_MB=0 and COALESCE=0 (benchmarks): every request computed.
    app: ASGIApp = Compression(api.LightViews(routes_app))
    app = SharedAnswers(app, max_bytes=settings.response_cache_mb * 1024 * 1024, single_flight=settings.coalesce)
    app = Guard(app, send_timeout=settings.send_timeout)
    return AccessLog(app) if settings.access_log else app


def add_head(routes: list) -> None:
    """Each GET route of `routes` also declared for HEAD (RFC 9110, 9.3.2; left out of the API's schema).
    A HEAD is answered by the GET's code, with the same status and headers (Content-Length too), and
    the HTTP server (uvicorn) sends no body for it."""
    for route in list(routes):
        if isinstance(route, APIRoute) and "GET" in route.methods:
            twin = copy.copy(route)
            twin.methods, twin.include_in_schema = {"HEAD"}, False
            routes.append(twin)


class App:
    """The routes (`routes_app`, the FastAPI app; its `state` holds the settings, the rooms and the models)
    behind the HTTP layers (`app`, the outermost; each layer keeps the next in `.app`)."""

    def __init__(self, routes_app: FastAPIOffline, settings: Settings):
        self.routes_app = routes_app
        self.state = routes_app.state
        self.settings = settings
        self.models: Registry = routes_app.state.models
        self.app = with_http_layers(routes_app, settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with models.using(self.models):  # what the view asks the real models, this app's (app/view/models.py)
            await self.app(scope, receive, send)


def models_of(settings: Settings) -> Registry:
    """The process's registry of the settings' weights folder (MODEL_CACHE_DIR; empty: no file)."""
    return registry.shared(Path(settings.model_cache_dir) if settings.model_cache_dir else None)


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
    add_head(routes_app.router.routes)  # /docs and /redoc
    own_routes = [route for route in routes_app.router.routes if isinstance(route, Route)]
    # FastAPI keeps an included router whole (not its routes), so the twins go in before inclusion, into a
    # fresh router per app: the modules' own routers stay as they are for the next create_app.
    for router in (api.router, pages.router, assets.router, live.router):
        with_head = APIRouter(routes=list(router.routes))
        add_head(with_head.routes)
        routes_app.include_router(with_head)
        own_routes += with_head.routes
    # Each path's methods, for a 405's Allow (errors.allowed_methods): a GET and its HEAD twin are two routes.
    routes_app.state.route_methods = [(route.path_regex, route.methods) for route in own_routes if route.methods]
    routes_app.state.settings = settings
    routes_app.state.rooms = make_rooms(settings)
    routes_app.state.models = models_of(settings)
    return App(routes_app, settings)
