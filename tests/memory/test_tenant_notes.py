"""Gateway tenants share no notes and no search: MEMORY.md/USER.md per owner (client
key or chat) under HERMES_HOME/tenants/, never the operator's HERMES_HOME/memories; a
tenant's session_search sees only its own sessions. Fast tier: real agents on the
scripted model, sharing one HERMES_HOME and one store."""

from __future__ import annotations

from pathlib import Path

from agent.sandbox import file_policy
from gateway.auth import owner_id
from memory.tenants import notes_dir
from tests.fakes.script import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent

OWNER_A, OWNER_B = owner_id("key-alpha-0123456789"), owner_id("key-bravo-0123456789")
OPERATOR_NOTE = "OPERATOR-PRIVATE-NOTE the CLI user's bank is at example-bank"


def _system(model: ScriptedModel) -> str:
    return "".join(block.text for block in model.requests[0].system)


def _tool_result(model: ScriptedModel) -> str:
    return repr(model.requests[-1].messages[-1])


def _remember(home: Path, cwd: Path, owner: str | None, text: str) -> ScriptedModel:
    model = ScriptedModel(Reply(tool_calls=[ToolCall("memory", {"action": "add",
                                                                "target": "memory",
                                                                "content": text})]),
                          Reply(text="saved"))
    run(scripted_agent(model, home, cwd, owner=owner, source="gateway"), "remember this")
    return model


def _fresh_prompt(home: Path, cwd: Path, owner: str | None) -> str:
    model = ScriptedModel(Reply(text="hello"))
    run(scripted_agent(model, home, cwd, owner=owner, source="gateway"), "hi")
    return _system(model)


def _operator_notes(home: Path) -> None:
    (home / "memories").mkdir(parents=True, exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text(OPERATOR_NOTE + "\n")


def test_a_tenants_memory_write_never_reaches_another_tenant(hermes_home, tmp_path):
    _operator_notes(hermes_home)
    model = _remember(hermes_home, tmp_path, OWNER_A, "alpha prefers kiwi tea")
    assert "Saved to MEMORY.md" in _tool_result(model)
    # written under A's own directory, outside its workspace; the operator's untouched
    assert "kiwi" in (notes_dir(hermes_home, OWNER_A) / "MEMORY.md").read_text()
    assert notes_dir(hermes_home, OWNER_A).is_relative_to(hermes_home / "tenants")
    assert "kiwi" not in (hermes_home / "memories" / "MEMORY.md").read_text()
    # the frozen-snapshot rule: the write shows in A's next session, never in B's
    assert "kiwi" in _fresh_prompt(hermes_home, tmp_path, OWNER_A)
    prompt_b = _fresh_prompt(hermes_home, tmp_path, OWNER_B)
    assert "kiwi" not in prompt_b and "OPERATOR-PRIVATE" not in prompt_b


def test_the_operators_notes_stay_out_of_tenant_prompts_and_in_the_cli(hermes_home, tmp_path):
    _operator_notes(hermes_home)
    assert "OPERATOR-PRIVATE" not in _fresh_prompt(hermes_home, tmp_path, OWNER_A)
    assert "OPERATOR-PRIVATE" in _fresh_prompt(hermes_home, tmp_path, None)  # the CLI's own
    # and a tenant's memory tool never edits the operator's file
    _remember(hermes_home, tmp_path, OWNER_B, "bravo uses vim")
    assert (hermes_home / "memories" / "MEMORY.md").read_text() == OPERATOR_NOTE + "\n"


def test_a_tenants_notes_files_change_only_through_the_memory_tool(hermes_home, tmp_path):
    model = ScriptedModel(Reply(text="x"))
    agent = scripted_agent(model, hermes_home, tmp_path, owner=OWNER_A, source="gateway")
    target = notes_dir(hermes_home, OWNER_A) / "MEMORY.md"
    try:
        file_policy.guard_write(agent.tool_ctx, target)
    except Exception as exc:  # noqa: BLE001 - the refusal is a ToolError
        assert "memory tool" in str(exc) or "secret location" in str(exc)
    else:
        raise AssertionError("a tenant's MEMORY.md was writable by the file tools")


def test_session_search_sees_only_the_tenants_own_sessions(hermes_home, tmp_path):
    run(scripted_agent(ScriptedModel(Reply(text="noted")), hermes_home, tmp_path,
                       owner=OWNER_A, source="gateway"), "my locker code is zebra-4471")
    search = Reply(tool_calls=[ToolCall("session_search", {"query": "zebra"})])
    as_b = ScriptedModel(search, Reply(text="done"))
    run(scripted_agent(as_b, hermes_home, tmp_path, owner=OWNER_B, source="gateway"), "find it")
    assert "zebra-4471" not in _tool_result(as_b) and "No past sessions" in _tool_result(as_b)
    as_a = ScriptedModel(search, Reply(text="done"))
    run(scripted_agent(as_a, hermes_home, tmp_path, owner=OWNER_A, source="gateway"), "find it")
    assert "1 match(es) in past sessions" in _tool_result(as_a)
