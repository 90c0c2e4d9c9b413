"""`hermes config ...` and `hermes setup`: their Typer definitions (imported at start:
typer only; the work is in command.py and wizard.py, imported when one runs)."""

from __future__ import annotations

from typing import Annotated

import typer

# Function-level imports below: each command loads its work when it runs (start-up speed).

config_app = typer.Typer(help="Read and change HERMES_HOME/config.yaml (comments and order kept).")


@config_app.command("list")
def config_list() -> None:
    """Every setting in force and where it came from (config.yaml, environment, default)."""
    from hermes_cli.commands.config import command

    raise typer.Exit(command.run_list(typer.echo))


@config_app.command("get")
def config_get(key: Annotated[str, typer.Argument(help="A dotted key: cache.ttl")]) -> None:
    """The value in force for KEY (or a section's values) and where it came from."""
    from hermes_cli.commands.config import command

    raise typer.Exit(command.run_get(key, typer.echo))


@config_app.command("set")
def config_set(key: Annotated[str, typer.Argument(help="A dotted key: cache.ttl")],
               value: Annotated[str, typer.Argument(help="A YAML value: 1h, 5, true, [a, b]")]) -> None:
    """Set KEY in config.yaml (refused when the value would not work)."""
    from hermes_cli.commands.config import command

    raise typer.Exit(command.run_set(key, value, typer.echo))


@config_app.command("unset")
def config_unset(key: Annotated[str, typer.Argument(help="A dotted key: cache.ttl")]) -> None:
    """Remove KEY from config.yaml (its default applies again)."""
    from hermes_cli.commands.config import command

    raise typer.Exit(command.run_unset(key, typer.echo))


def setup_cmd(  # noqa: PLR0913 - the wizard's answers as flags
    provider: Annotated[str | None, typer.Option("--provider", help="anthropic, openai, gemini, openai-compatible...")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="The provider's key (written to HERMES_HOME/.env, mode 0600).")] = None,
    model: Annotated[str | None, typer.Option("-m", "--model", help="The default model.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="The provider's base URL (a proxy or local server).")] = None,
    network: Annotated[str | None, typer.Option("--network", help="The tools' network: public (default), off, on.")] = None,
) -> None:
    """Set up a provider, key, model and network policy (asked on a terminal, or from
    flags), then check that the provider accepts the key."""
    from hermes_cli.commands.config import wizard

    given = provider is not None or api_key is not None
    answers = (wizard.Answers(provider or "", api_key, model, base_url, network)
               if given else None)
    raise typer.Exit(wizard.run(answers))
