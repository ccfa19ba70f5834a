"""The package's folders are its layers and imports go one way (issue 27, `docs/architecture.md`): a
folder imports only itself and the folders below it, and no two modules import each other, so a
module can be read, tested and moved with only what it builds on.

Every import counts, wherever it sits in the file: at the top, inside a function (a lazy import
only hides the cycle) or under `TYPE_CHECKING` (the modules still depend on each other's names).
"""

from __future__ import annotations

import ast
from pathlib import Path

import sheets_host

PACKAGE = Path(sheets_host.__file__).parent

# Each folder of sheets_host and what it may import besides itself. The product's layers, lowest
# first: the kit; the games (a festival's `Event` interface and rules, the events that implement it,
# the games, the Academy a festival of events) beside the backends;
# the engine; discord; the season (above the engine, which never learns of seasons); watch; the command line. The fakes serve the tests and `bench`, on the kit
# and the backends.
GAMES = {"kit", "events", "festival", "games"}
MAY_IMPORT = {
    "kit": {"kit"},
    "festival": {"kit", "festival"},
    "events": {"kit", "festival", "events"},
    "games": GAMES,
    "backends": {"kit", "backends"},
    "engine": GAMES | {"backends", "engine"},
    "discord": GAMES | {"backends", "engine", "discord"},
    "season": GAMES | {"backends", "engine", "discord", "season"},
    "watch": GAMES | {"backends", "engine", "discord", "season", "watch"},
    "fakes": {"kit", "backends", "fakes"},
    "cli": GAMES | {"backends", "engine", "discord", "season", "watch", "fakes", "cli"},
}


def modules(package: Path) -> dict[str, Path]:
    """Every module of `package` by its dotted name (`sheets_host.games.x.state`); a package is its
    `__init__`."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that the module `name` (at `path`) imports, anywhere in its file.

    `from . import rules` names the submodule `rules` when there is one, else the package itself;
    relative imports are resolved from the module's package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}" if base else alias.name
                found.add(sub if sub in known else base)
    return {m for m in found if m in known and m != name}


def mutual_imports(known: dict[str, Path]) -> list[tuple[str, str]]:
    """Every pair of the `known` modules that import each other, each pair once, in name order."""
    graph = {name: imported(name, path, known) for name, path in known.items()}
    return sorted((a, b) for a, targets in graph.items() for b in targets if a < b and a in graph[b])


def layer(name: str) -> str | None:
    """A module's folder under sheets_host (None for the package itself)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_folder_is_a_layer():
    assert {layer(name) for name in modules(PACKAGE)} - {None} == set(MAY_IMPORT)


def test_imports_go_down_the_layers():
    known = modules(PACKAGE)
    upward = [f"{name} imports {target}" for name, path in known.items()
              for target in sorted(imported(name, path, set(known)))
              if layer(target) is not None and layer(target) not in MAY_IMPORT.get(layer(name), set())]
    assert not upward, "imports up the layers:\n" + "\n".join(upward)


def test_no_two_modules_import_each_other():
    pairs = [f"{a} <-> {b}" for a, b in mutual_imports(modules(PACKAGE))]
    assert not pairs, "modules that import each other:\n" + "\n".join(pairs)


def test_the_check_sees_lazy_relative_and_type_checking_imports(tmp_path):
    """A cycle hidden in a function or under TYPE_CHECKING is still found, through `from . import`
    and `from .module import` alike; `from ..` and absolute imports resolve to the package's modules."""
    package = tmp_path / "pkg"
    (package / "games").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "state.py").write_text("def walked():\n    from .day import walk\n")
    (package / "day.py").write_text("from typing import TYPE_CHECKING\n"
                                    "if TYPE_CHECKING:\n    from . import state\n")
    (package / "games" / "__init__.py").write_text("from .. import day, TITLE\nimport pkg.state\n")
    known = modules(package)
    assert mutual_imports(known) == [("pkg.day", "pkg.state")]
    assert imported("pkg.games", known["pkg.games"], set(known)) == {"pkg", "pkg.day", "pkg.state"}
