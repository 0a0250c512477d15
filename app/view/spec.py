"""How a parameter is declared, and the facts the rest of the app reads from the declarations.

Every parameter of a view is ONE field of ``app.view.state.State``: its name, type, default,
bounds or choices and OpenAPI description are the pydantic field's; the facts pydantic has no
word for (which control shows it, the modes it applies to, whether it is view state) ride along as
a ``Control`` in the field's ``Annotated`` metadata. ``params()`` reads them all back as
``ParamSpec`` records, in declaration order, for the form, the page's rules, the OpenAPI query
parameters, the canonical link and validation.

Adding a parameter is adding one field to ``State`` (and its label to ``app/view/i18n.py``).
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal

import annotated_types
from pydantic import BaseModel

# The kinds of view. A view's mode is derived from its parameters (State.mode).
# translate: a trained English→Chinese translator (encoder-decoder; the page offers it in the cross mode's model select)
MODES = ("self", "cross", "exercise", "model", "translate")
SELF, CROSS, EXERCISE, MODEL, TRANSLATE = (frozenset({mode}) for mode in MODES)
SENTENCES = SELF | CROSS | MODEL | TRANSLATE  # a sentence is typed
TOY = SELF | CROSS  # the teaching engine on word vectors
ENGINE = TOY | EXERCISE  # the teaching engine's own stage settings (score, temperature, ...)
EVERY_MODE = frozenset(MODES)

ControlKind = Literal["textarea", "matrix", "text", "select", "number", "range", "checkbox", "none"]


@dataclass(frozen=True)
class Control:
    """What pydantic does not say about a parameter.

    kind      how the page's form shows it ("none": set by other means, e.g. keys or buttons)
    modes     the modes it applies to; elsewhere it must keep its default
    view      view state (how the view is shown: step, stage, language...), not what is computed
    group     where the form puts it: "main", "advanced", "exercise" or "model"
    requires  other parameters' values it needs, e.g. {"embedding": ("hash",)}
    choice_modes  choices that exist only in some modes, e.g. {"general": TOY}
    choice_requires  what a choice needs of other parameters, e.g. {"named": {"embedding": ("lexicon",)}}
    step      the step of a number or range control
    """

    kind: ControlKind
    modes: frozenset[str] = EVERY_MODE
    view: bool = False
    group: str = "main"
    requires: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    choice_modes: dict[Any, frozenset[str]] = field(default_factory=dict)
    choice_requires: dict[Any, dict[str, tuple[Any, ...]]] = field(default_factory=dict)
    step: float | None = None

    def __hash__(self) -> int:
        return hash((self.kind, self.modes, self.view, self.group))


@dataclass(frozen=True)
class ParamSpec:
    """One parameter, as the page, the API docs and the link writer see it."""

    name: str
    type: str  # "str", "int", "float", "bool", "matrix", "labels"
    default: Any
    minimum: float | None
    maximum: float | None
    choices: tuple[Any, ...] | None
    nullable: bool
    description: str
    control: Control

    @property
    def view(self) -> bool:
        return self.control.view

    def applies(self, mode: str) -> bool:
        return mode in self.control.modes

    def choices_in(self, mode: str) -> tuple[Any, ...]:
        """The choices this parameter offers in a mode."""
        return tuple(c for c in self.choices or () if mode in self.control.choice_modes.get(c, self.control.modes))

    def page_facts(self) -> dict[str, Any]:
        """What the page's scripts need to know (embedded in the page data)."""
        return {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "min": self.minimum,
            "max": self.maximum,
            "choices": list(self.choices) if self.choices else None,
            "modes": sorted(self.control.modes),
            "view": self.view,
            "requires": {name: list(values) for name, values in self.control.requires.items()},
            "choice_modes": {str(c): sorted(m) for c, m in self.control.choice_modes.items()},
            "choice_requires": {
                str(c): {name: list(values) for name, values in needs.items()}
                for c, needs in self.control.choice_requires.items()
            },
        }


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """X | None -> (X, True); X -> (X, False)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        arguments = [a for a in typing.get_args(annotation) if a is not type(None)]
        return arguments[0], len(arguments) < len(typing.get_args(annotation))
    return annotation, False


def _type_name(annotation: Any) -> tuple[str, tuple[Any, ...] | None]:
    """("int", None), ("str", choices) for a Literal, "matrix" for rows of numbers, "labels" for names."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) is Literal:
        choices = typing.get_args(annotation)
        return type(choices[0]).__name__, choices
    if typing.get_origin(annotation) is tuple:
        item = typing.get_args(annotation)[0]
        return ("matrix" if typing.get_origin(item) is tuple else "labels"), None
    return annotation.__name__, None


def read_specs(model: type[BaseModel]) -> tuple[ParamSpec, ...]:
    """The ParamSpec of every field of `model`, in declaration order."""
    specs = []
    for name, info in model.model_fields.items():
        control = next((m for m in info.metadata if isinstance(m, Control)), None)
        if control is None:
            raise TypeError(f"State.{name} has no Control in its metadata")
        annotation, nullable = _unwrap(info.annotation)
        type_name, choices = _type_name(annotation)
        choices = next((m.choices for m in info.metadata if isinstance(m, Choices)), choices)
        minimum = next((m.ge for m in info.metadata if isinstance(m, annotated_types.Ge)), None)
        maximum = next((m.le for m in info.metadata if isinstance(m, annotated_types.Le)), None)
        specs.append(
            ParamSpec(
                name=name,
                type=type_name,
                default=info.default,
                minimum=minimum,
                maximum=maximum,
                choices=choices,
                nullable=nullable,
                description=info.description or "",
                control=control,
            )
        )
    return tuple(specs)


@dataclass(frozen=True)
class Choices:
    """The allowed values of a whole-number parameter (metadata read by validation and the form)."""

    choices: tuple[Any, ...]
