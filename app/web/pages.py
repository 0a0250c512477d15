"""The HTML pages: the same query string as /api/attention, rendered with the view's data embedded.

A link always opens: parameters that do not validate are dropped (the page says which), and
the rest of the view is shown.
"""

from pathlib import Path
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError

from app.engine.models.minilm import ModelUnavailable
from app.view.compute import compute_view
from app.view.i18n import STRINGS, pick_language
from app.view.lessons import LESSONS, lesson_params
from app.view.presets import PRESETS
from app.view.state import DEFAULTS, ORDER, VIEW_FIELDS, AttentionQuery, InputError, format_number, make_state
from app.web import routes
from app.web.assets import asset_bytes, asset_table, asset_url, media_type
from app.web.conditional import cached
from app.web.errors import validation_items
from app.web.jsonio import dumps

router = APIRouter()
templates = Jinja2Templates(directory=Path(__file__).resolve().parents[2] / "templates")
templates.env.globals["asset_url"] = asset_url
templates.env.filters["number"] = format_number


def state_from_link(query):
    """The State a link describes, dropping what does not validate. Returns (state, ignored messages)."""
    values = dict(query)
    ignored = []
    for _ in range(len(values) + 1):
        try:
            return make_state(AttentionQuery.model_validate(values)), ignored
        except ValidationError as error:
            items = validation_items(error.errors())
        except InputError as error:
            items = [{"field": error.field, "msg": error.message}]
        dropped = [item for item in items if item["field"] in values]
        if not dropped:
            break
        for item in dropped:
            if values.pop(item["field"], None) is not None:
                ignored.append(f"{item['field']}: {item['msg']}")
    return make_state(AttentionQuery()), ignored


def script_json(value):
    """JSON for a <script type="application/json"> block: no '<', '>' or '&' can end the block."""
    text = dumps(value).decode("utf-8")
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(request, *, embed=False):
    state, ignored = state_from_link(request.query_params)
    notices = []
    try:
        view = compute_view(state)
    except (ModelUnavailable, InputError) as error:  # the real model is missing, or the sentence too long for it
        notices.append(f"model: {error.args[0]}")
        state = state.replace(model="toy", head=None, hide_special=False)
        view = compute_view(state)
    lang = pick_language(state.lang, request.headers.get("accept-language"))
    page = {
        "view": view,
        "lang": lang,
        "strings": STRINGS[lang],
        "defaults": DEFAULTS,
        "order": list(ORDER),
        "view_fields": list(VIEW_FIELDS),
        "presets": PRESETS,
        "embed": embed,
    }
    context = {
        "state": state,
        "lang": lang,
        "t": STRINGS[lang],
        "presets": PRESETS,
        "ignored": ignored,
        "notices": notices,
        "page_json": script_json(page),
        "embed": embed,
        "mode": view["mode"],
    }
    html = templates.get_template("page.html").render(context)
    # Without `lang` the language comes from Accept-Language, so caches must keep one copy per language.
    return cached(html.encode("utf-8"), "text/html; charset=utf-8", max_age=300, vary="Accept-Language")


@router.get(routes.PAGE, response_class=HTMLResponse, include_in_schema=False)
def page(request: Request):
    return render_page(request)


@router.get(routes.LEARN, response_class=HTMLResponse, include_in_schema=False)
def learn(request: Request, lang: str | None = None):
    """The ideas of the seed text, one by one, each linked to a view that shows it."""
    lang = pick_language(lang if lang in STRINGS else None, request.headers.get("accept-language"))
    lessons = [{**lesson, "link": "/?" + urlencode({**lesson_params(lesson), "lang": lang})} for lesson in LESSONS]
    html = templates.get_template("learn.html").render(lang=lang, t=STRINGS[lang], lessons=lessons)
    return cached(html.encode("utf-8"), "text/html; charset=utf-8", max_age=300, vary="Accept-Language")


@router.get(routes.EMBED, response_class=HTMLResponse, include_in_schema=False)
def embed(request: Request):
    """The same view without the controls: for slides and course pages (may be framed)."""
    return render_page(request, embed=True)


@router.get(routes.ASSETS + "/{digest}/{name:path}", include_in_schema=False)
def asset(request: Request, digest: str, name: str):
    """Static files and Plotly.js: immutable under the current digest, gzip-compressed once per process."""
    current, files = asset_table()
    if name not in files:
        return Response("not found", status_code=404, media_type="text/plain")
    headers = {
        "Cache-Control": "public, max-age=31536000, immutable" if digest == current else "no-cache",
        "Vary": "Accept-Encoding",
    }
    body, gzipped = asset_bytes(name)
    if "gzip" in request.headers.get("accept-encoding", ""):
        body = gzipped
        headers["Content-Encoding"] = "gzip"
    return Response(body, media_type=media_type(name), headers=headers)
