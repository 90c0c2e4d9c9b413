"""`hermes setup`: a fresh machine's provider, key, model, network policy and (if wanted)
one chat platform - asked, or all from flags (`--provider P --api-key K [--model M]
[--base-url U] [--network N]`: no questions).

config.yaml gets `provider`, `model`, `base_url` and `sandbox.network` (every other key
and comment kept: files.py); the key goes to HERMES_HOME/.env (mode 0600) as the
provider's own variable, never printed; then doctor's provider check says whether the
provider accepts it (exit 1 when not).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

from agent.errors import ConfigError
from agent.providers import models, registry
from frontend.config.provider_choice import check_base_url
from frontend.config.settings import hermes_home, load_settings
from gateway.chat import platforms as chat_platforms
from hermes_cli.commands.config import files
from hermes_cli.commands.doctor.main import provider_check
from hermes_cli.commands.doctor.report import FAIL, render

NETWORKS = ("public", "off", "on")
PLATFORMS = {p.name: p.tokens for p in chat_platforms.PLATFORMS}  # the tokens each asks for


@dataclass
class Answers:
    provider: str
    api_key: str | None
    model: str | None = None
    base_url: str | None = None
    network: str | None = None
    platform: str | None = None
    tokens: tuple[tuple[str, str], ...] = ()


def ask_all(ask: Callable[[str], str], secret: Callable[[str], str],
            write: Callable[[str], None]) -> Answers:
    """The questions, each with its default in brackets (Enter takes it)."""
    names = [s.name for s in registry.SPECS]
    provider = ask(f"Provider ({', '.join(names)}) [{names[0]}]: ").strip() or names[0]
    spec = registry.spec_for(provider)
    base_url = ask(f"Base URL [{'required' if spec.needs_url else 'the provider default'}]: ").strip() or None
    key = secret(f"API key ({spec.key_var}; not shown){' [none]' if spec.keyless_with_url else ''}: ").strip() or None
    default = models.default_model(spec.name) or ""
    model = ask(f"Model [{default or 'required'}]: ").strip() or default or None
    write("Network for the tools' commands: public (the internet, not your LAN), off, on (everything)")
    network = ask("Network [public]: ").strip() or None
    platform = ask(f"Chat platform ({', '.join(PLATFORMS)}, or Enter for none): ").strip().lower() or None
    tokens = tuple((var, secret(f"{var} (not shown): ").strip())
                   for var in PLATFORMS.get(platform or "", ()))
    return Answers(spec.name, key, model, base_url, network, platform, tokens)


def check(answers: Answers) -> None:
    """ConfigError (one line and its fix) for an answer that cannot work."""
    if not answers.provider:
        raise ConfigError("--api-key needs --provider", "e.g. hermes setup --provider "
                          f"{registry.SPECS[0].name} --api-key KEY (or no flags: the questions)")
    spec = registry.find(answers.provider)
    if spec is None:
        raise ConfigError(f"unknown provider {answers.provider!r}",
                          f"choose one of: {', '.join(registry.names())}")
    answers.provider = spec.name
    if answers.base_url:
        check_base_url(answers.base_url, "--base-url")
    if spec.needs_url and not answers.base_url:
        raise ConfigError(f"provider {spec.name} needs --base-url (it has no default endpoint)",
                          "e.g. --base-url http://127.0.0.1:8080/v1")
    if not answers.api_key and not (spec.keyless_with_url and answers.base_url):
        raise ConfigError(f"no API key given for {spec.name}", f"pass --api-key (it is written "
                          f"to HERMES_HOME/.env as {spec.key_var}, mode 0600)")
    if answers.network is not None and answers.network not in NETWORKS:
        raise ConfigError(f"--network must be one of {', '.join(NETWORKS)}, got {answers.network!r}",
                          "public: the internet but not your LAN (the default)")
    if answers.platform is not None and answers.platform not in PLATFORMS:
        raise ConfigError(f"unknown chat platform {answers.platform!r}",
                          f"choose one of: {', '.join(PLATFORMS)}")


def write_files(answers: Answers) -> list[str]:
    """config.yaml and .env written; what was done, one line each (no secret)."""
    home = hermes_home()
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    spec = registry.spec_for(answers.provider)
    path = home / "config.yaml"
    data = files.load(path)
    files.set_key(data, "provider", answers.provider)
    for key, value in (("model", answers.model), ("base_url", answers.base_url),
                       ("sandbox.network", answers.network)):
        if value:
            files.set_key(data, key, value)
    if answers.platform and f"{answers.platform}" not in (data.get("gateway") or {}):
        files.set_key(data, f"gateway.{answers.platform}.allowed_users", [])
    files.save(path, data)
    done = [f"wrote {path}"]
    secrets = ([(spec.key_var, answers.api_key)] if answers.api_key else []) + list(answers.tokens)
    for var, value in secrets:
        if value:
            files.set_env(home / ".env", var, value)
            done.append(f"wrote {var} to {home / '.env'} (mode 0600)")
            if os.environ.get(var) and os.environ[var] != value:
                done.append(f"note: {var} is also set in your environment, which wins over "
                            ".env: unset it there")
    if answers.platform:
        done.append(f"add your user ids to gateway.{answers.platform}.allowed_users "
                    "(`hermes config set`), then run `hermes gateway`")
    return done


def run(answers: Answers | None, write: Callable[[str], None] = print) -> int:
    """Ask (when `answers` is None), write, check the provider; the exit code."""
    if answers is None:
        if not sys.stdin.isatty():
            raise ConfigError("hermes setup asks its questions on a terminal",
                              "without one pass them: hermes setup --provider anthropic "
                              "--api-key KEY [--model M] [--base-url U]")
        import getpass

        answers = ask_all(input, getpass.getpass, write)
    check(answers)
    for line in write_files(answers):
        write(line)
    result = provider_check(load_settings())
    render([result], write, "checking the provider (as `hermes doctor` does):")
    return 1 if result.state == FAIL else 0
