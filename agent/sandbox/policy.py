"""What the tools may write and what they may never see.

`SandboxSettings` is the user's say (config `sandbox:` / `--no-sandbox`); `Policy` is
its resolved form for one session: absolute, symlink-free paths. Writable roots are the
session's workspace (its starting working directory) and configured extras; the terminal
also writes its session's private /tmp (agent/sandbox/session.py), never the system temp
directory. Hidden paths are HERMES_HOME and the usual credential stores under
$HOME plus configured extras; they stay hidden even inside a writable root.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.sandbox.home import HomeView, hidden_inside, home_view

HOME_SECRETS = (".ssh", ".aws", ".gnupg", ".netrc", ".config/gh", ".docker/config.json",
                ".git-credentials", ".pgpass", ".kube/config", ".hermes")


@dataclass(frozen=True)
class SandboxSettings:
    """The user's sandbox choices. `enabled=False` is `--no-sandbox` (warned at start)."""

    enabled: bool = True
    writable: tuple[str, ...] = ()  # extra writable directories
    hidden: tuple[str, ...] = ()  # extra secret locations
    env_allow: tuple[str, ...] = ()  # variables the tools may see beyond the base allowlist
    network: str = "public"  # "off" (loopback of its own) | "public" | "on"
    allow_arming: tuple[str, ...] = ()  # entries of agent/sandbox/arming.py ARMING let through
    home_allow: tuple[str, ...] = ()  # what of $HOME is shown beyond the defaults (agent/sandbox/home.py)
    home_defaults: bool = True  # the default home allowlist; False for gateway tenants
    shown: tuple[str, ...] = ()  # files read-only wherever they are (a hook's script and
    # interpreter): in the home through home_view, under the private /tmp shown through
    readonly: tuple[str, ...] = ()  # paths in the writable roots commands may not change
    # (a write deny rule's files: agent/permissions/enforce.py), bound read-only when they exist


@dataclass(frozen=True)
class Policy:
    """Resolved for one session; hashable, so backends can cache per policy."""

    workspace: str
    writable: tuple[str, ...]
    hidden: tuple[str, ...]
    env_allow: tuple[str, ...] = ()
    network: str = "public"
    allow_arming: tuple[str, ...] = ()  # see agent/sandbox/arming.py
    home_view: HomeView | None = None  # the home shown empty but for an allowlist (agent/sandbox/home.py)
    shown: tuple[str, ...] = ()  # SandboxSettings.shown, resolved
    readonly: tuple[str, ...] = ()  # SandboxSettings.readonly, resolved

    @property
    def exposed(self) -> tuple[str, ...]:
        """Writable roots inside a hidden location (a gateway tenant's workspace under
        HERMES_HOME): shown through the cover, the rest of the location stays hidden."""
        return tuple(w for w in self.writable if inside_any(w, self.hidden))

    def may_write(self, path: str | os.PathLike[str]) -> bool:
        real = os.path.realpath(path)
        return inside_any(real, self.writable) and not self.is_hidden(real)

    def is_hidden(self, path: str | os.PathLike[str]) -> bool:
        """Both the path as given (normalised) and its real path are checked."""
        for candidate in {os.path.realpath(path), os.path.abspath(path)}:
            if inside_any(candidate, self.hidden) and not inside_any(candidate, self.exposed):
                return True
            if self.home_view is not None and self.home_view.hides(candidate, self.writable):
                return True
        return False

    def clear_beneath(self, folder: str) -> bool:
        """True when nothing at or beneath the real directory `folder` is hidden (paths
        reached from it without following a link), so a walk need not ask `is_hidden` of
        each entry: no hidden location lies beneath it, and the home view hides nothing
        there (it is outside the home, or inside a root the view shows)."""
        if self.is_hidden(folder) or any(inside(h, folder) for h in self.hidden):
            return False
        view = self.home_view
        if view is None or inside_any(folder, (*view.allow, *self.writable)):
            return True
        return not inside(folder, view.home) and not inside(view.home, folder)


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def inside_any(path: str, roots: tuple[str, ...]) -> bool:
    return any(inside(path, root) for root in roots)


def _unique(paths: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for path in paths:
        if path not in out:
            out.append(path)
    return tuple(out)


def build_policy(settings: SandboxSettings, hermes_home: Path, workspace: Path,
                 environ: Mapping[str, str] | None = None) -> Policy:
    """The session's policy: symlinks and `..` resolved, `~` and $VARS expanded."""
    env = os.environ if environ is None else environ
    home = env.get("HOME") or os.path.expanduser("~")

    def real(raw: str) -> str:
        text = raw.replace("$HOME", home).replace("${HOME}", home)
        if text == "~" or text.startswith("~/"):
            text = home + text[1:]
        return os.path.realpath(os.path.expandvars(text))

    writable = [real(str(workspace))]
    writable += [real(p) for p in settings.writable]
    hidden = [real(str(hermes_home))] + [real(os.path.join(home, s)) for s in HOME_SECRETS]
    hidden += [real(p) for p in settings.hidden]
    # as written and resolved: a link (a venv's bin/python) must show where it is, too
    shown = _unique([os.path.abspath(os.path.expanduser(p)) for p in settings.shown]
                    + [real(p) for p in settings.shown])
    view = home_view(home, [real(p) for p in (*settings.home_allow, *settings.shown)],
                     settings.home_defaults, _unique(writable))
    hidden += hidden_inside(view.home) if view is not None else []
    return Policy(workspace=real(str(workspace)), writable=_unique(writable),
                  hidden=_unique(hidden), env_allow=tuple(settings.env_allow),
                  network=settings.network, allow_arming=tuple(settings.allow_arming), home_view=view,
                  shown=shown, readonly=_unique([real(p) for p in settings.readonly]))

