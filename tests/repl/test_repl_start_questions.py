"""The REPL's questions at start, in a pty: a project's settings are asked about once
(a "no" is kept, hooks mentioned only when there are some), and a context file hermes
wrote in an earlier session is shown as a diff once and loaded only on "yes"."""

from __future__ import annotations

from agent.prompts import authored_context
from tests.fakes import Reply


def test_a_no_to_trust_is_asked_once_and_hooks_are_not_mentioned_without_hooks(
        spawn_repl, tmp_path, hermes_home):
    work = tmp_path / "work"
    (work / ".hermes").mkdir()
    (work / ".hermes" / "config.yaml").write_text("permissions:\n  deny: ['terminal(rm*)']\n")
    first = spawn_repl(wait=False)
    asked = first.expect("[y/N]")
    assert "1 permission rule" in asked and "hooks" not in asked.lower()
    first.send("n")
    first.prompt()
    first.send("/exit")
    assert first.exit_code() == 0
    again = spawn_repl(wait=False)
    assert "[y/N]" not in again.prompt()


def test_a_context_file_hermes_wrote_is_shown_once_and_loaded_on_yes(
        spawn_repl, fake_provider, tmp_path, hermes_home):
    agents = tmp_path / "work" / "AGENTS.md"
    agents.write_text("Use tabs.\nAlways run make first.\n")
    authored_context.record(hermes_home, str(agents), b"Use tabs.\n", agents.read_bytes())
    repl = spawn_repl(wait=False)
    asked = repl.expect("[y/N]")
    assert "hermes wrote" in asked and "+Always run make first." in asked
    repl.send("y")
    repl.prompt()
    fake_provider.script(Reply(text="Loaded-and-answered"))
    repl.send("hello")
    repl.expect("Loaded-and-answered")
    system = "\n".join(b["text"] for b in fake_provider.requests[-1].body["system"])
    assert "Always run make first." in system
    repl.prompt()
    repl.send("/exit")
    assert repl.exit_code() == 0
    assert "[y/N]" not in spawn_repl(wait=False).prompt()  # answered for these bytes
