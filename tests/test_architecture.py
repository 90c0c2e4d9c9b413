"""The house rules that keep the code base clean, checked on every run.

ARCHITECTURE.md (repository root) states these rules; this file checks them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agent", "memory", "skills", "safefs", "frontend", "hermes_cli", "gateway",
            "hermes_acp")
# package -> packages it must never import (the layers of ARCHITECTURE.md)
FORBIDDEN = {
    "agent": {"frontend", "hermes_cli", "gateway", "hermes_acp"},
    "frontend": {"hermes_cli", "gateway", "hermes_acp"},
    "gateway": {"hermes_cli", "hermes_acp"},
    "hermes_acp": {"hermes_cli", "gateway"},
    "memory": {"agent", "frontend", "hermes_cli", "gateway", "skills", "hermes_acp"},
    "skills": {"agent", "frontend", "hermes_cli", "gateway", "memory", "hermes_acp"},
    "safefs": {"agent", "frontend", "hermes_cli", "gateway", "memory", "skills", "hermes_acp"},
}
# the CLI may import the front ends it launches (`hermes gateway`, `hermes acp`) only here
CLI_MAY_LAUNCH = {"hermes_cli/app.py"}
LAUNCHED = {"gateway", "hermes_acp"}
MAX_LINES = 450


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _imported(path: Path) -> set[str]:
    """Every module name an import statement in `path` names (top level, in functions
    and under TYPE_CHECKING alike), with `from a import b` also naming `a.b`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _roots(path: Path) -> set[str]:
    return {name.split(".")[0] for name in _imported(path)}


def test_dependency_direction():
    violations = []
    for package, banned in FORBIDDEN.items():
        for path in (ROOT / package).rglob("*.py"):
            bad = _roots(path) & banned
            if bad:
                violations.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    for path in (ROOT / "hermes_cli").rglob("*.py"):
        launched = _roots(path) & LAUNCHED
        if launched and str(path.relative_to(ROOT)) not in CLI_MAY_LAUNCH:
            violations.append(f"{path.relative_to(ROOT)} imports {sorted(launched)}")
    assert not violations, "\n".join(violations)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in edges[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for node in edges:
        if node not in index:
            visit(node)
    return out


def test_no_import_cycles():
    """No two modules import each other, directly or around a circle - counting imports
    inside functions and under TYPE_CHECKING, which would only hide a circle."""
    modules = _modules()
    edges = {name: {other for other in _imported(path) if other in modules and other != name}
             for name, path in modules.items()}
    assert _cycles(edges) == []


def test_tools_and_compression_never_see_the_agent():
    """Tools get typed services; compression takes a Session (ARCHITECTURE.md)."""
    users = [path for path in [*(ROOT / "agent" / "tools").glob("*.py"),
                               *(ROOT / "agent" / "compression").glob("*.py")]
             if "agent.agent" in _imported(path)]
    assert users == []


def test_provider_facts_live_in_their_room():
    """Provider and model-family names are checked in agent/providers/ only: everything
    else asks the registry (ARCHITECTURE.md, "How to add a provider")."""
    from agent.providers.registry import names

    provider_names = set(names())
    found = []
    for name, path in _modules().items():
        if name == "agent.providers" or name.startswith("agent.providers."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in provider_names | {"claude"}:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert found == []


def test_modules_stay_small():
    big = []
    for path in _modules().values():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            big.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert not big, "split these by concept:\n" + "\n".join(big)


@pytest.mark.wire
def test_nothing_happens_at_import(tmp_path):
    """Importing every module creates no files, prints nothing, loads no SDK."""
    home = tmp_path / "home"
    modules = sorted(name for name, path in _modules().items() if path.name != "__main__.py")
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "heavy = [m for m in ('anthropic', 'openai') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                            env={"HERMES_HOME": str(home), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "HEAVY []", result.stdout
    assert result.stderr == ""
    assert not home.exists()


def test_tests_share_helpers_only_through_the_helper_module():
    """Shared test code lives in tests/helpers.py (and tests/fakes/); no test imports
    another test file or a conftest."""
    bad = []
    for path in (ROOT / "tests").rglob("*.py"):
        for name in _imported(path):
            parts = name.split(".")
            if parts[0] == "tests" and any(p == "conftest" or p.startswith("test_")
                                           for p in parts[1:]):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert bad == []


def test_money_is_formatted_in_one_place():
    """Every dollar amount goes through agent.usage.usd (a fixed number of places
    printed a $0.000001 limit as $0.00)."""
    import re

    fixed = re.compile(r"\$\{[^}]*:,?\.\d+f\}")
    bad = [f"{path.relative_to(ROOT)}:{n}" for path in _modules().values()
           for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
           if fixed.search(line)]
    assert bad == []
