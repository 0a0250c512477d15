"""The HTML pages: the same query string as /api/attention, rendered with the view's data embedded.

A link always opens: parameters that do not validate are dropped (the page says which and why),
and the rest of the view is shown.
"""

from __future__ import annotations

import functools
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError

from app.engine.models.registry import ModelUnavailable
from app.settings import ROOT
from app.view import models
from app.view.compare import COMPARE_PRESETS, compare_presets_for, compare_view
from app.view.compute import compute_view
from app.view.i18n import STRINGS
from app.view.lessons import lessons_for
from app.view.links import comparison_from_query, fields_to_drop, lenient_state, query_values
from app.view.presets import presets_for
from app.view.spec import MODEL, MODES, TRANSLATE
from app.view.state import (
    DEFAULT_SOURCES,
    DEFAULT_STEPS,
    LINK_ORDER,
    MAX_CHARACTERS,
    PANES,
    SLIDE_PANELS,
    SPECS,
    State,
    format_number,
)
from app.web import routes
from app.web.assets import asset_url
from app.web.errors import error_items
from app.web.headers import pick_language, query_text, request_language
from app.web.jsonio import dumps
from app.web.shared import cached

router = APIRouter()
DEFAULT_COMPARISON = COMPARE_PRESETS[0]["query"]  # /compare with no parameters: the two banks
MODEL_ONLY = frozenset(
    {spec.name for spec in SPECS.values() if spec.control.modes <= MODEL | TRANSLATE} | {"head", "model"}
)
templates = Jinja2Templates(directory=ROOT / "templates")
templates.env.globals["routes"] = routes
templates.env.filters["number"] = format_number


def page_template(request: Request, name: str, **context: object) -> str:
    """A page template rendered with `asset_url(name)`, the app's URL of a static file (macros import it
    with the context: the Plotly bundle, so the URLs, follow the app's FRONTEND_MODULES)."""
    folder = request.app.state.settings.frontend_modules
    url = functools.partial(asset_url, frontend_modules=folder)
    return templates.get_template(name).render(asset_url=url, **context)


def script_json(value: object) -> str:
    """JSON for a <script type="application/json"> block: no '<', '>' or '&' can end the block."""
    text = dumps(value).decode("utf-8")
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def available_models(lang: str) -> dict[str, dict]:
    """The real models that load here, with their shape and their name in the page's language (a missing one is
    left out, the page says why)."""
    found = {}
    for name in (*models.MODEL_NAMES, *models.TRANSLATOR_NAMES):
        if models.available(name):
            info = models.info(name)
            label = STRINGS[lang].get(f"model_label_{name}", info.label)
            found[name] = {"label": label, "n_layers": info.n_layers, "n_heads": info.n_heads}
            if name in models.TRANSLATOR_NAMES:  # the layer and head the form opens it on (models.opening_head)
                found[name]["opens"] = dict(zip(("layer", "head"), models.opening_head(name), strict=True))
    return found


def requires_notes(lang: str) -> dict[str, str]:
    """Beside a control that needs another setting: when it applies, in words."""
    strings = STRINGS[lang]
    notes = {}
    for spec in SPECS.values():
        for other, allowed in spec.control.requires.items():
            values = " / ".join(strings.get(f"{other}_{value}", str(value)) for value in allowed)
            notes[spec.name] = strings["requires_note"].format(other=strings.get(other, other), values=values)
    return notes


def page_state(
    request: Request, lang: str, query: str | None = None, without: frozenset[str] = frozenset()
) -> tuple[State, list[str]]:
    """The link's State (what does not validate dropped, with the reasons) and the page's notices.

    query: the link's query string (default: the request's own; a live room's view in follow mode).
    without: parameters left out (the real model's, when it is missing).
    """
    query = query_text(request.scope) if query is None else query
    try:
        values = query_values(query)
    except Exception:  # a malformed query (a name twice): the page opens with what it can read
        values = dict(parse_qsl(query, keep_blank_values=True))
    values = {name: value for name, value in values.items() if name not in without}
    if set(values) <= {"lang"}:
        values["source"] = DEFAULT_SOURCES[lang]  # a fresh start: the default sentence in the page's language,
        values["step"] = str(DEFAULT_STEPS[lang])  # on the step its lesson is about
    state, ignored = lenient_state(values)
    messages = []
    for field, error in ignored:
        errors = [{**e, "type": "unknown_parameter"} if e["type"] == "extra_forbidden" else e for e in error.errors()]
        items = error_items(errors, "query", lang)
        item = next((i for i, e in zip(items, errors, strict=True) if field in fields_to_drop(e)), items[0])
        message = f"{item['field']}: {item['msg']}"
        if message not in messages:
            messages.append(message)
    return state, messages


def render_page(
    request: Request, *, embed: bool = False, query: str | None = None, follow: dict | None = None
) -> Response:
    """The page for a link (or for `query`, a live room's view); `follow`: the room's links in follow mode."""
    lang = request_language(request)
    notices = []
    try:
        state, ignored = page_state(request, lang, query)
        view = compute_view(state)
    except ModelUnavailable as error:  # a real model is missing: show the sentence with the teaching engine
        notices.append(f"model: {error.args[0]} {STRINGS[lang]['model_missing']}")
        state, ignored = page_state(request, lang, query, without=MODEL_ONLY)
        view = compute_view(state)
    except ValidationError as error:  # a limit only the model knows (its word pieces): drop what the error says
        errors = error.errors()
        item = error_items(errors, "query", lang)[0]
        without = frozenset(field for e in errors for field in fields_to_drop(e))
        state, ignored = page_state(request, lang, query, without=without)
        ignored.insert(0, f"{item['field']}: {item['msg']}")
        view = compute_view(state)
    strings = STRINGS[lang]
    page = {
        "view": view,
        "lang": lang,
        "strings": strings,
        "params": [spec.page_facts() for spec in LINK_ORDER],
        "routes": routes.public_paths(),
        "presets": presets_for(lang),
        "models": available_models(lang),
        "embed": embed,
        "follow": follow,
    }
    context = {
        "state": state,
        "view": view,
        "lang": lang,
        "t": strings,
        "specs": SPECS,
        "requires_notes": requires_notes(lang),
        "max_characters": MAX_CHARACTERS,
        "modes": MODES,
        "models": page["models"],
        "presets": page["presets"],
        "ignored": ignored,
        "notices": notices,
        "page_json": script_json(page),
        "embed": embed,
        "mode": view["mode"],
        "slide_number": lambda panel: SLIDE_PANELS.index(panel) + 1,  # data-slide-panel: the `slide` that shows it
    }
    html = page_template(request, "page.html", **context)
    # Without `lang` the language comes from Accept-Language, so caches must keep one copy per language.
    return cached(html.encode("utf-8"), "text/html; charset=utf-8", max_age=300, vary="Accept-Language")


@router.get(routes.PAGE, response_class=HTMLResponse, include_in_schema=False)
def page(request: Request) -> Response:
    return render_page(request)


@router.get(routes.EMBED, response_class=HTMLResponse, include_in_schema=False)
def embed(request: Request) -> Response:
    """The same view without the controls: for slides and course pages (may be framed)."""
    return render_page(request, embed=True)


@router.get(routes.LEARN, response_class=HTMLResponse, include_in_schema=False)
def learn(request: Request, lang: str | None = None) -> Response:
    """The ideas of attention, one by one, each linked to a view that shows it."""
    lang = pick_language(lang if lang in STRINGS else None, request.headers.get("accept-language"))
    html = page_template(request, "learn.html", lang=lang, t=STRINGS[lang], lessons=lessons_for(lang))
    return cached(html.encode("utf-8"), "text/html; charset=utf-8", max_age=300, vary="Accept-Language")


@router.get(routes.COMPARE, response_class=HTMLResponse, include_in_schema=False)
def compare(request: Request) -> Response:
    """Two views side by side, the same word in both; /api/compare is its JSON twin."""
    lang = request_language(request)
    notices = []
    try:
        view = compare_view(comparison_from_query(query_text(request.scope) or DEFAULT_COMPARISON))
    except ValidationError as error:
        item = error_items(error.errors(), "query", lang)[0]
        notices.append(f"{item['field']}: {item['msg']}")
        view = compare_view(comparison_from_query(DEFAULT_COMPARISON))
    presets = compare_presets_for(lang)
    page = {
        "compare": view,
        "panes": list(PANES),  # the panes' names, which prefix their parameters in a link (a.source)
        "lang": lang,
        "strings": STRINGS[lang],
        "routes": routes.public_paths(),
        "presets": presets,
    }
    html = page_template(
        request,
        "compare.html",
        view=view,
        lang=lang,
        t=STRINGS[lang],
        presets=presets,
        notices=notices,
        panes=PANES,
        query=view["share_path"].partition("?")[2],
        max_characters=MAX_CHARACTERS,
        page_json=script_json(page),
    )
    return cached(html.encode("utf-8"), "text/html; charset=utf-8", max_age=300, vary="Accept-Language")
