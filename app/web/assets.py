"""Static files under content-hashed URLs: /assets/<digest>/<path>, cached as immutable.

The digest covers every file under static/ plus the Plotly bundle, so ES modules that import
each other by relative path stay on one digest. Plotly.js comes from the installed `plotly`
Python package (never a CDN): /assets/<digest>/vendor/plotly.min.js.
"""

import functools
import gzip
import hashlib
import mimetypes
from pathlib import Path

import plotly

from app.web import routes

STATIC_DIR = Path(__file__).resolve().parents[2] / "static"
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
VENDOR = {"vendor/plotly.min.js": PLOTLY_JS}


def asset_files():
    """Relative URL path -> file, for everything /assets serves."""
    files = {path.relative_to(STATIC_DIR).as_posix(): path for path in sorted(STATIC_DIR.rglob("*")) if path.is_file()}
    return {**files, **VENDOR}


@functools.cache
def asset_table():
    files = asset_files()
    digest = hashlib.sha256()
    for name, path in sorted(files.items()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16], files


def asset_url(name):
    digest, files = asset_table()
    if name not in files:
        raise KeyError(f"no static file {name!r}")
    return f"{routes.ASSETS}/{digest}/{name}"


@functools.cache
def asset_bytes(name):
    """(raw bytes, gzip-compressed bytes) of an asset, read and compressed once per process."""
    raw = asset_table()[1][name].read_bytes()
    return raw, gzip.compress(raw, compresslevel=9, mtime=0)


def media_type(name):
    if name.endswith(".js"):
        return "text/javascript; charset=utf-8"
    if name.endswith(".css"):
        return "text/css; charset=utf-8"
    return mimetypes.guess_type(name)[0] or "application/octet-stream"
