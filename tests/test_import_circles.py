"""No import circles in app/, counting late (function-level) imports; the engine imports nothing of the web.

`python -m tools.import_circles` prints the same list (none) for anyone; these tests fail on a new circle.
"""

from __future__ import annotations

import textwrap

from tools.import_circles import ROOT, circles, import_graph


def test_app_has_no_import_circles():
    found = circles(import_graph(ROOT / "app"))
    assert found == [], f"import circles in app/ (python -m tools.import_circles): {found}"


def test_the_engine_imports_nothing_of_the_web_the_view_or_the_settings():
    graph = import_graph(ROOT / "app")
    outside = ("app.web", "app.view", "app.live", "app.settings", "app.main", "app.serve")
    wrong = {
        module: sorted(name for name in imported if name.startswith(outside))
        for module, imported in graph.items()
        if module.startswith("app.engine")
    }
    assert {module: names for module, names in wrong.items() if names} == {}


def write_package(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_a_circle_closed_by_a_late_or_relative_import_is_found(tmp_path):
    write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import pkg.b\n",
            "pkg/b.py": "def late():\n    from pkg import a\n",  # closes a -> b -> a inside a function
            "pkg/sub/__init__.py": "from . import c\n",
            "pkg/sub/c.py": "from .d import x\n",
            "pkg/sub/d.py": "x = 1\n\ndef later():\n    from ..sub import c\n",  # c -> d -> c, relative
            "pkg/leaf.py": "import json\nimport pkg.a\n",  # imports into a circle: not in one
        },
    )
    graph = import_graph(tmp_path / "pkg", root=tmp_path)
    assert graph["pkg.b"] == {"pkg.a"} and graph["pkg.sub.d"] == {"pkg.sub.c"}
    assert circles(graph) == [["pkg.a", "pkg.b"], ["pkg.sub.c", "pkg.sub.d"]]
