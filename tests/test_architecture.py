"""The house rules that keep the code base clean, checked on every run.

ARCHITECTURE.md (repository root) states these rules; this file checks them."""

from __future__ import annotations

import ast
import functools
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


def _modules(root: Path = ROOT) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            name = ".".join(path.relative_to(root).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _imported(path: Path) -> set[str]:
    """Every module name an import statement in `path` names (top level, in functions
    and under TYPE_CHECKING alike), with `from a import b` also naming `a.b`. Parsed
    once per content: the rules below read every module's imports many times."""
    return set(_imports_of(path, path.stat().st_mtime_ns))


@functools.cache
def _imports_of(path: Path, _mtime_ns: int) -> frozenset[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(found)


def _pure_data() -> set[str]:
    """The chat platforms' facts (gateway/chat/kit/facts.py): pure data every layer may
    import - the registry, the facts type and each platform's facts.py."""
    found = {"gateway.chat.platforms", "gateway.chat.kit.facts"}
    found.update(name for name in _modules() if name.startswith("gateway.chat.")
                 and name.endswith(".facts"))
    return found


def _is_pure(name: str, pure: set[str]) -> bool:
    """`name` (as `_imported` lists it) is a pure-data module, a package on the way to
    one, or a name taken from one (`from gateway.chat.kit.facts import PlatformFacts`)."""
    return name in pure or name.rpartition(".")[0] in pure or any(
        p.startswith(name + ".") for p in pure)


def _roots(path: Path) -> set[str]:
    pure = _pure_data()
    return {name.split(".")[0] for name in _imported(path) if not _is_pure(name, pure)}


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


# ---------------------------------------------------------------- rooms
# A room is a subfolder or a flat module of a package (its first name below the package).
# Rooms of every package and subpackage form no circle; in `agent/` every import between
# rooms points down this order (bottom first) - a new room must be placed in it. Elsewhere
# the order is derived: no circle means a topological order exists, so nothing points up.
AGENT_ROOMS = (
    # the vocabulary every room shares: errors, token counts, the neutral request types
    "errors", "retry", "tokens", "usage", "cancel", "images", "events", "messages", "prompts",
    # the wire: provider facts, cache models and adapters; miss diagnosis; prices, budgets
    "providers", "diagnosis", "cost",
    # what a tool may touch and the tools
    "sandbox", "permissions", "hooks", "checkpoints", "cron", "tools", "subagent",
    # installation settings, MCP servers, a session's state
    "config", "mcp", "sessions",
    # a turn: observers, the loop, hook seams, model calls, caches across pauses, compaction
    "observe", "otel", "loop", "seams", "modelcall", "cache", "compression",
    # the composition root
    "session_edits", "agent",
)
ROOM_ORDERS = {"agent": AGENT_ROOMS}


def _packages(root: Path = ROOT) -> list[str]:
    """Every package and subpackage of ours (dotted)."""
    return sorted(".".join(p.parent.relative_to(root).parts) for name in PACKAGES
                  for p in (root / name).rglob("__init__.py"))


def room_imports(package: str, root: Path = ROOT) -> dict[str, dict[str, list[str]]]:
    """room -> room it imports -> the module imports ("a -> b") that make the edge."""
    depth = package.count(".") + 1
    modules = _modules(root)
    edges: dict[str, dict[str, list[str]]] = {}
    for name, path in modules.items():
        parts = name.split(".")
        if parts[:depth] != package.split(".") or len(parts) == depth:
            continue
        mine = edges.setdefault(parts[depth], {})
        for other in _imported(path):
            there = other.split(".")
            if (other in modules and other != name and there[:depth] == parts[:depth]
                    and len(there) > depth and there[depth] != parts[depth]):
                mine.setdefault(there[depth], []).append(f"{name} -> {other}")
    return edges


def _order(edges: dict[str, dict[str, list[str]]]) -> list[str]:
    """A bottom-first order for rooms without an explicit one: by the longest import chain
    below each room; inside a circle (a tree being measured) the room importing fewer of
    the circle's rooms counts as lower."""
    graph = {room: set(targets) for room, targets in edges.items()}
    circle = {room: group for group in _cycles(graph) for room in group}
    level: dict[str, int] = {}

    def height(room: str, seen: frozenset[str] = frozenset()) -> int:
        if room not in level:
            below = [other for other in graph.get(room, ()) if other not in seen
                     and other not in circle.get(room, ())]
            level[room] = 1 + max((height(o, seen | {room}) for o in below), default=-1)
        return level[room]

    inner = {room: len(graph[room] & set(circle.get(room, ()))) for room in graph}
    return sorted(graph, key=lambda room: (height(room), inner[room], room))


def room_figures(package: str, root: Path = ROOT) -> dict[str, object]:
    """Rooms, rooms inside a circle, and imports from a lower room to a higher one (as
    module imports) of `package` - the figures a reorganisation reports before and after."""
    edges = room_imports(package, root)
    graph = {room: set(targets) for room, targets in edges.items()}
    circles = _cycles(graph)
    order = list(ROOM_ORDERS.get(package, ())) or _order(edges)
    rank = {room: i for i, room in enumerate(order)}
    up = [imp for room, targets in edges.items() for target, imports in targets.items()
          if rank.get(target, -1) > rank.get(room, len(rank)) for imp in imports]
    return {"rooms": len(edges), "in_circles": sum(len(c) for c in circles),
            "circles": circles, "up": up, "unplaced": sorted(set(edges) - set(rank))}


def test_rooms_form_no_circle_and_every_import_between_rooms_points_down():
    found = []
    for package in _packages():
        figures = room_figures(package)
        for key in ("circles", "up", "unplaced"):
            if figures[key]:
                found.append(f"{package} {key}: {figures[key]}")
    assert found == []


def test_tools_and_compression_never_see_the_agent():
    """Tools get typed services; compression takes a Session (ARCHITECTURE.md)."""
    users = [path for path in [*(ROOT / "agent" / "tools").glob("*.py"),
                               *(ROOT / "agent" / "compression").glob("*.py")]
             if "agent.agent" in _imported(path)]
    assert users == []


def test_platform_facts_are_pure_data():
    """What every layer may import of gateway/ (`_pure_data`) imports only the standard
    library, `__future__` and itself, and the packages it sits in import nothing: so
    agent/cron/targets.py reading the facts loads no adapter, SDK or gateway code."""
    modules = _modules()
    pure = _pure_data()
    bad = []
    for name in sorted(pure):
        for imported in _imported(modules[name]):
            root = imported.split(".")[0]
            if root in PACKAGES and not _is_pure(imported, pure) or root not in PACKAGES and root not in sys.stdlib_module_names:
                bad.append(f"{name} imports {imported}")
        parts = name.split(".")
        for depth in range(1, len(parts)):
            package = ".".join(parts[:depth])
            if package in modules and _imported(modules[package]):
                bad.append(f"{package} (holding {name}) imports {sorted(_imported(modules[package]))}")
    assert not bad, "\n".join(bad)


def _platform_mentions(facts) -> list[str]:
    """Production files outside the platform's package that name it in code: a string
    constant holding its name (docstrings and comments aside) or an import of its package."""
    import re

    home = facts.package.replace(".", "/")
    word = re.compile(rf"(?<![a-z]){re.escape(facts.name)}(?![a-z])", re.IGNORECASE)
    found = []
    for path in _modules().values():
        rel = str(path.relative_to(ROOT))
        if rel.startswith(home + "/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(node.body[0].value) for node in ast.walk(tree)
                if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                and node.body and isinstance(node.body[0], ast.Expr)
                and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            named = isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docs and word.search(node.value)
            imported = isinstance(node, ast.ImportFrom) and (node.module or "").startswith(facts.package)
            if named or imported:
                found.append(rel)
                break
    return sorted(found)


def test_a_platform_is_named_outside_its_package_at_most_twice():
    """A chat platform lives in its package: its name appears in code (not prose) in at
    most two production files outside it - the registry (gateway/chat/platforms.py) and
    one more (Discord was named in 8)."""
    from gateway.chat.platforms import PLATFORMS

    over = {p.name: files for p in PLATFORMS if len(files := _platform_mentions(p)) > 2}
    assert over == {}


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
