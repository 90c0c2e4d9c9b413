"""The environment tool processes get: the parent's, minus anything secret.

Removed: provider keys, HERMES_API_KEY, every name HERMES_HOME/.env sets, and names that
look like keys, tokens, secrets, passwords, credentials or database URLs (which carry a
password: HERMES_DATABASE_URL opens every tenant's sessions). `pass_env` names survive.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

SECRET_NAME = re.compile(
    r"(?:^|_)(?:API_?KEY|KEY|KEYS|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PWD_HASH|"
    r"CREDENTIALS?|AUTH|PRIVATE|SESSION|COOKIE|DSN|DATABASE_URL|DB_URL)(?:_|$)"
    r"|ACCESS_KEY|SECRET|TOKEN|PASSW",
    re.IGNORECASE,
)
ALWAYS = frozenset({"HERMES_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY",
                    "ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GROQ_API_KEY",
                    "MISTRAL_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY", "TOGETHER_API_KEY",
                    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"})
KEEP = frozenset({"PWD", "OLDPWD", "GPG_TTY", "KEYTIMEOUT"})


def is_secret_name(name: str) -> bool:
    return name in ALWAYS or (name not in KEEP and bool(SECRET_NAME.search(name)))


def scrub(environ: Mapping[str, str], dotenv_names: Iterable[str] = (),
          pass_env: Iterable[str] = ()) -> dict[str, str]:
    """A copy of `environ` without secrets (see the module docstring)."""
    allowed, from_dotenv = set(pass_env), set(dotenv_names)
    return {k: v for k, v in environ.items()
            if k in allowed or not (k in from_dotenv or is_secret_name(k))}
