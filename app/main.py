"""The web app: wires the API, the pages and the static files together.

Run it with ``uvicorn app.main:app`` (scripts/serve runs it as in production: app/serve.py).
"""

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio.to_thread
from fastapi.exceptions import RequestValidationError
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp

from app.engine.models.minilm import ModelUnavailable
from app.settings import get_settings
from app.view.compute import warm_up
from app.view.state import InputError
from app.web import api, errors, pages
from app.web.accesslog import AccessLog, configure_access_log
from app.web.backpressure import SendInPieces
from app.web.cache import ResponseCache
from app.web.coalesce import Coalesce
from app.web.compress import GZIP_LEVEL, GZIP_MINIMUM_BYTES, NegotiateGzip
from app.web.conditional import ConditionalGet
from app.web.head import HeadAsGet
from app.web.middleware import Hardening
from app.web.release import ReleaseMemory


@asynccontextmanager
async def lifespan(app: FastAPIOffline) -> AsyncIterator[None]:
    # Sync routes (views, pages) run in this many threads at once; the rest wait for one without
    # holding the GIL, so the event loop (and /healthz) still gets it promptly.
    anyio.to_thread.current_default_thread_limiter().total_tokens = get_settings().threads
    warm_up()
    yield


def with_http_layers(routes_app: ASGIApp) -> ASGIApp:
    """The app behind the HTTP layers every request meets, in this order (each its own module):

    AccessLog (one JSON line per request), Hardening (security headers on every answer, request
    limits), ReleaseMemory (freed memory back to the system after large answers), SendInPieces
    (large bodies in 64 KiB pieces; a client that stops reading is dropped), HeadAsGet (HEAD on every
    GET route), ConditionalGet (304), NegotiateGzip (Accept-Encoding by its q-values), ResponseCache
    and Coalesce (a shared link computed once), GZipMiddleware (Starlette's), then the routes.

    They wrap the FastAPI app from outside, so they also see the 500 that its ServerErrorMiddleware
    (always its outermost layer) writes for an unexpected exception: it gets the security headers too.
    """
    settings = get_settings()
    layers = [AccessLog, Hardening, ReleaseMemory, functools.partial(SendInPieces, timeout=settings.send_timeout)]
    layers += [HeadAsGet, ConditionalGet, NegotiateGzip]
    if settings.response_cache_mb > 0:  # 0: every request computed (benchmarks)
        layers.append(functools.partial(ResponseCache, max_bytes=settings.response_cache_mb * 1024 * 1024))
    if settings.coalesce:
        layers.append(Coalesce)
    layers.append(functools.partial(GZipMiddleware, minimum_size=GZIP_MINIMUM_BYTES, compresslevel=GZIP_LEVEL))
    app = routes_app
    for layer in reversed(layers):
        app = layer(app)
    return app


def create_app() -> ASGIApp:
    configure_access_log(get_settings().access_log)
    routes_app = FastAPIOffline(
        lifespan=lifespan,
        title="Attention Lens",
        description="Attention, stage by stage: similarity, softmax weights, weighted sum of the values. "
        "Every page URL has a JSON twin at /api/attention with the same query string.",
        version="1.0",
        redirect_slashes=False,  # /embed/ is not /embed: 404, never a redirect built from the Host header
    )
    routes_app.add_exception_handler(RequestValidationError, errors.on_validation_error)
    routes_app.add_exception_handler(InputError, errors.on_input_error)
    routes_app.add_exception_handler(ModelUnavailable, errors.on_model_unavailable)
    routes_app.add_exception_handler(StarletteHTTPException, errors.on_http_error)
    routes_app.include_router(api.router)
    routes_app.include_router(pages.router)
    return with_http_layers(routes_app)


app = create_app()
