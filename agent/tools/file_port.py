"""Where the file tools' text goes last: the local disk, or a front end's port.

By default read_file, patch and write_file read and write the disk beneath the path's
root (agent/tools/file_open.py, safefs). A front end whose user edits in another program
may give the agent a `FilePort` (`AIAgent.use_files`) - only one that does not resolve the
path by name again later: ACP's editor would, after a sandboxed command swapped it for a
link, so `hermes acp` uses none (hermes_acp/client_io.py). The tools then read and write
through it - after the file policy,
plan mode, the permission rules and the /undo checkpoint have applied, exactly as for a
local write, and after the local open that refuses links out and hidden targets. The port
replaces only the last step: the bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class FilePort(Protocol):
    """Reads and writes whole text files for the tools; raises agent.errors.ToolError
    with a line the model can act on when the other side refuses or fails. None from
    `read_text`, False from `write_text`: not offered now, the disk is used."""

    def read_text(self, path: Path) -> str | None: ...

    def write_text(self, path: Path, text: str) -> bool: ...
