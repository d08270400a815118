"""The engine imports nothing outside the standard library (it runs anywhere, and is the
part of the product that must never break for a missing package)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import engine

ENGINE_DIR = Path(engine.__file__).parent


def imported_top_level_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return modules


def test_engine_imports_only_the_standard_library_and_itself() -> None:
    sources = sorted(ENGINE_DIR.rglob("*.py"))
    assert len(sources) > 5
    allowed = set(sys.stdlib_module_names) | {"engine", "__future__"}
    for path in sources:
        outside = imported_top_level_modules(path) - allowed
        assert not outside, f"{path.relative_to(ENGINE_DIR.parent)} imports {sorted(outside)}"


def test_engine_modules_import_no_other_project_package() -> None:
    for path in sorted(ENGINE_DIR.rglob("*.py")):
        assert not imported_top_level_modules(path) & {"vision", "hardware", "firmware"}, path
