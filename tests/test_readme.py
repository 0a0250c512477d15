"""The README stays true: its layout table names every module, its settings table every setting, and
CI runs the README's test command."""

import re
from pathlib import Path

from app.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def table_rows(heading):
    section = README.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("|---")]


def test_the_layout_table_names_every_module():
    rows = {}
    for row in table_rows("Layout"):
        cells = row.split(" | ")
        for folder in re.findall(r"`([\w/.]+)`", cells[0]):
            rows.setdefault(folder, "")
            rows[folder] += row
    missing = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        if path.name == "__init__.py":
            continue
        relative = path.relative_to(ROOT).as_posix()
        folder = relative.rsplit("/", 1)[0] + "/"
        if f"`{relative}`" not in README and f"`{path.name}`" not in rows.get(folder, ""):
            missing.append(relative)
    assert missing == []


def test_the_settings_table_names_every_setting():
    listed = {re.match(r"\| `(\w+)`", row).group(1) for row in table_rows("Settings") if row.startswith("| `")}
    assert listed == {name.upper() for name in Settings.model_fields}


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"^\./scripts/(\w+)", README, re.M)
    assert commands[:2] == ["run", "test"]
    assert "./scripts/test" in (ROOT / ".ci" / "run").read_text()
