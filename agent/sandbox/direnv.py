"""The files direnv loads into the user's shell besides `.envrc`.

direnv runs a directory's `.envrc` when the user's shell enters it; the `.envrc` may load
more: `dotenv [FILE]` and `dotenv_if_exists [FILE]` (default `.env`), `source_env FILE`
and `source_env_if_exists FILE` (a file, or a folder's `.envrc`). With `load_dotenv =
true` in direnv.toml, direnv loads `.env` with no `.envrc` at all. A variable from those
files is exported to every later command of that shell (`BASH_ENV=./evil.sh` runs
`evil.sh` at the start of the user's next `bash` script), so they arm a later run like
`.envrc` itself: the arming guard and the protected mounts treat them alike.
"""

from __future__ import annotations

import os
import shlex
import stat
import tomllib

LOADERS = {"dotenv": ".env", "dotenv_if_exists": ".env", "source_env": None,
           "source_env_if_exists": None}
MAX_ENVRC = 65536  # bytes of an .envrc read


def loads_dotenv_always(environ: dict[str, str] | None = None) -> bool:
    """direnv.toml (or config.toml) says `load_dotenv = true` (`[global]` or top level)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or os.path.join(env.get("HOME") or "/", ".config")
    for name in ("direnv.toml", "config.toml"):
        try:
            with open(os.path.join(env.get("DIRENV_CONFIG") or os.path.join(base, "direnv"), name),
                      "rb") as handle:
                data = tomllib.load(handle)
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        section = data.get("global")
        for table in (data, section if isinstance(section, dict) else {}):
            if table.get("load_dotenv") is True:
                return True
    return False


def loaded_names(folder: str, always_dotenv: bool) -> list[str]:
    """Paths relative to `folder` (normalised, never `..` out of it) that direnv loads
    from there besides `.envrc`, read from `folder/.envrc` (not following a link)."""
    names = {".env"} if always_dotenv else set()
    text = _read(os.path.join(folder, ".envrc"))
    for line in text.splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        for index, word in enumerate(words):
            if word not in LOADERS:
                continue
            args = [w for w in words[index + 1:] if not w.startswith("-")][:1]
            default = LOADERS[word]
            target = args[0] if args and args[0] not in (";", "&&", "||") else default
            if target is None:
                continue
            if word.startswith("source_env") and not target.endswith(".envrc") \
                    and os.path.isdir(os.path.join(folder, target)):
                target = os.path.join(target, ".envrc")
            rel = os.path.relpath(os.path.normpath(os.path.join(folder, target)), folder)
            if not rel.startswith(".."):
                names.add(rel)
    return sorted(names)


def _read(path: str) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, MAX_ENVRC).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)
