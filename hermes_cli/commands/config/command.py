"""`hermes config list | get KEY | set KEY VALUE | unset KEY` on HERMES_HOME/config.yaml.

`list` and `get` say each value in force and where it came from, as `/config` does
(frontend/config_view.py: one owner), defaults included. A key config.yaml cannot hold is
refused with "did you mean" (frontend/config/schema.py). `set` reads VALUE as YAML 1.2
(`5`, `true`, `[a, b]`, `off` stays a word) and refuses a value that would make the
configuration invalid: the changed settings are parsed as a session start parses them
(frontend/setup.py `agent_config`), and an error that was not there before is the
value's. Secrets are never printed.
"""

from __future__ import annotations

from collections.abc import Callable
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from agent.errors import ConfigError
from frontend.config.provider_choice import resolve_provider
from frontend.config.schema import Schema, with_platforms
from frontend.config.settings import Settings, load_settings
from frontend.config_view import Setting, default_rows, in_force, leaves, shown
from frontend.setup import Flags, agent_config
from hermes_cli.commands.config import files


def known_keys(schema: Schema | None = None, prefix: str = "") -> list[str]:
    """Every dotted key the schema names, sections included."""
    schema = with_platforms() if schema is None else schema
    out: list[str] = []
    for key, section in schema.items():
        out.append(prefix + key)
        if section is not None:
            out.extend(known_keys(section, f"{prefix}{key}."))
    return out


def check_key(dotted: str) -> None:
    """ConfigError with "did you mean" unless config.yaml may hold `dotted` (a key under
    a free-form section - a model in `prices`, a server in `mcp_servers` - is allowed)."""
    node: Schema | None = with_platforms()
    for depth, part in enumerate(dotted.split(".")):
        if node is None:
            return  # inside a section whose keys the user names
        if part not in node:
            near = get_close_matches(dotted, known_keys(), n=1, cutoff=0.6)
            guess = f"did you mean `{near[0]}`? " if near else ""
            where = ".".join(dotted.split(".")[:depth]) or "the top level"
            raise ConfigError(f"config.yaml has no setting `{dotted}` ({part!r} is not a key "
                              f"of {where})", f"{guess}`hermes config list` shows the settings")
        node = node[part]


def rows(settings: Settings) -> list[Setting]:
    """What `/config` shows for a new session of this configuration."""
    try:
        choice = resolve_provider(settings)
    except ConfigError:  # no provider yet: config.yaml's values and the defaults
        user = str(settings.home / "config.yaml")
        found = [Setting(k, shown(k, v), user) for k, v in leaves(settings.raw)]
        return found + default_rows(settings, {r.key for r in found})
    return in_force(settings, Flags(), choice.model, choice.provider)


def run_list(write: Callable[[str], None]) -> int:
    for row in rows(load_settings()):
        write(f"{row.key} = {row.value}    ({row.source})")
    return 0


def run_get(key: str, write: Callable[[str], None]) -> int:
    check_key(key)
    found = [r for r in rows(load_settings()) if r.key == key or r.key.startswith(key + ".")]
    if not found:
        write(f"{key} is not set (no default: the feature is off or chosen at run time)")
        return 0
    for row in found:
        write(f"{row.key} = {row.value}    ({row.source})" if len(found) > 1 or row.key != key
              else f"{row.value}    ({row.source})")
    return 0


def parse_value(text: str) -> Any:
    """VALUE as YAML 1.2 reads it (the booleans true/false only, as config.yaml)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return YAML(typ="rt").load(text)
    except YAMLError as exc:
        raise ConfigError(f"{text!r} is not a YAML value ({' '.join(str(exc).split())[:100]})",
                          "quote text with spaces or colons: 'like: this'") from None


def _problem(settings: Settings) -> str | None:
    """What a session start would refuse in `settings` (None: nothing)."""
    try:
        agent_config(settings, Flags(), Path.cwd())
    except ConfigError as exc:
        return exc.message
    return None


def _validated(before: Settings, raw: dict[str, Any], key: str) -> None:
    after = Settings(home=before.home, raw=raw)
    problem = _problem(after)
    if problem is not None and problem != _problem(before):
        raise ConfigError(f"not set: {problem}", f"give `{key}` a value of the right kind "
                                                 "(`hermes config get` shows the one in force)")


def as_read(data: Any) -> dict[str, Any]:
    """The edited document as every session will read it (PyYAML, hermes' loader)."""
    import tempfile

    from frontend.config.settings import load_yaml

    with tempfile.TemporaryDirectory(prefix="hermes-config-") as folder:
        staged = Path(folder) / "config.yaml"
        staged.write_text(files.dump(data), encoding="utf-8")
        return load_yaml(staged)


def run_set(key: str, text: str, write: Callable[[str], None]) -> int:
    check_key(key)
    settings = load_settings()
    path = settings.home / "config.yaml"
    data = files.load(path)
    files.set_key(data, key, parse_value(text))
    _validated(settings, as_read(data), key)
    files.save(path, data)
    write(f"{key} = {shown(key, text)}    ({path})")
    return 0


def run_unset(key: str, write: Callable[[str], None]) -> int:
    check_key(key)
    path = load_settings().home / "config.yaml"
    data = files.load(path)
    if not files.unset_key(data, key):
        write(f"{key} was not set in {path}")
        return 0
    files.save(path, data)
    write(f"{key} removed from {path}")
    return 0
