"""Uploads are saved with no link followed and O_EXCL (in process: gateway/chat/files.py)."""

from __future__ import annotations

from pathlib import Path

from gateway.chat.base import Document
from gateway.chat.files import save
from gateway.workspaces import tenant_workspace


def _doc(name: str) -> Document:
    return Document(file_id="f", name=name, size=4)


def test_a_planted_uploads_link_is_refused(hermes_home: Path, tmp_path: Path) -> None:
    ssh = tmp_path / "fakehome" / ".ssh"
    ssh.mkdir(parents=True)
    workspace = tenant_workspace(hermes_home, "owner-a")
    (workspace / "uploads").symlink_to(ssh)
    name, problem = save(hermes_home, "owner-a", _doc("authorized_keys"), b"EVIL")
    assert (name, list(ssh.iterdir())) == ("", [])
    assert "is a link" in problem


def test_a_planted_file_link_is_never_written_through(hermes_home: Path, tmp_path: Path) -> None:
    victim = tmp_path / "USER.md"
    victim.write_text("mine\n")
    uploads = tenant_workspace(hermes_home, "owner-a") / "uploads"
    uploads.mkdir()
    (uploads / "notes.md").symlink_to(victim)
    assert save(hermes_home, "owner-a", _doc("notes.md"), b"EVIL") == ("notes-2.md", "")
    assert victim.read_text() == "mine\n"
    assert (uploads / "notes-2.md").read_bytes() == b"EVIL"
    assert save(hermes_home, "owner-a", _doc("../../x/notes.md"), b"2") == ("notes-3.md", "")
