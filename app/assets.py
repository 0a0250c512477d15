"""Static files under content-hashed URLs: /assets/<digest>/<path>, cached as immutable.

The digest covers every file under static/ plus the Plotly bundle, so ES modules that import
each other by relative path stay on one digest. Plotly.js comes from the installed `plotly`
Python package (never a CDN): /assets/<digest>/vendor/plotly.min.js.
"""

import functools
import hashlib
from pathlib import Path

import plotly

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
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
    return f"/assets/{digest}/{name}"
