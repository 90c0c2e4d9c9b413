"""Gateway tenant battery: what one client key can read or change of another's, of the
operator's and of the gateway's own secrets. Counts attempted / blocked / leaked /
changed.

    .venv/bin/python bench/tenant_battery.py [--no-postgres]

One gateway (in process, real uvicorn, the real `openai` client) over a fresh
HERMES_HOME with the operator's notes, SOUL.md and a skill, the fake provider scripted
to make the tool calls (as a hostile model would), the terminal in the kernel sandbox,
two client keys. The database part starts a real PostgreSQL (tests/fakes/postgres.py)
and a `hermes gateway` process the way docs/SCALEOUT.md says to (this tree's recipe:
`--database-url-file` when the CLI has it, else `--database-url URL`), then has a tool
look for the password in the gateway's command line and environment.
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import openai  # noqa: E402
import yaml  # noqa: E402

from frontend.config.settings import load_settings  # noqa: E402
from gateway.auth import owner_id  # noqa: E402
from gateway.boot import build_app  # noqa: E402
from gateway.guard import Limits  # noqa: E402
from gateway.listener import GatewayServer  # noqa: E402
from gateway.workspaces import tenant_workspace  # noqa: E402
from tests.fakes import FakeProvider  # noqa: E402
from tests.fakes.script import Reply, ToolCall  # noqa: E402
from tests.helpers import KEY_A, KEY_B  # noqa: E402

PASSWORD = "pw-DBSECRET-9931"
results: list[tuple[str, str, bool]] = []  # (kind, name, broken)


def check(kind: str, name: str, broken: bool) -> None:
    results.append((kind, name, broken))
    print(f"  {'BROKEN' if broken else 'held  '}  {kind:7} {name}", flush=True)


class Stage:
    def __init__(self, home: Path, fake: FakeProvider) -> None:
        self.home, self.fake = home, fake
        (home / "config.yaml").write_text(yaml.safe_dump({
            "provider": "anthropic", "model": "claude-sonnet-5-5", "api_key": "provider-key",
            "base_url": fake.anthropic_base_url,
            "toolsets": ["file", "terminal", "memory", "search"],
            "gateway": {"api_keys": [KEY_A, KEY_B], "access_log": "off"}}))
        (home / "memories").mkdir()
        (home / "memories" / "MEMORY.md").write_text("OPERATOR-MEMORY-NOTE\n")
        (home / "memories" / "USER.md").write_text("OPERATOR-USER-NOTE\n")
        (home / "SOUL.md").write_text("You are hermes.\n")
        (home / "skills" / "demo").mkdir(parents=True)
        (home / "skills" / "demo" / "SKILL.md").write_text(
            "---\nname: demo\ndescription: a demo skill\n---\nDo the demo.\n")
        self.server = GatewayServer(build_app(load_settings(home), home),
                                    limits=Limits(body_timeout=1.0)).start()
        self.clients = {k: openai.OpenAI(base_url=self.server.base_url, api_key=k,
                                         max_retries=0, timeout=60) for k in (KEY_A, KEY_B)}

    def ask(self, key: str, session: str, text: str, *calls: ToolCall) -> str:
        """One message; with tool calls, the model makes them; returns what the model saw
        last (the request bytes, tool results included)."""
        if calls:
            self.fake.script(Reply(tool_calls=list(calls)), Reply(text="done"))
        reply = self.clients[key].chat.completions.create(
            model="hermes", messages=[{"role": "user", "content": text}],
            extra_headers={"X-Hermes-Session-Id": session})
        return self.fake.last.raw.decode("utf-8", "replace") + (reply.choices[0].message.content or "")

    def tool(self, key: str, call: ToolCall) -> str:
        """What the tool returned to the model (the last tool result only)."""
        self.ask(key, f"t-{time.monotonic_ns()}", "do it", call)
        return repr(self.fake.last.body["messages"][-1]["content"])

    def sh(self, key: str, command: str) -> str:
        return self.tool(key, ToolCall("terminal", {"command": command, "timeout": 20}))


def controls(stage: Stage) -> None:
    """The tools work at all (else every "held" below would mean nothing)."""
    out = stage.sh(KEY_B, "echo CONTROL-$((6*7)) > own.txt && cat own.txt")
    wrote = stage.tool(KEY_B, ToolCall("write_file", {"path": "w.txt", "content": "x"}))
    if "CONTROL-42" not in out or "rror" in wrote:
        raise SystemExit(f"the tools do not work here: {out} {wrote}")


def tenants(stage: Stage) -> None:
    home, a, b = stage.home, KEY_A, KEY_B
    notes_a = home / "tenants" / owner_id(a)[:16] / "memories"
    notes_b = home / "tenants" / owner_id(b)[:16] / "memories"
    stage.ask(a, "a1", "remember", ToolCall("memory", {"action": "add", "target": "user",
                                                        "content": "alpha likes TENANT-A-MEMO tea"}))
    seen_b = stage.ask(b, "b-new", "hello")
    check("leak", "A's memory write in B's next prompt", "TENANT-A-MEMO" in seen_b)
    seen_a = stage.ask(a, "a-new", "hello")
    check("leak", "operator MEMORY.md in a tenant prompt", "OPERATOR-MEMORY-NOTE" in seen_a)
    check("leak", "operator USER.md in a tenant prompt", "OPERATOR-USER-NOTE" in seen_b)
    check("change", "A's memory write lands in the operator's USER.md",
          "TENANT-A-MEMO" in (home / "memories" / "USER.md").read_text())
    stage.ask(a, "a2", "my locker code is ZEBRA-4471")
    found = stage.tool(b, ToolCall("session_search", {"query": "ZEBRA"}))
    check("leak", "B's session_search finds A's message", "No past sessions" not in found)
    out = stage.sh(b, f"cat {home}/config.yaml")
    check("leak", "terminal reads config.yaml (the key list)", KEY_A in out)
    out = stage.tool(b, ToolCall("read_file", {"path": f"{home}/config.yaml"}))
    check("leak", "read_file reads config.yaml", KEY_A in out)
    out = stage.sh(b, f"cat {notes_a}/USER.md {home}/memories/MEMORY.md")
    check("leak", "terminal reads A's or the operator's notes",
          "TENANT-A-MEMO" in out or "OPERATOR-MEMORY-NOTE" in out)
    for what, target in (("config.yaml", home / "config.yaml"), ("SOUL.md", home / "SOUL.md"),
                         ("operator USER.md", home / "memories" / "USER.md"),
                         ("own tenant notes", notes_b / "MEMORY.md"),
                         ("a skill", home / "skills" / "demo" / "SKILL.md")):
        before = target.read_bytes() if target.exists() else None
        stage.sh(b, f"mkdir -p {target.parent}; echo PWNED >> {target}")
        check("change", f"terminal writes {what}",
              (target.read_bytes() if target.exists() else None) != before)
    for what, target in (("a new skill", home / "skills" / "evil" / "SKILL.md"),
                         ("own tenant notes", notes_b / "USER.md"),
                         ("config.yaml", home / "config.yaml")):
        before = target.read_bytes() if target.exists() else None
        stage.tool(b, ToolCall("write_file", {
            "path": str(target), "content": "---\nname: evil\ndescription: x\n---\nPWNED\n"}))
        check("change", f"write_file writes {what}",
              (target.read_bytes() if target.exists() else None) != before)
    stage.ask(a, "shared", "write", ToolCall("write_file", {"path": "plan.txt", "content": "A\n"}))
    plan = tenant_workspace(home, owner_id(a)) / "plan.txt"
    stage.ask(b, "shared", "hello")
    stage.ask(b, "shared", "/undo")
    check("change", "B's /undo touches A's file", not plan.exists())


def trickle(stage: Stage) -> None:
    sock = socket.create_connection(("127.0.0.1", stage.server.port))
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                 + KEY_A.encode() + b"\r\nContent-Length: 100000\r\n\r\n{")
    sock.settimeout(0.2)
    started, cut = time.monotonic(), False
    while time.monotonic() - started < 6:  # 6 x the body timeout
        try:
            if sock.recv(4096) == b"":
                cut = True
                break
            cut = True
            break
        except TimeoutError:
            sock.sendall(b" ")
        except ConnectionResetError:
            cut = True
            break
    sock.close()
    check("load", "a trickled body (a byte per 0.2 s) outlives 6 x body_timeout", not cut)


def database(fake: FakeProvider, tmp: Path) -> None:
    import subprocess

    from tests.fakes.gateway_workers import write_config
    from tests.fakes.postgres import PostgresServer
    from tests.helpers import HERMES, child_env

    pg = PostgresServer().start()
    try:
        url = pg.new_database().replace("postgres@", f"postgres:{PASSWORD}@")
        home = tmp / "dbhome"
        home.mkdir(mode=0o700)
        write_config(home, fake.anthropic_base_url)
        text = (home / "config.yaml").read_text().replace("- file", "- terminal")
        (home / "config.yaml").write_text(text)
        helptext = subprocess.run([*HERMES, "gateway", "--help"], capture_output=True, text=True,
                                  env=child_env(home, PYTHONPATH=str(ROOT)), timeout=60).stdout
        args = [*HERMES, "gateway", "--port", "0"]
        if "--database-url-file" in helptext:
            (home / "db-url").write_text(url + "\n")
            args += ["--database-url-file", str(home / "db-url")]
        else:
            args += ["--database-url", url]
        proc = subprocess.Popen(args, env=child_env(home, PYTHONPATH=str(ROOT)), text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            line = ""
            deadline = time.monotonic() + 60
            while "listening on" not in line and time.monotonic() < deadline:
                line = proc.stdout.readline() or line
            base = line.split("listening on ")[1].split()[0]
            client = openai.OpenAI(base_url=base, api_key=KEY_A, max_retries=0, timeout=60)
            for name, command in (("the gateway's command line", "tr '\\0' ' ' < /proc/$PPID/cmdline"),
                                  ("a tool's environment", "env"),
                                  ("the gateway's environ", "cat /proc/$PPID/environ")):
                fake.script(Reply(tool_calls=[ToolCall("terminal", {"command": command})]),
                            Reply(text="done"))
                client.chat.completions.create(model="hermes", messages=[
                    {"role": "user", "content": "look"}],
                    extra_headers={"X-Hermes-Session-Id": f"db-{name}"})
                seen = repr(fake.last.body["messages"][-1]["content"])
                check("leak", f"database password in {name}", PASSWORD in seen)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    finally:
        pg.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hermes-tenants-") as tmp, \
            FakeProvider(min_cache_tokens=64) as fake:
        home = Path(tmp) / "home"
        home.mkdir(mode=0o700)
        stage = Stage(home, fake)
        try:
            controls(stage)
            tenants(stage)
            trickle(stage)
        finally:
            stage.server.stop()
        if not args.no_postgres:
            database(fake, Path(tmp))
    broken = [r for r in results if r[2]]
    leaked = sum(1 for r in broken if r[0] == "leak")
    changed = sum(1 for r in broken if r[0] == "change")
    print(f"attempted {len(results)}, blocked {len(results) - len(broken)}, leaked {leaked}, "
          f"changed {changed}, load {len(broken) - leaked - changed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
