"""The house rules that keep the code base clean, checked on every run."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agent", "memory", "skills", "hermes_cli", "gateway")
# package -> packages it must never import
FORBIDDEN = {
    "agent": {"hermes_cli", "gateway"},
    "memory": {"agent", "hermes_cli", "gateway", "skills"},
    "skills": {"agent", "hermes_cli", "gateway", "memory"},
}
# the gateway shares the CLI's configuration loading, and nothing else of it
GATEWAY_MAY_USE = {"hermes_cli.config", "hermes_cli.setup"}
MAX_LINES = 450


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_dependency_direction():
    violations = []
    for package, banned in FORBIDDEN.items():
        for path in (ROOT / package).rglob("*.py"):
            bad = _imports(path) & banned
            if bad:
                violations.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert not violations, "\n".join(violations)


def test_gateway_uses_only_the_shared_config_of_the_cli():
    for path in (ROOT / "gateway").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hermes_cli"):
                assert node.module in GATEWAY_MAY_USE, f"{path.name} imports {node.module}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("hermes_cli") or alias.name in GATEWAY_MAY_USE


def test_modules_stay_small():
    big = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_LINES:
                big.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert not big, "split these by concept:\n" + "\n".join(big)


@pytest.mark.wire
def test_nothing_happens_at_import(tmp_path):
    """Importing every module creates no files, prints nothing, loads no SDK."""
    home = tmp_path / "home"
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for package in PACKAGES
        for p in (ROOT / package).rglob("*.py")
        if p.name != "__main__.py"
    )
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
