"""Links in, states out: reading a query string into a State, strictly (the API) or leniently (pages),
and into a Comparison (two States, panes ``a`` and ``b``, for /compare).

The canonical link is written by ``link_query`` (app/view/state.py, beside the declaration), for a
State (``State.share_path()``) and a Comparison alike; the pages never write parameters themselves,
they adopt the links the server returns.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from app.view.state import PANES, SPECS, Comparison, State, cached_state

MAX_FIELDS = 64  # a query string with more parameters than this is not a link of ours
MAX_NAME = 40  # characters of an unknown parameter name that an error message repeats


def short(name: str) -> str:
    return name if len(name) <= MAX_NAME else name[:MAX_NAME] + "…"


def invalid(error_type: str, template: str, field: str, **context: object) -> ValidationError:
    """A ValidationError of our own, shaped like pydantic's (so one handler answers both)."""
    detail = InitErrorDetails(
        type=PydanticCustomError(error_type, template, {"field": field, **context}), loc=(field,), input=None
    )
    return ValidationError.from_exception_data("State", [detail])


def query_values(query: str) -> dict[str, str]:
    """The (name, value) pairs of a query string; a name given twice is an error, not a silent choice."""
    values: dict[str, str] = {}
    try:
        pairs = parse_qsl(query, keep_blank_values=True, max_num_fields=MAX_FIELDS)
    except ValueError:
        raise invalid("too_long", "at most {max_length} parameters", "request", max_length=MAX_FIELDS) from None
    for name, value in pairs:
        if name in values:
            raise invalid("given_twice", "given more than once", short(name))
        values[name] = value
    return values


def state_from_query(query: str) -> State:
    """The State of a link's query string (raises ValidationError naming the field)."""
    return cached_state(tuple(sorted(query_values(query).items())))


def state_from_values(values: dict) -> State:
    """The State of a JSON object's values (matrices and names as lists)."""
    return State.model_validate(values)


def comparison_from_query(query: str) -> Comparison:
    """The Comparison of a link's query string: ``a.source=...`` is pane a's `source`, validated by the same
    declaration as a single view's link (raises ValidationError naming e.g. `b.temperature`)."""
    values: dict[str, object] = {}
    for name, value in query_values(query).items():
        pane, dot, field = name.partition(".")
        if dot and pane in PANES and field:
            values.setdefault(pane, {})[field] = value  # type: ignore[index]
        elif name in PANES:
            raise invalid("unknown_parameter", "unknown parameter", name)
        else:
            values[name] = value
    try:
        return Comparison.model_validate(values, context={"link": True})
    except ValidationError as error:
        raise named_by_pane(error) from None


def named_by_pane(error: ValidationError, pane: str | None = None) -> ValidationError:
    """A comparison's errors naming each pane's parameter by its link name (`a.temperature`), so people know
    which pane is wrong; an unknown name outside the panes is just unknown. pane: the errors are all one
    pane State's (found when its view is computed)."""
    details = []
    for item in error.errors():
        context = dict(item.get("ctx") or {})
        location = list(item.get("loc") or ())
        if pane is not None:
            location = [pane, *location]
        error_type = item["type"]
        if location[:1] and location[0] in PANES:
            inner = context.get("field") or next((part for part in location[1:] if isinstance(part, str)), "request")
            context["field"] = f"{location[0]}.{inner}"
            context.pop("drop", None)
        else:
            context["field"] = field_of(item)
            if error_type == "extra_forbidden":
                error_type = "unknown_parameter"
        template = item["msg"].replace("{", "(").replace("}", ")")
        details.append(
            InitErrorDetails(
                type=PydanticCustomError(error_type, template, context),
                loc=(context["field"], *[part for part in location if isinstance(part, int)]),
                input=None,
            )
        )
    return ValidationError.from_exception_data("Comparison", details)


def lenient_state(values: dict[str, str]) -> tuple[State, list[tuple[str, ValidationError]]]:
    """For pages: the State of a link with whatever does not validate dropped, and what was dropped.

    A link always opens; the page says which parameters it ignored and why.
    """
    values = dict(values)
    ignored: list[tuple[str, ValidationError]] = []
    for _ in range(len(values) + 1):
        try:
            return cached_state(tuple(sorted(values.items()))), ignored
        except ValidationError as error:
            fields = {dropped for item in error.errors() for dropped in fields_to_drop(item)} & set(values)
            if not fields:
                break
            for field in sorted(fields):
                values.pop(field)
                ignored.append((field, error))
    return State(), ignored


def fields_to_drop(item: dict) -> list[str]:
    """What a lenient reading leaves out for an error: the field at fault, or what the error says to drop
    (a sentence too long for a real model keeps the sentence and drops the model)."""
    context = item.get("ctx") or {}
    return list(context.get("drop") or [field_of(item)])


def field_of(item: dict) -> str:
    """The parameter an error is about: a model rule names it in its context, a field error in its location."""
    context = item.get("ctx") or {}
    if "field" in context:
        return str(context["field"])
    location = [part for part in item.get("loc", ()) if isinstance(part, str)]
    return location[0] if location else "request"


KNOWN = tuple(SPECS)
