"""The layers of ``app`` and what each may import (docs/architecture.md § Layers).

Lower layers never call back up: the rules are pure, services know nothing of HTTP, and the
two routers (pages and API) stand on the shared ``app.http`` package, never on each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.same_on_every_database  # no database: the modules' imports

APP = Path(__file__).resolve().parent.parent / "app"

# Layer of a module, by the longest matching prefix; a layer may import its own and those
# listed for it.
LAYERS = {
    "app.rules": "rules",
    "app.config": "core", "app.db": "core", "app.models": "core", "app.errors": "core",
    "app.i18n": "core", "app.auth": "core", "app.live": "core", "app.migrate": "core",
    "app.telemetry": "core",
    "app.services": "services",
    "app.http": "http",
    "app.web": "web",
    "app.api": "api",
    "app.main": "top", "app.asgi": "top", "app.__main__": "top", "app": "top",
}
MAY_IMPORT = {
    "rules": {"rules"},
    "core": {"core", "rules"},
    "services": {"services", "core", "rules"},
    "http": {"http", "services", "core", "rules"},
    "web": {"web", "http", "services", "core", "rules"},
    "api": {"api", "http", "services", "core", "rules"},
    "top": {"top", "web", "api", "http", "services", "core", "rules"},
}


def layer_of(module: str) -> str:
    best = max((prefix for prefix in LAYERS
                if module == prefix or module.startswith(prefix + ".")), key=len)
    return LAYERS[best]


def module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str) -> list[tuple[int, str]]:
    """Every ``app.…`` module a source imports (``from app import x`` counts as ``app.x``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "app":
                found += [(node.lineno, f"app.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return [(line, name) for line, name in found if name == "app" or name.startswith("app.")]


def broken_imports(importer: str, source: str) -> list[str]:
    allowed = MAY_IMPORT[layer_of(importer)]
    return [f"{importer}:{line} ({layer_of(importer)}) imports {imported} "
            f"({layer_of(imported)})"
            for line, imported in imported_modules(source) if layer_of(imported) not in allowed]


def test_no_module_imports_a_layer_above_it_or_beside_it():
    broken = [problem for path in sorted(APP.rglob("*.py"))
              for problem in broken_imports(module_name(path), path.read_text(encoding="utf-8"))]
    assert broken == []


@pytest.mark.parametrize(("importer", "source"), [
    ("app.api.rolls", "from app.web.deps import DbSession\n"),
    ("app.services.tables", "import app.web.matches\n"),
    ("app.services.matches", "from app import tables\n"),
    ("app.rules.tiamat", "from app.services import rolls\n"),
    ("app.web.rolls", "from app.api import schemas\n"),
    ("app.http.deps", "from app.web.templating import render\n"),
])
def test_the_check_catches_an_import_against_the_layers(importer, source):
    assert broken_imports(importer, source)
