"""The import circles in a package: `python -m tools.import_circles` lists those in app/ (prints none, exit 0).

Every import statement counts, wherever it is written: at the top of a module, or late (inside a function,
where it runs on first call), since a circle hidden by a late import is still a circle. Only the package's
own modules are nodes; `from package import name` leads to the submodule when `name` is one, else to the
package. A circle is a strongly connected group of modules (Tarjan's algorithm): each one reaches every other.

    python -m tools.import_circles            # app/
    python -m tools.import_circles bench      # another package of the project
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the project folder


def module_names(package: Path, root: Path) -> dict[str, Path]:
    """Every module of the package (its __init__ named as the package), by dotted name."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imported(module: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that this module's import statements name (at any depth of its code)."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x, from ..y import z
                anchor = module.split(".")[: len(module.split(".")) - node.level + is_package]
                base = ".".join([*anchor, *([base] if base else [])])
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names)
    return {name for name in found if name in known and name != module}


def import_graph(package: Path, root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the package's modules it imports."""
    names = module_names(package, root)
    return {module: imported(module, path, set(names)) for module, path in names.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more modules that import each other, directly or around a circle (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:  # the root of a group: everything above it on the stack
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(groups)


def main(argv: list[str]) -> int:
    package = ROOT / (argv[0] if argv else "app")
    graph = import_graph(package)
    found = circles(graph)
    for group in found:
        members = set(group)
        print("circle: " + ", ".join(group))
        for module in group:
            print(f"  {module} -> {', '.join(sorted(graph[module] & members))}")
    print(f"{len(found)} import circles in {package.relative_to(ROOT)}/ ({len(graph)} modules)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
