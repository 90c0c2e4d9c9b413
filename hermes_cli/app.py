"""The `hermes` command: flags, one-shot mode, the REPL, and subcommands.

Heavy modules (SDKs, sqlite-utils, rich, prompt_toolkit) are imported inside the
commands that need them, so `hermes --version` and the first prompt stay fast.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from agent.providers import registry
from gateway.chat import platforms as chat_platforms
from hermes_cli import __version__
from hermes_cli.commands.warm import warm_app

# Function-level imports below: `hermes` parses its arguments first: each command's
# modules (the agent, the SDKs, rich, the gateway) load only when that command runs, so
# `--help` and a typo answer at once.

app = typer.Typer(
    name="hermes",
    help="A terminal AI agent whose prompt cache discipline is exact and visible.",
    add_completion=True,
    rich_markup_mode=None,
    no_args_is_help=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: from the registry, so a new provider is in --help without an edit here
PROVIDER_HELP = "One of: " + ", ".join(registry.names()) + "."


def _version(value: bool) -> None:
    if value:
        typer.echo(f"hermes {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def root(  # noqa: PLR0913 - these are the CLI's flags
    ctx: typer.Context,
    query: Annotated[str | None, typer.Option("-q", "--query", help="Run one turn, print the answer, exit.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="With -q: print one JSON object (= --output-format json).")] = False,
    output_format: Annotated[str | None, typer.Option("--output-format", help="With -q: text (the answer), json (one object at the end), stream-json (one JSON object per line as it happens).")] = None,
    background: Annotated[bool, typer.Option("--bg", help="With -q: run in the background; print the session id at once (hermes ps, hermes logs).")] = False,
    image: Annotated[list[str] | None, typer.Option("--image", help="With -q: attach an image file (repeat for more).")] = None,
    model: Annotated[str | None, typer.Option("-m", "--model", help="Model id.")] = None,
    provider: Annotated[str | None, typer.Option("--provider", help=PROVIDER_HELP)] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="Provider base URL.")] = None,
    skills: Annotated[list[str] | None, typer.Option("-s", "--skills", help="Preload skills (a,b or repeat).")] = None,
    toolsets: Annotated[str | None, typer.Option("--toolsets", help="Comma-separated toolsets.")] = None,
    max_turns: Annotated[int | None, typer.Option("--max-turns", help="Tool iterations per turn (default 90).")] = None,
    resume: Annotated[str | None, typer.Option("-r", "--resume", help="Resume a session by id (or prefix); without one, pick from a list.")] = None,
    cont: Annotated[bool, typer.Option("-c", "--continue", help="Continue the latest session of this directory (the REPL's own; -q also continues one-shot ones).")] = False,
    continue_any: Annotated[bool, typer.Option("--continue-any", help="Continue the latest session of any kind and directory.")] = False,
    personality: Annotated[str | None, typer.Option("--personality", help="Personality name.")] = None,
    yolo: Annotated[bool, typer.Option("--yolo", help="Run dangerous commands without asking.")] = False,
    max_usd: Annotated[float | None, typer.Option("--max-usd", help="Session spend limit in USD.")] = None,
    max_turn_tokens: Annotated[int | None, typer.Option("--max-turn-tokens", help="Token budget per turn (input + output).")] = None,
    no_sandbox: Annotated[bool, typer.Option("--no-sandbox", help="Run tools without the OS sandbox (warned).")] = False,
    reasoning: Annotated[str | None, typer.Option("--reasoning", help="Thinking/effort: off, adaptive, a token budget, effort=LEVEL.")] = None,
    plan: Annotated[bool, typer.Option("--plan", help="Start in plan mode: read and plan only, nothing changes.")] = False,
    wait_lock: Annotated[bool, typer.Option("--wait-lock", help="Wait while another hermes drives the session.")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")] = False,
) -> None:
    """Start the interactive REPL, or run one turn with -q."""
    if ctx.invoked_subcommand is not None:  # `hermes -m X gateway`: read by gateway_cmd
        given = {"-q": query is not None, "--json": json_out,
                 "--output-format": output_format is not None, "--skills": bool(skills),
                 "--toolsets": toolsets is not None, "--max-turns": max_turns is not None,
                 "--resume": resume is not None, "--continue": cont,
                 "--personality": personality is not None, "--yolo": yolo,
                 "--max-usd": max_usd is not None, "--max-turn-tokens": max_turn_tokens is not None,
                 "--no-sandbox": no_sandbox, "--wait-lock": wait_lock, "--plan": plan,
                 "--image": bool(image)}
        ctx.obj = {"model": model, "provider": provider, "base_url": base_url,
                   "unused": [flag for flag, on in given.items() if on]}
        return
    from frontend.setup import Flags, split_csv
    from hermes_cli.argv_checks import checked_output, checked_query, checked_resume

    query, resume = checked_query(query), checked_resume(resume)
    output = checked_output(output_format, json_out, query is not None)
    from hermes_cli.picker import PICK

    if resume == PICK:  # `--resume` with no id: the picker (a terminal's REPL only)
        if query is not None:
            fail("--resume without an id picks a session for the REPL",
                 "with -q pass the id: `hermes sessions list` shows them")
        from hermes_cli.picker import pick_at_start

        resume = pick_at_start()
        if resume is None:
            sys.stderr.write("no session chosen\n")
            raise typer.Exit(0)
    from frontend.session_claim import configure

    configure(wait=None if wait_lock else 0)
    flags = Flags(
        provider=provider, model=model, base_url=base_url, skills=split_csv(skills),
        toolsets=split_csv([toolsets]) if toolsets is not None else None,
        max_turns=max_turns, yolo=yolo, personality=personality, max_usd=max_usd,
        max_turn_tokens=max_turn_tokens, no_sandbox=no_sandbox, continue_any=continue_any,
        reasoning=reasoning, plan=plan,
    )
    cont = cont or continue_any
    if query is not None:
        from hermes_cli.commands.bg import detach, finished
        from hermes_cli.oneshot import run_oneshot

        if background:  # the session is made here, its turn runs in a detached process
            raise typer.Exit(detach(query, flags, resume=resume, cont=cont, images=image or []))
        code = run_oneshot(query, flags, resume=resume, cont=cont, output=output,
                           images=image or [])
        raise typer.Exit(finished(code))  # a background run records done / failed
    if background:
        fail("--bg goes with -q", 'run `hermes -q "PROMPT" --bg`; in the REPL use /bg PROMPT')
    if image:
        fail("--image goes with -q", "in the REPL mention the file instead: @shot.png")
    from hermes_cli.repl.main import run_repl

    raise typer.Exit(run_repl(flags, resume=resume, cont=cont))


sessions_app = typer.Typer(help="List, show, export, delete sessions and see their usage.")
app.add_typer(sessions_app, name="sessions")


@sessions_app.command("list")
def sessions_list(limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many.")] = 20) -> None:
    """List recent sessions."""
    from hermes_cli.commands import sessions as sessions_cmd

    sessions_cmd.list_sessions(limit)


@sessions_app.command("show")
def sessions_show(session_id: str) -> None:
    """Show a session's messages."""
    from hermes_cli.commands import sessions as sessions_cmd

    sessions_cmd.show(session_id)


@sessions_app.command("export")
def sessions_export(
    session_id: str,
    fmt: Annotated[str, typer.Option("--format", "-f", help="json or md")] = "json",
) -> None:
    """Export a session as JSON or Markdown to stdout."""
    from hermes_cli.commands import sessions as sessions_cmd

    sessions_cmd.export(session_id, fmt)


@sessions_app.command("delete")
def sessions_delete(
    session_id: str, yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False
) -> None:
    """Delete a session and its messages."""
    from hermes_cli.commands import sessions as sessions_cmd

    sessions_cmd.delete(session_id, yes)


@sessions_app.command("usage")
def sessions_usage(
    session_id: str, json_out: Annotated[bool, typer.Option("--json")] = False
) -> None:
    """Cache hit rate, cost, savings and every miss of a session."""
    from hermes_cli.commands import sessions as sessions_cmd

    sessions_cmd.usage(session_id, json_out)


prompt_app = typer.Typer(help="Inspect the system prompt layers.")
app.add_typer(prompt_app, name="prompt")


@prompt_app.command("show")
def prompt_show(
    session: Annotated[str | None, typer.Option("--session", help="A stored session's prompt.")] = None,
    full: Annotated[bool, typer.Option("--full", help="Also print the whole text.")] = False,
    skills: Annotated[list[str] | None, typer.Option(
        "-s", "--skills", help="Preview a new session with these skills preloaded (a,b or repeat).")] = None,
) -> None:
    """Tool schemas, stable and ephemeral layers with token estimates per section."""
    from frontend.setup import split_csv
    from hermes_cli.commands import inspect as inspect_cmd

    inspect_cmd.prompt_show(session, full, split_csv(skills))


skills_app = typer.Typer(help="List and show skills.")
app.add_typer(skills_app, name="skills")


from hermes_cli.commands.cron_app import cron_app  # noqa: E402 - typer only; the work loads lazily

app.add_typer(cron_app, name="cron")

from hermes_cli.commands.config.cli import config_app, setup_cmd  # noqa: E402 - typer only, as cron's

app.add_typer(config_app, name="config")
app.command("setup")(setup_cmd)

from hermes_cli.commands.bg_app import register as register_bg  # noqa: E402 - typer only

register_bg(app)  # `hermes ps`, `hermes logs`
app.add_typer(warm_app, name="warm")

mcp_app = typer.Typer(help="MCP servers configured in config.yaml (`mcp_servers:`).")
app.add_typer(mcp_app, name="mcp")


@mcp_app.command("list")
def mcp_list() -> None:
    """The configured MCP servers (nothing is started)."""
    from hermes_cli.commands import mcp as mcp_cmd

    raise typer.Exit(mcp_cmd.run_list())


@mcp_app.command("test")
def mcp_test(name: str) -> None:
    """Start one MCP server, show its tools and their size in tokens, stop it."""
    from hermes_cli.commands import mcp as mcp_cmd

    raise typer.Exit(mcp_cmd.run_test(name))


@app.command("models")
def models_list(
    names: Annotated[list[str] | None, typer.Argument(help="Only these model ids")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Known models per provider: context window, cache minimum, prices and their source."""
    from hermes_cli.commands import models as models_cmd

    models_cmd.run(names or [], json_out)


@app.command("doctor")
def doctor_cmd() -> None:
    """What works and what does not (config, provider key, store, sandbox, MCP, chat
    platforms), each problem with its fix; exit 0 when healthy, 1 otherwise."""
    from gateway.chat.probe import probes
    from hermes_cli.commands.doctor.main import run as run_doctor

    raise typer.Exit(run_doctor(probes))


@skills_app.command("list")
def skills_list() -> None:
    """All skills (bundled and user) with their descriptions."""
    from hermes_cli.commands import inspect as inspect_cmd

    inspect_cmd.skills_list()


@skills_app.command("show")
def skills_show(name: str) -> None:
    """Print a skill's SKILL.md."""
    from hermes_cli.commands import inspect as inspect_cmd

    inspect_cmd.skills_show(name)


def main() -> None:
    """Console-script entry point: user errors become one clear line, never a traceback."""
    from agent.errors import HermesError
    from hermes_cli.argv_checks import bare_resume
    from memory.errors import HermesMemoryError

    sys.argv[1:] = bare_resume(sys.argv[1:])
    _stacks_on_request()
    try:
        app()
    except (HermesError, HermesMemoryError) as exc:
        fail(exc.message, getattr(exc, "hint", ""))
    except OSError as exc:  # the environment refused (disk full, permissions, a gone cwd)
        if os.environ.get("HERMES_DEBUG"):
            raise
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        fail(f"{exc.strerror or exc}{where}",
             "check that path and the disk; set HERMES_DEBUG=1 to see the traceback")
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        sys.exit(130)


def _stacks_on_request() -> None:
    """`kill -USR1 PID` prints every thread's stack on stderr and hermes goes on: what a
    report of a hang needs (docs/DEVELOPMENT.md)."""
    import faulthandler
    import signal

    with contextlib.suppress(AttributeError, ValueError, OSError, io.UnsupportedOperation):
        faulthandler.register(signal.SIGUSR1, all_threads=True)


def fail(message: str, hint: str = "", code: int = 1) -> None:
    """Print `error: message` (+ hint) on stderr and exit."""
    sys.stderr.write(f"hermes: error: {message}\n")
    if hint:
        sys.stderr.write(f"  hint: {hint}\n")
    sys.exit(code)


def cwd() -> Path:
    return Path.cwd()


CHAT_LABELS = ", ".join(p.label for p in chat_platforms.PLATFORMS)


@app.command("gateway", help=f"""Serve an OpenAI-compatible HTTP API, the configured chat
platforms ({CHAT_LABELS}) and the scheduled jobs: one cached agent per client session or chat.""")
def gateway_cmd(  # noqa: PLR0913 - these are the gateway's flags
    ctx: typer.Context,
    host: Annotated[str, typer.Option("--host", help="Address to bind (default: loopback only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0-65535; 0 = any free port).")] = 8642,
    model: Annotated[str | None, typer.Option("-m", "--model", help="Default model of the sessions.")] = None,
    provider: Annotated[str | None, typer.Option("--provider", help=PROVIDER_HELP)] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="Provider base URL.")] = None,
    access_log: Annotated[str | None, typer.Option("--access-log", help="Access log: a file, '-' for stderr, 'off'.")] = None,
    no_api: Annotated[bool, typer.Option("--no-api", help=f"Run only the configured chat platforms ({CHAT_LABELS}) and the job scheduler: no HTTP API.")] = False,
    database_url: Annotated[str | None, typer.Option("--database-url", help="The store shared by several workers (postgresql://..., no password: use --database-url-file for one); default: HERMES_DATABASE_URL, config database_url, else SQLite in HERMES_HOME.")] = None,
    database_url_file: Annotated[str | None, typer.Option("--database-url-file", help="A file holding the store's postgresql:// URL (keeps its password off the command line).")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", help=f"Show the libraries' own log lines ({CHAT_LABELS}, HTTP clients) from INFO.")] = False,
) -> None:
    """`hermes gateway` (its help: the decorator's, naming the registry's platforms)."""
    from frontend.setup import Flags
    from gateway.boot import run_gateway

    top = ctx.obj or {}
    if top.get("unused"):
        fail(f"{', '.join(top['unused'])} do not apply to `hermes gateway`",
             "the gateway takes --model, --provider, --base-url, --access-log; the rest of its "
             "settings live in config.yaml")
    chosen: dict[str, str | None] = {}
    for flag, mine in (("model", model), ("provider", provider), ("base_url", base_url)):
        theirs = top.get(flag)
        if mine and theirs and mine != theirs:
            fail(f"two different {flag.replace('_', '-')}s given: {theirs!r} before `gateway` "
                 f"and {mine!r} after it", "give it once")
        chosen[flag] = mine or theirs
    flags = Flags(model=chosen["model"], provider=chosen["provider"], base_url=chosen["base_url"])
    raise typer.Exit(run_gateway(host, port, flags, access_log=access_log,
                                 api=not no_api, database_url=database_url,
                                 database_url_file=database_url_file, verbose=verbose))


@app.command("acp")
def acp_cmd(ctx: typer.Context) -> None:
    """Serve an editor over the Agent Client Protocol on stdin/stdout (Zed, JetBrains,
    Neovim...): register `hermes acp` as the editor's agent command."""
    from frontend.setup import Flags
    from hermes_acp.server import run_acp

    top = ctx.obj or {}
    if top.get("unused"):
        fail(f"{', '.join(top['unused'])} do not apply to `hermes acp`",
             "it takes --model, --provider, --base-url; the rest lives in config.yaml")
    raise typer.Exit(run_acp(Flags(model=top.get("model"), provider=top.get("provider"),
                                   base_url=top.get("base_url"))))
