"""Typed settings: HERMES_HOME, config.yaml and .env (which provider and model they
choose: frontend/config/provider_choice.py).

Precedence for provider settings: CLI flag > config.yaml > the provider's own env vars
(its spec's `key_var` / `url_var`, e.g. ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, which
may come from HERMES_HOME/.env) > SDK defaults. A base URL set by env is never
overridden by a hard-coded one. Which providers exist and what they need: the registry
(agent/providers/registry.py).

The database URL carries the password to every tenant's sessions: a `.env` line
`HERMES_DATABASE_URL=...` is kept in `Settings.database_url`, never put into the
process environment (frontend/config/store_setup.py reads it from there).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.errors import ConfigError
from agent.providers import registry
from frontend.config.dotenv_rules import LOADED, dotenv_value
from frontend.config.schema import unknown_keys

# How each expected type is named to a person.
_KIND_WORDS = {int: "a whole number", float: "a number", str: "text", bool: "true or false",
               list: "a list", dict: "a mapping (key: value pairs)"}
# Examples of the right shape for settings whose default does not show it.
_EXAMPLES = {
    "toolsets": "toolsets: [file, terminal]",
    "skills": "skills: [debugging]",
    "prices": "prices: {my-model: {input: 3.0, output: 15.0}}",
    "personalities": "personalities: {pirate: Talk like a pirate.}",
    "context_windows": "context_windows: {my-model: 128000}",
    "model": "model: claude-sonnet-4-5",
    "fallback_model": "fallback_model: claude-haiku-4-5",
    "provider": f"provider: {registry.SPECS[0].name}",
}


def _kind_words(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if set(kinds) == {int, float}:
        return _KIND_WORDS[float]
    return " or ".join(_KIND_WORDS.get(k, k.__name__) for k in kinds)


def _example(dotted: str, default: Any) -> str:
    """How `dotted` looks when right, as YAML (nested keys as a flow mapping)."""
    if dotted in _EXAMPLES:
        return _EXAMPLES[dotted]
    if default is None or isinstance(default, dict | list):
        return ""
    value = str(default).lower() if isinstance(default, bool) else default
    *sections, leaf = dotted.split(".")
    text = f"{leaf}: {value}"
    for section in reversed(sections):
        text = f"{section}: {{{text}}}"
    return text


def hermes_home(environ: dict[str, str] | None = None) -> Path:
    """HERMES_HOME, default ~/.hermes (not created here)."""
    env = os.environ if environ is None else environ
    value = env.get("HERMES_HOME")
    return Path(value).expanduser() if value else Path.home() / ".hermes"


def check_home(home: Path) -> None:
    """Refuse a HERMES_HOME that exists but is not a directory (say how to fix it)."""
    if home.exists() and not home.is_dir():
        raise ConfigError(
            f"HERMES_HOME {home} is a file, not a directory",
            "point HERMES_HOME at a directory (unset it to use ~/.hermes); hermes keeps "
            "config.yaml, .env, state.db and memories/ there",
        )


def _read_text(path: Path, what: str) -> str | None:
    """A settings file's text; None when it does not exist; ConfigError when unusable.
    `what` says what belongs in the file ("KEY=VALUE lines")."""
    try:
        return _read_regular(path).decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text (is it a binary file?)",
                          f"it should hold {what}: save it as UTF-8 text, or move it "
                          "aside") from None
    except IsADirectoryError:
        raise ConfigError(f"{path} is a directory, not a file",
                          f"move it aside and write a file of {what} there") from None
    except PermissionError:
        raise ConfigError(f"{path}: permission denied",
                          f"let your user read it: chmod u+r {path}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None


def _read_regular(path: Path) -> bytes:
    """The bytes of `path` if it is a regular file. Opened without blocking, so a FIFO or
    a device (which would hang the start, or never end) is refused, not read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(path)
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
            raise ConfigError(f"{path} is {kind}, not a regular file",
                              "settings are read only from regular files: move it aside and "
                              "write a file there")
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return stream.read()
    finally:
        os.close(fd)


def _depth(data: Any, limit: int) -> bool:
    """Whether `data` nests lists/mappings deeper than `limit` (walked without recursion;
    a node YAML aliases many times is walked once per depth, so `&a [*b, *b]` chains stay
    cheap)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    seen: dict[int, int] = {}
    while stack:
        node, level = stack.pop()
        if level > limit:
            return True
        if seen.get(id(node), 0) >= level:
            continue
        seen[id(node)] = level
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, level + 1) for child in children)
    return False


#: .env names kept out of the environment (secrets only hermes itself reads)
SETTINGS_ONLY = ("HERMES_DATABASE_URL",)


def load_dotenv(path: Path, environ: dict[str, str] | None = None,
                kept: dict[str, str] | None = None) -> None:
    """Load KEY=VALUE lines into the environment without overriding what is set; with
    `kept`, the SETTINGS_ONLY names go there instead of into the environment."""
    env = os.environ if environ is None else environ
    text = _read_text(path, "KEY=VALUE lines")
    if text is None:
        return
    lines = text.lstrip("\ufeff").splitlines()
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[7:].lstrip()
        key, sep, value = line.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ConfigError(f"{path} line {number}: expected KEY=VALUE, got {clip(raw)!r}",
                              "fix or remove that line (comments start with #)")
        key = key.strip()
        target = kept if kept is not None and key in SETTINGS_ONLY else env
        if target is os.environ and key not in target:
            LOADED.add(key)
        target.setdefault(key, dotenv_value(value))


MAX_DEPTH = 32  # config.yaml's deepest setting is 4 levels (mcp_servers.x.env.NAME)


def load_yaml(path: Path) -> dict[str, Any]:
    """Parse config.yaml; a syntax error names the line. Missing file -> {}."""
    text = _read_text(path, "`key: value` settings in YAML")
    if text is None:
        return {}
    import yaml

    try:
        data = yaml.load(text, Loader=_loader())  # noqa: S506 - a SafeLoader (below)
    except RecursionError:
        data = None
        deep = True
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}{where}: {exc.problem or exc}",
                          "fix the YAML syntax there (indentation, a missing colon, quotes)") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})",
                          "fix the YAML syntax (settings are `key: value` lines)") from None
    else:
        deep = _depth(data, MAX_DEPTH)
    if deep:
        raise ConfigError(f"{path}: settings nested more than {MAX_DEPTH} levels deep",
                          "no setting nests that deep: fix the file (a runaway of [ or { ?)")
    if data is None:
        return {}
    if not isinstance(data, dict):
        shape = "a list" if isinstance(data, list) else "a single value"
        raise ConfigError(f"{path}: the top level must be a mapping of settings (key: value), "
                          f"not {shape}",
                          "write one setting per line, e.g. `model: claude-sonnet-4-5`")
    return data


_BOOL_WORDS = {"on": True, "yes": True, "off": False, "no": False}


def _loader() -> Any:
    """YAML 1.2's booleans (true/false only): `keep_warm: off` and `thinking: off` stay the
    words their settings expect; a setting that wants true/false also takes on/off/yes/no
    (Settings.get)."""
    import yaml

    class ConfigLoader(yaml.SafeLoader):
        pass

    ConfigLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    ConfigLoader.add_implicit_resolver("tag:yaml.org,2002:bool",
                                       re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                       list("tTfF"))
    return ConfigLoader


def clip(text: str, width: int = 40) -> str:
    text = text.strip()
    return text if len(text) <= width else text[: width - 3] + "..."


@dataclass
class Settings:
    """The user's configuration, validated."""

    home: Path
    raw: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: (URL, where it came from) of the session database from .env or a gateway flag
    #: (--database-url, --database-url-file); never in os.environ (store_setup.py)
    database_url: tuple[str, str] | None = None

    def get(self, dotted: str, default: Any = None, kind: type | tuple[type, ...] | None = None) -> Any:
        """A value by dotted path ("cache.ttl"), type-checked with a clear error.

        A section that is not a mapping (`cache: 5m` where `cache: {ttl: 5m}` is meant)
        is an error too, never silently ignored."""
        node: Any = self.raw
        parts = dotted.split(".")
        for depth, part in enumerate(parts):
            if node is None:
                return default
            if not isinstance(node, dict):
                section = ".".join(parts[:depth])
                raise ConfigError(
                    f"config.yaml: `{section}` must be a mapping of settings, got {_shown(node)}",
                    f"write it as a section, e.g. `{section}: {{{part}: ...}}`, in "
                    f"{self.home / 'config.yaml'}")
            if part not in node:
                return default
            node = node[part]
        if node is None:
            return default
        if kind is None:
            return node
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if bool in kinds and isinstance(node, str) and node.lower() in _BOOL_WORDS:
            node = _BOOL_WORDS[node.lower()]
        if not isinstance(node, kinds) or isinstance(node, bool) and bool not in kinds:
            example = _example(dotted, default)
            hint = f"edit {self.home / 'config.yaml'}" + (f", e.g. `{example}`" if example else "")
            raise ConfigError(f"config.yaml: `{dotted}` must be {_kind_words(kind)}, "
                              f"got {_shown(node)}", hint)
        return node

    def number(self, dotted: str, default: float, *, lo: float | None = None,
               hi: float | None = None, whole: bool = False, above: bool = False) -> Any:
        """A numeric setting within [lo, hi] (`above`: strictly greater than lo)."""
        value = self.get(dotted, default, kind=int if whole else (int, float))
        if value != value or value in (float("inf"), float("-inf")):  # .nan, .inf in YAML
            raise ConfigError(f"config.yaml: `{dotted}` must be a finite number, got {value!r}",
                              f"edit {self.home / 'config.yaml'} (default: {default})")
        too_low = lo is not None and (value <= lo if above else value < lo)
        if too_low or hi is not None and value > hi:
            bounds = (f"greater than {lo:g}" if above else f"at least {lo:g}") if lo is not None else ""
            if hi is not None:
                bounds = f"between {lo:g} and {hi:g}" if lo is not None else f"at most {hi:g}"
            raise ConfigError(f"config.yaml: `{dotted}` must be {bounds}, got {value!r}",
                              f"edit {self.home / 'config.yaml'} (default: {default})")
        return value


def _shown(value: Any) -> str:
    """A value as the user wrote it, briefly (binary-safe, one line)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def load_settings(home: Path | None = None) -> Settings:
    """Read HERMES_HOME/.env (into the environment) and config.yaml."""
    home = home or hermes_home()
    check_home(home)
    kept: dict[str, str] = {}
    load_dotenv(home / ".env", kept=kept)
    raw = load_yaml(home / "config.yaml")
    settings = Settings(home=home, raw=raw)
    if kept.get("HERMES_DATABASE_URL"):
        settings.database_url = (kept["HERMES_DATABASE_URL"], f"{home / '.env'}: HERMES_DATABASE_URL")
    settings.warnings.extend(unknown_keys(raw))
    settings.warnings.extend(_implausible_windows(raw.get("context_windows")))
    return settings


PLAUSIBLE_WINDOW = (1_024, 20_000_000)  # tokens


def _implausible_windows(table: Any) -> list[str]:
    """Warnings for context_windows values no model has (typos like `10` or `128`)."""
    if not isinstance(table, dict):
        return []
    lo, hi = PLAUSIBLE_WINDOW
    return [f"config.yaml: `context_windows.{model}` is {value:,} tokens, which no model has "
            f"(expected {lo:,} to {hi:,}); compression and /usage will misjudge it - write "
            f"the window in tokens, e.g. 128000"
            for model, value in table.items()
            if isinstance(value, int) and not isinstance(value, bool) and value >= 1
            and not lo <= value <= hi]
