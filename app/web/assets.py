"""Static files under content-hashed URLs: /assets/<digest>/<path>, cached as immutable.

The digest covers every file under static/ plus the Plotly bundle, so ES modules that import
each other by relative path stay on one digest. Plotly.js is never loaded from a CDN; it is served
at /assets/<digest>/vendor/plotly.min.js and is, by preference, plotly.js's own partial bundle
`plotly.js-cartesian-dist-min` (heatmap, bar, scatter, image export: a third of the full bundle),
installed by `npm ci --prefix frontend` at the plotly.js version the `plotly` Python package
bundles. Without it (no npm at set-up, or another version) the app serves the Python package's full
bundle and logs why, once per process at start-up.

Every file is compressed once per process (gzip and brotli, at start-up) and the encoding is chosen
per request from Accept-Encoding (app/web/compression.py).
"""

import functools
import gzip
import hashlib
import logging
import mimetypes
import re
from pathlib import Path

import brotli
import plotly
from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.settings import Settings
from app.web import routes
from app.web.compression import IDENTITY, choose_encoding
from app.web.shared import IMMUTABLE_SECONDS

STATIC_DIR = Path(__file__).resolve().parents[2] / "static"
FULL_PLOTLY = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
CARTESIAN_PLOTLY = Path("plotly.js-cartesian-dist-min") / "plotly-cartesian.min.js"  # under FRONTEND_MODULES
DEFAULT_MODULES = Settings.model_fields["frontend_modules"].default  # FRONTEND_MODULES's default
PLOTLY_NAME = "vendor/plotly.min.js"  # its URL path under /assets/<digest>/, whichever bundle it is

# Brotli quality 9: the cartesian bundle (1.50 MB) becomes 444 KB in 0.2 s. Quality 11 gives 410 KB
# but costs 3.7 s of CPU in every worker at start-up; gzip -9 gives 496 KB.
BROTLI_QUALITY = 9
ENCODINGS = ("br", "gzip")  # the server's order of preference, for codings the client accepts equally

log = logging.getLogger("attention_lens.assets")
router = APIRouter()


def bundle_version(path: Path) -> str | None:
    """The plotly.js version in a bundle's licence header ("plotly.js (cartesian - minified) v4.1.1")."""
    with path.open("rb") as bundle:
        header = bundle.read(300).decode("utf-8", "replace")
    found = re.search(r"plotly\.js\b[^\n]*? v(\d+\.\d+\.\d+\S*)", header)
    return found.group(1) if found else None


@functools.cache
def plotly_bundle(frontend_modules: Path = DEFAULT_MODULES) -> Path:
    """The cartesian partial bundle when it is installed (under FRONTEND_MODULES) at the Python package's
    plotly.js version, else the Python package's full bundle (with a warning saying why, once per folder)."""
    partial = frontend_modules / CARTESIAN_PLOTLY
    wanted = bundle_version(FULL_PLOTLY)
    if not partial.is_file():
        reason = f"{partial} is missing (set-up runs `npm ci --prefix frontend`; is npm installed?)"
    elif (found := bundle_version(partial)) != wanted:
        reason = f"{partial} is plotly.js {found}, but the plotly package bundles {wanted}"
    else:
        return partial
    size_mb = FULL_PLOTLY.stat().st_size / 1e6
    log.warning("serving the plotly package's full Plotly.js bundle (%.1f MB): %s", size_mb, reason)
    return FULL_PLOTLY


def asset_files(frontend_modules: Path = DEFAULT_MODULES) -> dict[str, Path]:
    """Relative URL path -> file, for everything /assets serves."""
    files = {path.relative_to(STATIC_DIR).as_posix(): path for path in sorted(STATIC_DIR.rglob("*")) if path.is_file()}
    return {**files, PLOTLY_NAME: plotly_bundle(frontend_modules)}


@functools.cache
def asset_table(frontend_modules: Path = DEFAULT_MODULES) -> tuple[str, dict[str, Path]]:
    """(digest of all assets, their files): one digest, so a release changes every URL at once."""
    files = asset_files(frontend_modules)
    digest = hashlib.sha256()
    for name, path in sorted(files.items()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16], files


def asset_url(name: str, frontend_modules: Path = DEFAULT_MODULES) -> str:
    digest, files = asset_table(frontend_modules)
    if name not in files:
        raise KeyError(f"no static file {name!r}")
    return f"{routes.ASSETS}/{digest}/{name}"


@functools.cache
def encoded_asset(name: str, frontend_modules: Path = DEFAULT_MODULES) -> dict[str, bytes]:
    """An asset's bytes in every encoding that makes it smaller: {"identity": raw, "br": ..., "gzip": ...}.

    Computed once per process (at start-up by warm_up) and kept."""
    return encoded_file(asset_table(frontend_modules)[1][name])


@functools.cache
def encoded_file(path: Path) -> dict[str, bytes]:
    """A file's bytes in every encoding that makes it smaller, once per file: apps of one process that read
    their Plotly from different FRONTEND_MODULES folders but fall back on the full bundle (tests do) share
    its compression (about 1 s of CPU)."""
    raw = path.read_bytes()
    compressed = {
        "br": brotli.compress(raw, quality=BROTLI_QUALITY, mode=brotli.MODE_TEXT),
        "gzip": gzip.compress(raw, compresslevel=9, mtime=0),
    }
    return {IDENTITY: raw} | {coding: body for coding, body in compressed.items() if len(body) < len(raw)}


def warm_up(frontend_modules: Path) -> None:
    """Choose the Plotly bundle (logging why if it is the full one) and compress every asset now."""
    for name in asset_table(frontend_modules)[1]:
        encoded_asset(name, frontend_modules)


def media_type(name: str) -> str:
    if name.endswith(".js"):
        return "text/javascript; charset=utf-8"
    if name.endswith(".css"):
        return "text/css; charset=utf-8"
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


@router.get(routes.ASSETS + "/{digest}/{name:path}", include_in_schema=False)
def asset(request: Request, digest: str, name: str) -> Response:
    """Static files and Plotly.js: immutable under the current digest, in the best encoding the client accepts."""
    current, files = asset_table(request.app.state.settings.frontend_modules)
    if name not in files:
        return Response("not found", status_code=404, media_type="text/plain")
    bodies = encoded_asset(name, request.app.state.settings.frontend_modules)
    encoding = choose_encoding(request.headers.get("accept-encoding"), [c for c in ENCODINGS if c in bodies])
    headers = {
        "Cache-Control": f"public, max-age={IMMUTABLE_SECONDS}, immutable" if digest == current else "no-cache",
        "Vary": "Accept-Encoding",
    }
    if encoding != IDENTITY:
        headers["Content-Encoding"] = encoding
    return Response(bodies[encoding], media_type=media_type(name), headers=headers)
