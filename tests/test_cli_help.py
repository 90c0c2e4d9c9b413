"""`hermes --help` and its subcommands' help, rendered in-process."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from hermes_cli.app import app


@pytest.mark.parametrize("args", [[], ["sessions", "delete"], ["sessions", "usage"],
                                  ["prompt", "show"]])
def test_plain_flags_show_no_type(args):
    result = CliRunner().invoke(app, [*args, "--help"])
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output and "bool" not in result.output
    flags = [line.split()[0] for line in result.output.splitlines() if line.startswith("  -")]
    assert flags  # the option lines were found


def test_provider_help_names_every_provider_of_the_registry():
    from agent.providers import registry

    result = CliRunner().invoke(app, ["--help"], terminal_width=400)
    text = " ".join(result.output.split())
    for name in registry.names():
        assert name in text.split("--provider", 1)[1], name


def test_gateway_help_names_every_chat_platform_it_serves():
    """`hermes gateway --help` and its `--no-api` line name each platform the gateway boots
    (they once named Telegram alone, with Slack and Discord served too)."""
    from gateway.chat.platforms import PLATFORMS

    names = [p.label for p in PLATFORMS]  # what gateway/chat/boot.py starts
    assert {"Telegram", "Slack", "Discord"} <= set(names)
    result = CliRunner().invoke(app, ["gateway", "--help"], terminal_width=400)
    text = " ".join(result.output.split())
    no_api = text.split("--no-api", 1)[1].split("--database-url", 1)[0]
    for name in names:
        assert name in text.split("Options", 1)[0], name
        assert name in no_api, name
