"""The layers of ``docs/arquitectura.md`` hold in the code: nothing imports from above.

The table of layers is read from the document itself, so the document and the code cannot
disagree: a module that imports from a layer above its own, or from another package of its
own layer, fails here with the line that does it; so does a module of no layer.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).parents[1]
PACKAGE = ROOT / "src" / "democratiza"
DOC = ROOT / "docs" / "arquitectura.md"
LAYER_ROW = re.compile(r"^\|\s*(\d+)\s*\|(.*?)\|")


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, e.g. "rules.engine"
    line: int
    target: str  # the imported module, e.g. "tables.acceptances"


def layers() -> dict[str, int]:
    """Each unit of the document's table (a package or a module) and its layer number."""
    found: dict[str, int] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        match = LAYER_ROW.match(line)
        if match:
            for unit in re.findall(r"`([a-z_.]+)`", match.group(2)):
                found[unit] = int(match.group(1))
    return found


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports() -> list[Import]:
    found: list[Import] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "migrations" in path.parts:
            continue  # Alembic's scripts: data definitions, loaded by Alembic, not imported
        module = module_name(path)
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    target = ".".join([*base, node.module] if node.module else base)
                elif node.module and node.module.startswith("democratiza"):
                    target = node.module.removeprefix("democratiza").lstrip(".")
                else:
                    continue
                names = [f"{target}.{a.name}" if target else a.name for a in node.names]
                found.extend(Import(module, node.lineno, t) for t in names)
            elif isinstance(node, ast.Import):
                found.extend(
                    Import(module, node.lineno, a.name.removeprefix("democratiza."))
                    for a in node.names
                    if a.name.startswith("democratiza.")
                )
    return found


def unit_of(module: str, units: dict[str, int]) -> str | None:
    """The longest unit of the table that is the module or a package holding it."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in units:
            return candidate
    return None


def _bare_package(path: Path) -> bool:
    """A package's ``__init__`` that only says what the package is (no code, no imports)."""
    if path.name != "__init__.py":
        return False
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return all(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) for n in body)


def test_the_document_has_a_table_of_layers() -> None:
    units = layers()
    assert len(set(units.values())) >= 5, units
    assert {"money", "rules", "cli"} <= set(units)


def test_every_module_belongs_to_a_layer() -> None:
    units = layers()
    modules = {
        module_name(p)
        for p in PACKAGE.rglob("*.py")
        if "migrations" not in p.parts and not _bare_package(p)
    }
    orphans = sorted(m for m in modules if unit_of(m, units) is None)
    assert orphans == [], f"módulos sin capa en docs/arquitectura.md: {orphans}"


def violations(found: list[Import], units: dict[str, int]) -> list[str]:
    """Each import of a unit at the same layer or above (its own unit aside), as a line."""
    wrong = []
    for imp in found:
        source = unit_of(imp.module, units)
        target = unit_of(imp.target, units)
        if source is None or target is None or source == target:
            continue  # no layer: the test above says so; the same unit: its own business
        if units[target] >= units[source]:
            wrong.append(
                f"{imp.module} (capa {units[source]}), línea {imp.line}: importa {imp.target} "
                f"(capa {units[target]})"
            )
    return wrong


def test_no_module_imports_from_above_or_from_a_sibling() -> None:
    wrong = violations(imports(), layers())
    assert wrong == [], "\n".join(wrong)


def test_an_upward_or_sibling_import_is_caught() -> None:
    """The check itself: rules importing the command line, or a package of its own layer."""
    units = layers()
    sibling = next(u for u, n in units.items() if n == units["rules"] and u != "rules")
    upward = Import("rules.engine", 1, "cli.main.app")
    across = Import("rules.engine", 2, f"{sibling}.anything")
    downward = Import("rules.engine", 3, "money.group")
    assert len(violations([upward, across, downward], units)) == 2
