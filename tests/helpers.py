"""Shared test helpers (the one module tests import helpers from): agents on the fake
server or on the in-process scripted model, waiting with a deadline, the real `hermes`
command in a subprocess, and the gateway harness' small helpers."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

PROVIDER_ENV = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY",
    "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "HERMES_API_KEY",
    "GEMINI_API_KEY", "GEMINI_BASE_URL", "GOOGLE_API_KEY",
)
HERMES = [sys.executable, "-m", "hermes_cli"]
# Its sitecustomize.py gives every child Python the conftest's network guard.
GUARD_DIR = Path(__file__).resolve().parent / "guard"
MODEL = "claude-sonnet-5"
T = TypeVar("T")


# ---- waiting ---------------------------------------------------------------------------
def at_once(target: Callable[[int], Any], count: int, timeout: float = 60.0) -> list[BaseException]:
    """Run `target(0..count-1)` in `count` threads released together by a barrier (a race
    on purpose); join them and return what they raised."""
    import threading

    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait(timeout)
            target(i)
        except BaseException as exc:  # returned to the test, which asserts on it
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return errors


def wait_until(condition: Callable[[], T], timeout: float = 10.0, what: str = "",
               interval: float = 0.01) -> T:
    """Poll `condition` until it returns something truthy (returned); fail the test with
    `what` after `timeout` seconds. The only polling loop tests use: no fixed sleeps."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for "
                                 f"{what or getattr(condition, '__name__', 'a condition')}")
        time.sleep(interval)


# ---- agents ----------------------------------------------------------------------------
def make_agent(fake, home: Path, cwd: Path, **config: Any):
    """A real AIAgent with the real Anthropic SDK against the fake HTTP server (wire tier)."""
    from agent.agent import AIAgent
    from agent.config import AgentConfig
    from agent.providers.base import ProviderSettings
    from memory.store import SessionStore

    settings = ProviderSettings("anthropic", MODEL, "test-key", fake.anthropic_base_url)
    cfg = AgentConfig(provider=settings, home=home, cwd=cwd, **config)
    return AIAgent(cfg, SessionStore(home / "state.db"), clock=fake.clock.now)


def scripted_agent(model, home: Path, cwd: Path, *, clock: Callable[[], float] | None = None,
                   provider: str = "anthropic", model_name: str = MODEL, **config: Any):
    """A real AIAgent whose provider is the in-process ScriptedModel (fast tier). The
    settings point nowhere: a call that bypassed the injected model would fail."""
    from agent.agent import AIAgent
    from agent.config import AgentConfig
    from agent.providers.base import ProviderSettings
    from memory.store import SessionStore

    settings = ProviderSettings(provider, model_name, "test-key", "http://127.0.0.1:9")
    cfg = AgentConfig(provider=settings, home=home, cwd=cwd, **config)
    kwargs = {"clock": clock} if clock is not None else {}
    return AIAgent(cfg, SessionStore(home / "state.db"), provider=model, **kwargs)


def run(agent, text: str) -> list:
    """One turn that must end with an answer; returns its events."""
    from agent.events import Done

    events = list(agent.run_turn(text))
    assert isinstance(events[-1], Done) and events[-1].reason == "answer", events
    return events


def project(tmp_path: Path, home: Path) -> Path:
    """A project with a large AGENTS.md and a small MEMORY.md: three stable blocks."""
    cwd = tmp_path / "proj"
    cwd.mkdir()
    (cwd / "AGENTS.md").write_text("Project rules: " + "keep functions small. " * 200)
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text("the build uses make")
    return cwd


# ---- the real CLI ----------------------------------------------------------------------
def child_env(home: Path, **extra: str) -> dict[str, str]:
    """Environment for a `hermes` subprocess: isolated home, no provider leakage, and
    the network guard (tests/guard/sitecustomize.py) first on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_ENV}
    env.update({"HERMES_HOME": str(home), "NO_COLOR": "1", "PYTHONUNBUFFERED": "1",
                "HERMES_WARM": "0"})  # tests/warm/ turn the warm start on in their own folder
    env.update(extra)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(GUARD_DIR)]
    env["PYTHONPATH"] = os.pathsep.join([str(GUARD_DIR), *paths])
    return env


def anthropic_env(home: Path, fake) -> dict[str, str]:
    return child_env(home, ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.anthropic_base_url)


def gemini_env(home: Path, fake) -> dict[str, str]:
    return child_env(home, GEMINI_API_KEY="test-key", GEMINI_BASE_URL=fake.gemini_base_url)


def openai_env(home: Path, fake) -> dict[str, str]:
    return child_env(home, OPENAI_API_KEY="test-key", OPENAI_BASE_URL=fake.openai_base_url)


def warm_env(base: dict[str, str], runtime: Path) -> dict[str, str]:
    """`base` with the warm start on (hermes_cli/launch/), its sockets in `runtime`."""
    env = {k: v for k, v in base.items() if k != "HERMES_WARM"}
    env.update(XDG_RUNTIME_DIR=str(runtime), HERMES_WARM_IDLE="300")
    return env


def warm_status(runtime: Path) -> dict:
    """The status of the warm server listening in `runtime` (tests/warm/)."""
    from hermes_cli.warm.protocol import ask

    socket = next(runtime.glob("hermes-warm-*/*.sock"))
    answer = ask(socket, "status")
    assert answer is not None
    return answer


def hermes(args: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 60,
           input_text: str | None = None, wrapper: list[str] | tuple[str, ...] = (),
           ) -> subprocess.CompletedProcess[str]:
    """Run `hermes ARGS` (under `wrapper`, e.g. read_only_mount()) and capture its output.
    Without a wrapper the process is forked from tests/prefork.py's server, which has the
    provider SDKs imported already (a fresh interpreter costs ~2 s of CPU importing them)."""
    if not wrapper:
        from tests import prefork

        result = prefork.run(HERMES, args, env, cwd, timeout, input_text)
        if result is not None:
            return result
    return subprocess.run([*wrapper, *HERMES, *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, input=input_text)


def hermes_command(args: list[str], env: dict[str, str]) -> list[str]:
    """The command line of a long-running `hermes ARGS` a test talks to over its own pipes
    (`hermes acp`): forked from tests/prefork.py's server through its trampoline, which
    hands over whatever fds 0-2 it is given; a fresh interpreter when the run needs one."""
    from tests import prefork

    return prefork.tty_command(args, env) or [*HERMES, *args]


def _root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def read_only_mount(path: Path) -> list[str]:
    """A command prefix that runs its command in a private mount namespace where `path`
    is a read-only bind mount (EROFS for root too; CI runs as root). Non-root users get
    the namespace through a user namespace (`unshare -r`)."""
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"'
    flags = ["-m"] if _root() else ["-r", "-m"]
    return ["unshare", *flags, "--propagation", "private", "sh", "-c", script, str(path)]


def without_file_override() -> list[str]:
    """A command prefix that runs its command without CAP_DAC_OVERRIDE/READ_SEARCH, so
    file permission bits apply to root as to any user (empty when not root)."""
    if not _root():
        return []
    return ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"]


# ---- the gateway harness (tests/gateway/conftest.py) -----------------------------------
KEY_A = "key-alpha-0123456789"
KEY_B = "key-bravo-0123456789"
GATEWAY_MODEL = "claude-sonnet-5-5"


def gateway_of(server):
    """The Gateway object behind a running server (for white-box checks)."""
    return server.server.config.app.state.api.gateway


def ask(client, session: str, text: str, **kwargs: Any):
    """One message of `session` through an `openai.OpenAI` client; returns the ChatCompletion."""
    return client.chat.completions.create(
        model=kwargs.pop("model", "hermes"), messages=kwargs.pop("messages", None)
        or [{"role": "user", "content": text}],
        extra_headers={"X-Hermes-Session-Id": session}, **kwargs)


def system_of(record) -> Any:
    """The system blocks of an Anthropic request as the fake received them, without
    cache markers (a chain's first request also marks the shared blocks' ends,
    agent.modelcall.caching; markers are not prefix bytes)."""
    system = record.body.get("system")
    if not isinstance(system, list):
        return system
    return [{k: v for k, v in block.items() if k != "cache_control"} for block in system]


def tokens_through(body: dict[str, Any], system_index: int) -> int:
    """Prompt tokens of tools + system blocks 0..system_index (the fake's token model)."""
    from tests.fakes.anthropic_api import build_blocks
    from tests.fakes.cache import Prompt

    blocks = build_blocks(body)
    tools = len(body.get("tools") or [])
    return Prompt(body["model"], blocks).cum[tools + system_index]


def is_summary_call(body: dict[str, Any]) -> bool:
    """A compaction's summary call as the fake received it: the pruned transcript (no
    tools) or the session's own request ending with the compaction instruction."""
    from agent.compression.request import INSTRUCTION_MARK

    if "tools" not in body:
        return True
    content = body["messages"][-1]["content"]
    if isinstance(content, list):  # Anthropic blocks (OpenAI parts)
        content = content[-1].get("text") or "" if content else ""
    return isinstance(content, str) and content.startswith(INSTRUCTION_MARK)


# ---- the REPL in a pty -------------------------------------------------------------------
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\r")


def plain(text: str) -> str:
    """Terminal output without escape sequences and carriage returns."""
    return ANSI.sub("", text)


CPR_REQUEST = "\x1b[6n"
CPR_REPLY = "\x1b[1;1R"  # "the cursor is on row 1": the whole screen is free below


class Repl:
    """A running `hermes` REPL in a pty; output is matched with escape codes removed
    (styles such as dim and bold remain under NO_COLOR and split lines otherwise)."""

    def __init__(self, child: Any) -> None:  # a pexpect.spawn
        self.child = child
        self._raw = ""  # raw output read so far
        self._pos = 0  # plain-text position already consumed by expect()
        self._cpr = 0  # cursor-position requests answered

    def _read(self, timeout: float) -> None:
        """Read output; answer prompt_toolkit's cursor-position requests as a terminal
        would (the bottom toolbar is drawn only once the screen height is known)."""
        self._raw += self.child.read_nonblocking(65536, timeout=timeout)
        requests = self._raw.count(CPR_REQUEST)
        if requests > self._cpr:
            self.child.send(CPR_REPLY * (requests - self._cpr))
            self._cpr = requests

    def _plain(self) -> str:
        return plain(self._raw)

    def expect(self, text: str, timeout: float = 30) -> str:
        """Wait for `text` in the plain output; return the plain output before it."""
        deadline = time.monotonic() + timeout
        while True:
            current = self._plain()
            index = current.find(text, self._pos)
            if index >= 0:
                before = current[self._pos:index]
                self._pos = index + len(text)
                return before
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} not seen within {timeout}s; output after the "
                                     f"last match:\n{current[self._pos:][-3000:]}"
                                     f"{self._stacks()}")
            try:
                self._read(min(left, 0.2))
            except _pexpect().TIMEOUT:
                continue
            except _pexpect().EOF:
                raise AssertionError(f"hermes exited before {text!r}; output after the last "
                                     f"match:\n{current[self._pos:][-3000:]}") from None

    def _stacks(self) -> str:
        """Every thread's stack of the stuck hermes (SIGUSR1: hermes_cli/app.py
        `_stacks_on_request`; the pty trampoline passes it on), for the failure message."""
        import signal

        start = len(self._raw)
        try:
            self.child.kill(signal.SIGUSR1)
            deadline, quiet = time.monotonic() + 5.0, 0
            while time.monotonic() < deadline and quiet < 3:  # until 0.6 s without output
                before = len(self._raw)
                with contextlib.suppress(_pexpect().TIMEOUT):
                    self._read(0.2)
                quiet = quiet + 1 if len(self._raw) == before and "File " in self._raw[start:] else 0
        except Exception as exc:  # noqa: BLE001 - a diagnosis must not hide the failure
            return f"\n(no thread stacks: {exc})"
        dump = plain(self._raw[start:])
        if len(dump) > 12_000:  # the innermost frames of each thread are at its top
            dump = dump[:8_000] + "\n[...]\n" + dump[-4_000:]
        return f"\n--- hermes' threads when it was given up on ---\n{dump}"

    def prompt(self, timeout: float = 30) -> str:
        """Wait for the next prompt; return the output before it."""
        from hermes_cli.repl.main import PROMPT_MARKER

        return self.expect(PROMPT_MARKER, timeout)

    def send(self, line: str) -> None:
        """Type `line` and press Enter."""
        self.child.send(line + "\r")

    def exit_code(self, timeout: float = 30) -> int:
        """Wait for the process to end; return its exit status."""
        deadline = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < deadline:
            try:
                self._read(0.2)
            except _pexpect().TIMEOUT:
                continue
            except _pexpect().EOF:
                break
        self.child.close()
        return self.child.exitstatus

    def rest(self) -> str:
        """Plain output not consumed by expect() yet."""
        return self._plain()[self._pos:]


def _pexpect():
    import pexpect

    return pexpect


# ---- chat platforms ----------------------------------------------------------------------
OWNER = 111  # the allowed user
STRANGER = 666
GROUP = -100200300


def host_pids_running(marker: str) -> list[int]:
    """Host pids of live (not zombie) processes whose command line contains `marker` (a
    sandboxed command's own pids are its session's PID namespace's, not the host's)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(entry))
        except (OSError, IndexError):
            continue
    return found


def host_pid(ctx: Any, pid: int) -> int | None:
    """The host pid of a live process a sandboxed command knows as `pid` (its session's PID
    namespace), or None when there is none (gone, or a zombie). Unsandboxed: `pid` if live.
    `ctx`: a ToolContext, or a ToolState."""
    box = getattr(getattr(ctx, "state", ctx), "sandbox", None)
    holder = getattr(box, "session", None)
    target = os.readlink(f"/proc/{holder.pid}/ns/pid") if holder is not None else None
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if target is not None and os.readlink(f"/proc/{entry}/ns/pid") != target:
                continue
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        inner = fields.get("NSpid", "").split()
        if inner and inner[-1] == str(pid) and not fields.get("State", "").strip().startswith("Z"):
            return int(entry)
    return None


# ---- images (made with Pillow at test time: no binary fixtures) ------------------------
@functools.lru_cache(maxsize=16)
def screenshot(width: int = 2880, height: int = 1800, fmt: str = "PNG", seed: int = 1) -> bytes:
    """A screenshot-like image: a light window, a dark sidebar, lines of antialiased text,
    a few coloured buttons and a photo-like patch - it compresses the way real
    screenshots do (a 2880x1800 PNG is about a megabyte)."""
    import io
    import random

    from PIL import Image, ImageDraw, ImageFont

    rng = random.Random(seed)
    image = Image.new("RGB", (width, height), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width // 6, height), fill=(38, 42, 51))
    size = max(8, height // 60)
    font = ImageFont.load_default(size=size)
    words = ["error:", "connection", "refused", "port", "8080", "def", "main()", "return",
             "Traceback", "File", "line", "42", "in", "<module>", "self.server", "bind"]
    for y in range(size, height - size, int(size * 1.5)):
        line = " ".join(rng.choice(words) for _ in range(rng.randint(2, 14)))
        draw.text((width // 6 + size, y), line, fill=(30, 30, 30), font=font)
        draw.text((size // 2, y), rng.choice(words), fill=(200, 200, 210), font=font)
    for _ in range(12):
        x, y = rng.randint(0, width - 200), rng.randint(0, height - 60)
        draw.rectangle((x, y, x + 160, y + 40), fill=(rng.randint(0, 255), 120, 200))
    side = min(width, height) // 4
    cells = max(2, side // 12)
    patch = Image.frombytes("RGB", (cells, cells), rng.randbytes(cells * cells * 3))
    image.paste(patch.resize((side, side), Image.Resampling.BICUBIC), (width - side - 10, 10))
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


def png_bomb(width: int = 50_000, height: int = 50_000) -> bytes:
    """A tiny PNG whose header declares `width` x `height` pixels (a decompression bomb)."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + chunk(b"IEND", b""))
