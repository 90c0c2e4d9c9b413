"""The host's home as the sandbox shows it: empty, except an allowlist.

Inside the sandbox $HOME is an empty read-only directory (a tmpfs, agent/sandbox/linux.py
`hide_home`) into which only these are bound back:
- the session's writable roots that live in the home (the workspace), read-write;
- `DEFAULT_ALLOW` below (git's own configuration, package caches and user-installed
  toolchains), read-only: a command can use a cache but not poison what the host's pip,
  npm or cargo installs later;
- `sandbox.home_allow` from config.yaml, read-only (CLI only).
Everything else in the home (`~/.npmrc`, `~/.pypirc`, `~/.bash_history`, cloud
credentials, documents) does not exist for a command, and the file tools refuse it
with the same judgement (`HomeView.hides`, consulted by `Policy.is_hidden`).
Gateway tenants get no allowlist at all: only their own workspace.
When the workspace is the home itself (or holds it), the user chose to work there and
nothing is hidden beyond the secret locations.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_ALLOW = (
    ".gitconfig", ".config/git",  # git's identity, aliases, ignores
    ".cache/pip", ".cache/uv", ".npm/_cacache", ".cargo/registry", ".cargo/git",  # caches
    ".local/bin", ".local/lib", ".cargo/bin", ".rustup", ".nvm", ".pyenv", "go/pkg/mod",  # toolchains
)
# secrets inside allowed folders: covered like the other hidden paths
HIDDEN_INSIDE = (".config/git/credentials",)


@dataclass(frozen=True)
class HomeView:
    """What of `home` the sandbox shows: `allow` (absolute, as written and resolved)."""

    home: str
    allow: tuple[str, ...]

    def hides(self, path: str, shown: tuple[str, ...] = ()) -> bool:
        """True for a path beneath the home that is neither allowed, nor inside one of
        `shown` (the writable roots), nor a folder on the way to one of them."""
        if not path.startswith(self.home.rstrip("/") + "/"):
            return False
        for root in (*self.allow, *shown):
            if path == root or path.startswith(root.rstrip("/") + "/"):
                return False
            if root.startswith(path.rstrip("/") + "/"):
                return False  # ~/.config on the way to ~/.config/git: listed, its rest hidden
        return True

    def mounts(self, shown: tuple[str, ...]) -> list[str]:
        """The paths to bind back into the empty home, outermost only, existing ones."""
        inner = [p for p in (*shown, *self.allow) if p.startswith(self.home.rstrip("/") + "/")]
        found = sorted({p for p in inner if os.path.exists(p)})
        return [p for p in found if not any(p.startswith(q.rstrip("/") + "/") for q in found)]


def home_view(home: str, extra: list[str], defaults: bool,
              writable: tuple[str, ...]) -> HomeView | None:
    """The session's view of `home` (None: the home is not hidden - it is `/`, missing,
    or inside a writable root). `extra`: the configured entries, already expanded."""
    home = os.path.realpath(home)
    if home == "/" or not os.path.isdir(home):
        return None
    if any(home == w or home.startswith(w.rstrip("/") + "/") for w in writable):
        return None
    names = [os.path.join(home, n) for n in DEFAULT_ALLOW] if defaults else []
    allow: list[str] = [w for w in writable if w.startswith(home + "/")]  # kept read-only in plan mode
    for path in [*names, *extra]:
        for form in (os.path.abspath(path), os.path.realpath(path)):
            if form not in allow:
                allow.append(form)
    return HomeView(home, tuple(allow))


def hidden_inside(home: str) -> list[str]:
    """Secret files inside default-allowed folders, to add to the policy's hidden list."""
    return [os.path.join(home, n) for n in HIDDEN_INSIDE]


def check_entries(entries: tuple[str, ...], home: str) -> list[str]:
    """The `sandbox.home_allow` entries that are not a path beneath the home."""
    home = home.rstrip("/")
    bad = []
    for entry in entries:
        text = entry.replace("$HOME", home).replace("${HOME}", home)
        text = home + text[1:] if text == "~" or text.startswith("~/") else text
        norm = os.path.normpath(text)
        if not os.path.isabs(norm) or not norm.startswith(home + "/"):
            bad.append(entry)
    return bad
