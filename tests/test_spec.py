"""One declaration per parameter: the form, the API schema, validation and the canonical link all come from it."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.view.spec import MODES
from app.view.state import COMPARE_SPECS, LINK_ORDER, PANES, SPECS, VIEW_FIELDS

ROOT = Path(__file__).resolve().parents[1]

# A child process declares one more parameter by extending State, and looks for it everywhere.
CHILD = r"""
import json, re
from typing import Annotated
from pydantic import Field, create_model
import app.view.state as s
from app.view.spec import Control, TOY

s.State = create_model(
    "State",
    __base__=s.State,
    wobble=(Annotated[int, Control("number", TOY, step=1)], Field(3, ge=0, le=9, description="A fake parameter.")),
)
s.SPECS = {spec.name: spec for spec in s.read_specs(s.State)}
s.LINK_ORDER = tuple(sorted(s.SPECS.values(), key=lambda spec: spec.view))

from fastapi.testclient import TestClient
from app.main import create_app

client = TestClient(create_app())
page = client.get("/?source=walk+by+river+bank").text
control = re.search(r'<input type="number" id="wobble" name="wobble"[^>]*>', page)
openapi = client.get("/openapi.json").json()
parameters = {p["name"]: p for p in openapi["paths"]["/api/attention"]["get"]["parameters"]}
ok = client.get("/api/attention?source=walk+by+river+bank&wobble=5&step=2").json()
bad = client.get("/api/attention?source=walk+by+river+bank&wobble=10").json()
exercise = client.get("/api/attention?q=1&k=1&v=1&wobble=4").json()
print(json.dumps({
    "control": control.group(0) if control else None,
    "modes": re.search(r'data-param="wobble" data-modes="([^"]*)"', page).group(1),
    "schema": parameters["wobble"]["schema"],
    "description": parameters["wobble"]["description"],
    "share_path": ok["share_path"],
    "bad": bad["message"],
    "exercise": exercise["message"],
}))
"""


@pytest.mark.slow  # a child process imports the app
def test_a_new_parameter_is_one_declaration():
    result = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])
    control = found["control"]
    assert control and 'min="0"' in control and 'max="9"' in control and 'value="3"' in control, control
    assert found["modes"] == "cross self"
    assert (found["schema"]["minimum"], found["schema"]["maximum"], found["schema"]["default"]) == (0, 9, 3)
    assert found["description"] == "A fake parameter."
    # canonical order: what is computed (wobble, declared last of those), then the view state (step)
    assert found["share_path"] == "/?wobble=5&step=2"
    assert found["bad"].startswith("wobble:") and "9" in found["bad"]
    assert found["exercise"].startswith("wobble:") and "self-attention" in found["exercise"]


def test_the_link_order_puts_view_state_last():
    names = [spec.name for spec in LINK_ORDER]
    assert names[-len(VIEW_FIELDS) :] == list(VIEW_FIELDS)
    assert set(VIEW_FIELDS) >= {"step", "stage", "head", "lang", "present"}
    assert not any(spec.view for spec in LINK_ORDER[: -len(VIEW_FIELDS)])


def test_every_parameter_is_described_and_applies_somewhere():
    for spec in SPECS.values():
        assert spec.description, spec.name
        assert spec.control.modes and spec.control.modes <= set(MODES), spec.name
        for choice, modes in spec.control.choice_modes.items():
            assert choice in spec.choices and modes <= set(MODES), (spec.name, choice)
        for other, allowed in spec.control.requires.items():
            assert set(allowed) <= set(SPECS[other].choices or allowed), (spec.name, other)


COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/|\{#.*?#\}", re.S)


def page_sources():
    """The page's scripts and templates, without their comments."""
    files = sorted((ROOT / "static" / "js").glob("*.js")) + sorted((ROOT / "templates").glob("*.html"))
    return {path.relative_to(ROOT).as_posix(): COMMENTS.sub("", path.read_text(encoding="utf-8")) for path in files}


def test_no_parameter_fact_is_written_in_the_page():
    """Choices, bounds and defaults live in app/view/state.py; the page's scripts and templates read them.

    Choice names are looked for everywhere; bounds in the templates (the scripts are full of pixel sizes).
    """
    facts = []
    for spec in SPECS.values():
        if spec.type == "str" and spec.choices and spec.name != "lang":  # the language switch is page chrome
            # every score function's name, and every choice that is an identifier rather than an English word
            named = [c for c in spec.choices if spec.name == "score" or "_" in c]
            facts += [(spec.name, rf"\b{re.escape(choice)}\b", "") for choice in named if choice not in MODES]
        for bound in (spec.minimum, spec.maximum):
            if bound is not None and bound not in (0, 1, 2):  # rows="2" is no bound
                facts.append((spec.name, rf"""["'=]{re.escape(str(bound))}["']""", "templates/"))
    found = [
        (name, path, pattern)
        for path, text in page_sources().items()
        for name, pattern, where in facts
        if path.startswith(where) and re.search(pattern, text)
    ]
    assert found == [], found


def test_a_comparison_is_two_states_and_its_own_declared_view_state():
    """/compare's parameters: each pane a State (its parameters with the pane's prefix), the rest declared beside
    it, all described and all view state (what is computed is the panes')."""
    assert [name for name, spec in COMPARE_SPECS.items() if spec.type == "State"] == list(PANES)
    for name, spec in COMPARE_SPECS.items():
        assert spec.description, name
        assert spec.view or name in PANES, name


def test_the_compare_page_writes_only_declared_parameters():
    """compare.js changes links by parameter name: each name it writes is declared, a pane's with the prefix
    the page data gives (the pages never write a name the declaration does not know)."""
    script = page_sources()["static/js/compare.js"]
    written = re.findall(r"withChanges\(\{\s*(\[`\$\{name\}\.)?(\w+)", script)
    assert {name for prefixed, name in written if not prefixed} == {"focus", "pane", "present", "lang"}
    for prefixed, name in written:
        assert (name in SPECS) if prefixed else (name in COMPARE_SPECS and name not in PANES), name
    assert '"a"' not in script and '"b"' not in script, "the panes' names come from the page data"
    assert not re.search(r"""\[\s*['"]a['"]\s*,\s*['"]b['"]\s*\]""", page_sources()["templates/compare.html"])


def test_the_compare_api_lists_the_declared_parameters(client):
    parameters = {
        p["name"]: p for p in client.get("/openapi.json").json()["paths"]["/api/compare"]["get"]["parameters"]
    }
    own = [name for name in COMPARE_SPECS if name not in PANES]
    assert set(parameters) == set(own) | {f"{pane}.{name}" for pane in PANES for name in SPECS}
    assert parameters["b.temperature"]["schema"]["maximum"] == SPECS["temperature"].maximum
    assert parameters["pane"]["schema"]["enum"] == list(PANES)


def test_the_view_and_the_engine_speak_no_http():
    """app/view and app/engine import no web framework: reading a request (its language, its query) is app/web's."""
    found = []
    for path in sorted((ROOT / "app" / "view").rglob("*.py")) + sorted((ROOT / "app" / "engine").rglob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.match(r"\s*(from|import)\s+(fastapi|starlette|uvicorn)\b", line):
                found.append((path.relative_to(ROOT).as_posix(), line.strip()))
    assert found == []
