"""HERMES_HOME's modes: private at creation, fixed on start."""

from __future__ import annotations

import os
from pathlib import Path

from memory.private import secure_home
from memory.store import SessionStore


def _mode(path: Path) -> str:
    return oct(path.stat().st_mode & 0o777)


def test_a_new_store_is_private_with_its_wal(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        home = tmp_path / "fresh"
        store = SessionStore(home / "state.db")
        store.db.execute("CREATE TABLE IF NOT EXISTS t (x)")
        store.db.execute("INSERT INTO t VALUES (1)")
        wal = home / "state.db-wal"
        assert wal.exists()
        assert (_mode(home), _mode(home / "state.db"), _mode(wal)) == ("0o700", "0o600", "0o600")
    finally:
        os.umask(old)


def test_start_fixes_an_old_home(tmp_path: Path) -> None:
    home = tmp_path / "old"
    (home / "memories").mkdir(parents=True)
    files = [home / n for n in ("state.db", "state.db-wal", "state.db-shm", "gateway.db",
                                "repl_history", ".env", "config.yaml")] + [home / "memories" / "MEMORY.md"]
    for f in files:
        f.write_text("x")
        f.chmod(0o644)
    home.chmod(0o755)
    (home / "memories").chmod(0o755)
    secure_home(home)
    assert _mode(home) == "0o700" and _mode(home / "memories") == "0o700"
    assert {f.name: _mode(f) for f in files} == {f.name: "0o600" for f in files}
