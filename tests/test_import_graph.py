"""The house rules, checked on the code's own imports (read with `ast`, nothing is imported).

- No import loop between modules, `TYPE_CHECKING` imports included.
- The device's packages stand on one another one way: `vision` imports no `engine`,
  `hardware`, `firmware` or `advisor`; `hardware` imports no `firmware` or `vision`;
  `engine` imports no other package of the project (and only the standard library:
  tests/engine/test_standard_library_only.py).
- Nothing imports the lab but the command line (`cli`), the training scripts and the tests;
  the lab imports no `cli`.
- The scoreboard (`web`) stands above `engine` and the read-only pieces of `firmware` (the
  config, the event log's reader and the locale's formatting), beside the device, never inside it: it imports no
  `advisor`, `vision`, `hardware`, lab or `cli`, no other part of `firmware`, and nothing
  imports it but the command line.
- No import inside a function, except the few below, each with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "advisor", "vision", "hardware", "firmware", "web", "lab", "cli")

# Imports inside functions that stay, and why. (module, imported module)
DEFERRED = {
    # Hardware drivers that only exist on the Pi (picamera2) or are only needed when that
    # part is opened (gpiozero, luma, the terminal's termios/tty): imported when the device
    # is opened, as gpiozero itself loads pin factories.
    ("hardware.camera", "picamera2"),
    ("hardware.buttons", "gpiozero"),
    ("hardware.buttons", "termios"),
    ("hardware.buttons", "tty"),
    ("hardware.display", "luma.core.interface.serial"),
    ("hardware.display", "luma.oled.device"),
    ("hardware.display", "luma.core.error"),
    ("hardware.display", "luma.core.device"),
    # segno's writers pull in urllib, http.client and ssl (about 8 MB resident on the device);
    # a QR code is drawn only when the settings menu shows the scoreboard's address.
    ("firmware.ui.qr", "segno"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")}


def imports_of(name: str, path: Path) -> list[tuple[str, bool]]:
    """(imported module, inside a function) for every import statement of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.extend((alias.name, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    package = package[:len(package) - (child.level - 1)]
                    base = ".".join(package + ([base] if base else []))
                found.extend((f"{base}.{alias.name}", in_function) for alias in child.names)
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
    return found


def resolve(imported: str, modules: dict[str, Path]) -> str | None:
    """The project module an import names (`pkg.mod.Name` -> `pkg.mod`), None outside it."""
    candidate = imported
    while candidate:
        if candidate in modules:
            return candidate
        candidate = candidate.rpartition(".")[0]
    return None


MODULES = project_modules()
GRAPH = {name: {target for imported, _ in imports_of(name, path)
                if (target := resolve(imported, MODULES)) is not None and target != name}
         for name, path in MODULES.items()}


def package(module: str) -> str:
    return module.split(".")[0]


def test_no_import_loop() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in GRAPH[node]:
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for node in GRAPH:
        if node not in index:
            connect(node)
    assert not loops, f"modules importing each other in a loop: {loops}"


FORBIDDEN = {
    "engine": {"advisor", "vision", "hardware", "firmware", "web", "lab", "cli"},
    "advisor": {"vision", "hardware", "firmware", "web", "lab", "cli"},
    "vision": {"engine", "advisor", "hardware", "firmware", "web", "lab", "cli"},
    "hardware": {"engine", "advisor", "vision", "firmware", "web", "lab", "cli"},
    "firmware": {"web", "lab", "cli"},
    "web": {"advisor", "vision", "hardware", "lab", "cli"},
    "lab": {"web", "cli"},
}
# The only modules of the firmware the scoreboard may use: they read, never write or drive.
WEB_MAY_USE_FROM_FIRMWARE = {"firmware.config", "firmware.eventlog", "firmware.localformat"}


@pytest.mark.parametrize("importer", sorted(FORBIDDEN))
def test_packages_import_one_way(importer: str) -> None:
    breaches = sorted(f"{module} imports {target}" for module, targets in GRAPH.items() if package(module) == importer
                      for target in targets if package(target) in FORBIDDEN[importer])
    assert not breaches, breaches


def test_only_the_command_line_scripts_and_tests_import_the_lab() -> None:
    importers = {package(module) for module, targets in GRAPH.items() for target in targets
                 if package(target) == "lab" and package(module) != "lab"}
    assert importers <= {"cli"}, importers


def test_only_the_command_line_imports_the_scoreboard() -> None:
    importers = {package(module) for module, targets in GRAPH.items() for target in targets
                 if package(target) == "web" and package(module) != "web"}
    assert importers <= {"cli"}, importers


def test_the_scoreboard_uses_only_the_read_only_pieces_of_the_firmware() -> None:
    used = {target for module, targets in GRAPH.items() if package(module) == "web"
            for target in targets if package(target) == "firmware"}
    assert used <= WEB_MAY_USE_FROM_FIRMWARE, used


def test_no_import_inside_a_function_but_the_listed_ones() -> None:
    unexplained = sorted({f"{name}: {imported}" for name, path in MODULES.items()
                          for imported, inside in imports_of(name, path)
                          if inside and not any(name == module and (imported == allowed or imported.startswith(allowed + "."))
                                                for module, allowed in DEFERRED)})
    assert not unexplained, unexplained
