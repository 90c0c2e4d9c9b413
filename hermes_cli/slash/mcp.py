"""/mcp (servers, status, tool counts; `reload` applies changed tool lists) and the MCP
part of /tools (tools by server with their schema size in tokens)."""

from __future__ import annotations

from collections.abc import Callable

from hermes_cli.slash.api import ReplLike as Repl
from hermes_cli.slash.api import UsageError, one_word

STATUS_STYLE = {"ready": "green", "starting": "yellow", "crashed": "red", "failed": "red"}


def server_rows(mcp) -> list[tuple[str, str, str, str, str]]:
    """(server, transport, status, tools live, tools in this session) per server."""
    frozen = mcp.frozen or []
    rows = []
    for name in sorted(mcp.configs):
        server = mcp.hub.servers.get(name)
        status = server.status if server else "stopped"
        if server and server.error and status in ("failed", "crashed"):
            status = f"{status}: {server.error}"
        live = str(len(mcp.live(name)[0])) if server and server.tools else "-"
        used = sum(1 for t in frozen if t.server == name)
        rows.append((name, mcp.configs[name].transport, status, live,
                     str(used) if mcp.frozen is not None else "not frozen yet"))
    return rows


def cmd_mcp(repl: Repl, arg: str) -> None:
    agent = repl.agent
    word = one_word(arg)
    if word not in ("", "reload"):
        raise UsageError()
    if agent.mcp is None:
        repl.renderer.info("no MCP servers configured (add `mcp_servers:` to config.yaml; "
                           "see README.md)")
        return
    if word == "reload":
        from agent.mcp import hooks  # lazy for start-up speed, as the other handlers

        for notice in hooks.reload(agent):
            repl.renderer.notice(notice.text)
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, pad_edge=False)
    for column in ("server", "transport", "status", "tools offered", "tools in this session"):
        table.add_column(column, no_wrap=column != "status")
    for name, transport, status, live, used in server_rows(agent.mcp):
        style = STATUS_STYLE.get(status.split(":")[0], "")
        table.add_row(Text(name), Text(transport), Text(status, style=style), live, used)
    repl.renderer.print(table)
    repl.renderer.print("the session's MCP tool list is frozen at its first request; "
                        "/mcp reload applies the servers' current lists (one cache miss)",
                        style="dim")


def mcp_tool_rows(registry) -> list[tuple[str, str, int]]:
    """(server, tool name, schema tokens) of the MCP tools in `registry`."""
    from agent.tokens import estimate_tokens

    rows = []
    for schema in registry.schemas():
        tool = registry.get(schema.name)
        if tool.toolset == "mcp":
            server = tool.description.split("]", 1)[0].removeprefix("[MCP server ")
            rows.append((server, schema.name, estimate_tokens(schema.canonical())))
    return sorted(rows)


HANDLERS: dict[str, Callable[[Repl, str], None]] = {"mcp": cmd_mcp}
