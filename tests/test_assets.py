"""The static assets: which Plotly bundle is served, and each asset compressed once, in the encoding
the client asks for (Accept-Encoding with q-values). The browser side (every trace type and Plotly call
of the page's scripts present in the served bundle, image export working) is tests/browser/test_plotly_bundle.py.
"""

import gzip
import logging
import tempfile
from pathlib import Path

import brotli
import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from plotly.offline import get_plotlyjs_version

from app.main import create_app
from app.settings import Settings
from app.web.assets import CARTESIAN_PLOTLY, FULL_PLOTLY, asset_url, bundle_version, encoded_asset, plotly_bundle
from app.web.compression import choose_encoding

ROOT = Path(__file__).resolve().parents[1]
PLOTLY = "vendor/plotly.min.js"
INSTALLED_CARTESIAN = ROOT / "frontend" / "node_modules" / CARTESIAN_PLOTLY


def get_raw(client, path, accept_encoding):
    """(response, body exactly as sent): httpx would otherwise decode gzip (and brotli, if installed)."""
    with client.stream("GET", path, headers={"accept-encoding": accept_encoding}) as response:
        return response, b"".join(response.iter_raw())


def decode(body, encoding):
    return {"br": brotli.decompress, "gzip": gzip.decompress, None: bytes}[encoding](body)


# ---------------------------------------------------------------------------------------- the bundle


def test_the_set_up_installed_the_cartesian_bundle_at_the_python_packages_plotly_js_version():
    assert INSTALLED_CARTESIAN.is_file(), "run `npm ci --prefix frontend` (scripts/test does)"
    assert bundle_version(INSTALLED_CARTESIAN) == get_plotlyjs_version()  # plotly's own word on its bundle
    assert bundle_version(FULL_PLOTLY) == get_plotlyjs_version()


def test_the_served_plotly_is_the_cartesian_bundle(client):
    assert plotly_bundle() == INSTALLED_CARTESIAN
    response, body = get_raw(client, asset_url(PLOTLY), "identity")
    assert response.status_code == 200
    assert body == INSTALLED_CARTESIAN.read_bytes()
    assert body.startswith(b"/**\n* plotly.js (cartesian - minified) v" + get_plotlyjs_version().encode())
    assert len(body) < FULL_PLOTLY.stat().st_size / 2


def fake_bundle(folder, version):
    path = Path(folder) / CARTESIAN_PLOTLY
    path.parent.mkdir(parents=True)
    path.write_text(f"/**\n* plotly.js (cartesian - minified) v{version}\n*/\nwindow.Plotly = {{}};\n")


@pytest.mark.parametrize("case", ["missing", "another version"])
def test_without_the_cartesian_bundle_the_full_one_is_served_and_the_reason_logged(case, caplog):
    with tempfile.TemporaryDirectory() as modules:
        if case == "another version":
            fake_bundle(modules, "0.0.1")
        caplog.set_level(logging.WARNING, logger="attention_lens.assets")
        with TestClient(create_app(Settings(frontend_modules=modules, access_log=False))) as client:  # lifespan too
            page = client.get("/").text
            url = next(part.split('"')[0] for part in page.split('src="')[1:] if PLOTLY in part.split('"')[0])
            served = client.get(url, headers={"accept-encoding": "identity"})
            client.get(url, headers={"accept-encoding": "gzip"})
    assert served.status_code == 200
    assert served.content == FULL_PLOTLY.read_bytes()
    warnings = [record.getMessage() for record in caplog.records if "full Plotly.js bundle" in record.getMessage()]
    assert len(warnings) == 1, caplog.text[-3000:]  # once, at start-up, not per request
    expected = "is missing" if case == "missing" else "is plotly.js 0.0.1, but the plotly package bundles"
    assert modules in warnings[0] and expected in warnings[0], warnings


# ---------------------------------------------------------------------------------------- compression


@pytest.mark.parametrize("name", [PLOTLY, "js/main.js", "css/app.css"])
@pytest.mark.parametrize(
    ("accept", "encoding"),
    [
        ("br, gzip", "br"),
        ("gzip, deflate, br, zstd", "br"),  # Chromium's header
        ("gzip, deflate", "gzip"),
        ("br;q=0, gzip", "gzip"),
        ("gzip;q=0.5, br;q=0.4", "gzip"),
        ("gzip;q=0, br;q=0", None),
        ("identity", None),
        ("", None),
        ("*", "br"),
        ("*;q=0, gzip", "gzip"),
        ("gzip;q=0.5, identity", None),  # identity (q=1) preferred to gzip
    ],
)
def test_assets_come_in_the_encoding_the_client_prefers(client, name, accept, encoding):
    response, body = get_raw(client, asset_url(name), accept)
    assert response.status_code == 200
    assert response.headers.get("content-encoding") == encoding
    assert response.headers["vary"] == "Accept-Encoding"
    assert decode(body, encoding) == (ROOT / "static" / name if name != PLOTLY else plotly_bundle()).read_bytes()
    if encoding is not None:
        assert len(body) < len(decode(body, encoding)) / 2, (name, encoding, len(body))


def test_brotli_is_smaller_than_gzip_for_the_plotly_bundle(client):
    _, br = get_raw(client, asset_url(PLOTLY), "br")
    _, gz = get_raw(client, asset_url(PLOTLY), "gzip")
    assert len(br) < len(gz)
    assert brotli.decompress(br) == gzip.decompress(gz)


def test_assets_are_compressed_once_not_per_request(client):
    url = asset_url(PLOTLY)
    get_raw(client, url, "br")
    misses = encoded_asset.cache_info().misses
    bodies = {get_raw(client, url, accept)[1] for accept in ("br", "br", "gzip", "gzip", "identity")}
    assert encoded_asset.cache_info().misses == misses
    assert len(bodies) == 3
    assert encoded_asset(PLOTLY) is encoded_asset(PLOTLY)


def test_dynamic_answers_honour_q_zero_too(client):
    """The gzip middleware of the JSON and pages reads the header the same way (not as a substring)."""
    path = "/api/attention?source=" + "+".join(["river", "bank"] * 20)
    refused, body = get_raw(client, path, "gzip;q=0")
    assert refused.status_code == 200 and "content-encoding" not in refused.headers
    accepted, zipped = get_raw(client, path, "gzip")
    assert accepted.headers.get("content-encoding") == "gzip"
    assert "accept-encoding" in accepted.headers["vary"].lower()
    assert gzip.decompress(zipped) == body


# ---------------------------------------------------------------------------------------- the negotiation itself

CODINGS = st.sampled_from(["br", "gzip", "identity", "*", "zstd", "deflate"])
QS = st.sampled_from(["", ";q=0", ";q=0.0", ";q=0.3", ";q=0.5", ";q=1", ";Q=0.7", ";q=x"])


@given(st.lists(st.tuples(CODINGS, QS), max_size=6, unique_by=lambda item: item[0]))
def test_the_choice_is_never_a_refused_coding_and_never_loses_to_a_less_wanted_one(items):
    header = ", ".join(coding + q for coding, q in items)
    chosen = choose_encoding(header, ["br", "gzip"])

    def q_of(coding):
        named = {name: float(q.split("=")[1]) if q else 1.0 for name, q in items if q != ";q=x"}  # q=x: ignored
        return named.get(coding, named.get("*", 0.0))  # not named: identity is the last resort, others refused

    assert chosen in ("br", "gzip", "identity")
    if chosen != "identity":
        assert q_of(chosen) > 0
        assert q_of(chosen) >= max(q_of("br"), q_of("gzip"), q_of("identity"))
    else:
        assert q_of("br") <= q_of("identity") or q_of("br") == 0
        assert q_of("gzip") <= q_of("identity") or q_of("gzip") == 0
