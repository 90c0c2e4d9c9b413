"""The learning loop on a real agent (fast tier, scripted model): a skill the agent writes
leaves the running session's prompt and tools untouched, joins the index of the next
session, /undo puts the previous text back, and a gateway tenant's own skills are
indexed after the installation's block, never in another tenant's prompt."""

from __future__ import annotations

import json

from agent.events import Notice
from frontend.commands import Handle, undo
from skills.authored import agent_written
from skills.authored import answer as approve
from skills.loader import parse_skill
from tests.fakes.script import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent

TOOLSETS = ("file", "skills")


def text(name: str, description: str, step: str = "Re-run it 20 times.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n1. {step}\n"


def manage(**args) -> Reply:
    return Reply(tool_calls=[ToolCall("skill_manage", args)])


def bare(body: dict) -> str:
    """The system blocks and tools of one request without cache markers."""
    strip = lambda items: [{k: v for k, v in i.items() if k != "cache_control"} for i in items]  # noqa: E731
    return json.dumps([strip(body["system"]), strip(body["tools"])], sort_keys=True)


def test_a_new_skill_leaves_the_running_prompt_and_joins_the_next_sessions_index(hermes_home, tmp_path):
    model = ScriptedModel(Reply(text="hi"),
                          manage(action="create", name="flaky-test-triage",
                                 content=text("flaky-test-triage", "Find why a test fails sometimes.")),
                          Reply(text="saved"), Reply(text="later"))
    agent = scripted_agent(model, hermes_home, tmp_path, toolsets=TOOLSETS)
    stable = agent.stable
    run(agent, "hello")
    events = run(agent, "save that as a skill")
    run(agent, "and now?")
    assert len({bare(body) for body in model.bodies}) == 1, "system or tools changed mid-session"
    assert agent.stable == stable and "flaky-test-triage" not in stable
    assert "offer to save what worked as a skill" in stable  # the guidance, in the stable layer
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert any(n.startswith("new skill flaky-test-triage: in the index from your next session")
               for n in notices)
    assert parse_skill(hermes_home / "skills" / "flaky-test-triage" / "SKILL.md", "user")
    assert agent.sessions.find_skills().get("flaky-test-triage") is not None  # on disk, unindexed
    agent.new_session()  # /new: a new session, its index read anew
    assert "- flaky-test-triage: Find why a test fails sometimes." in agent.stable
    # a later process: what the agent wrote waits for the user's approval
    held = scripted_agent(ScriptedModel(), hermes_home, tmp_path, toolsets=TOOLSETS)
    assert "flaky-test-triage" not in held.stable
    assert any("flaky-test-triage was written by hermes" in n.text for n in held.startup_notices)
    approve(hermes_home / "skills" / "flaky-test-triage", True)
    fresh = scripted_agent(ScriptedModel(), hermes_home, tmp_path, toolsets=TOOLSETS)
    assert "- flaky-test-triage: Find why a test fails sometimes." in fresh.stable
    # the running index's blocks: the new line is in the installation block (the operator's)
    assert "flaky-test-triage" in dict(fresh.session.blocks)["installation"]


def test_undo_puts_back_a_created_patched_or_deleted_skill(hermes_home, tmp_path):
    folder = hermes_home / "skills" / "triage"
    model = ScriptedModel(
        manage(action="create", name="triage", content=text("triage", "Triage.")), Reply(text="made"),
        manage(action="patch", name="triage", old="20 times", new="50 times"), Reply(text="patched"),
        manage(action="delete", name="triage"), Reply(text="deleted"))
    agent = scripted_agent(model, hermes_home, tmp_path, toolsets=TOOLSETS)
    run(agent, "make it")
    created = (folder / "SKILL.md").read_text()
    run(agent, "patch it")
    assert "50 times" in (folder / "SKILL.md").read_text()
    run(agent, "delete it")
    assert not folder.exists()
    reply = undo(Handle(agent), "")
    assert "restored" in reply.text and "triage/SKILL.md" in reply.text
    assert "50 times" in (folder / "SKILL.md").read_text() and (folder / ".hermes-authored.json").exists()
    undo(Handle(agent), "")
    assert (folder / "SKILL.md").read_text() == created
    assert agent_written(folder) is not None  # the restored sidecar: still the agent's own
    undo(Handle(agent), "")
    assert not folder.exists() and not (hermes_home / "skills").exists()


def tenant_agent(hermes_home, tmp_path, owner: str, model: ScriptedModel | None = None):
    cwd = tmp_path / owner[:4]
    cwd.mkdir(exist_ok=True)
    return scripted_agent(model or ScriptedModel(), hermes_home, cwd, toolsets=TOOLSETS,
                          owner=owner, source="gateway", skill_writes=True)


def test_a_tenants_skill_is_its_own_and_indexed_after_the_shared_block(hermes_home, tmp_path):
    alice, bob = "a" * 64, "b" * 64
    model = ScriptedModel(manage(action="create", name="alpha-deploy",
                                 content=text("alpha-deploy", "How alpha ships.")), Reply(text="ok"))
    first = tenant_agent(hermes_home, tmp_path, alice, model)
    run(first, "remember how we ship")
    assert (hermes_home / "tenants" / "aaaaaaaaaaaaaaaa" / "skills" / "alpha-deploy" / "SKILL.md").exists()
    assert not (hermes_home / "skills").exists()  # never the installation's
    a = dict(tenant_agent(hermes_home, tmp_path, alice).session.blocks)
    b = dict(tenant_agent(hermes_home, tmp_path, bob).session.blocks)
    assert a["installation"] == b["installation"]  # the shared block: byte-identical
    assert "alpha-deploy" not in a["installation"]
    assert "# Your own skills (written in earlier sessions)\n- alpha-deploy: How alpha ships." in a["project"]
    assert "alpha-deploy" not in json.dumps(b)
    assert "alpha-deploy" not in tenant_agent(hermes_home, tmp_path, bob).sessions.find_skills().names()


def test_the_gateway_offers_skill_manage_only_when_writable(hermes_home, tmp_path):
    off = scripted_agent(ScriptedModel(), hermes_home, tmp_path, toolsets=TOOLSETS,
                         owner="c" * 64, source="gateway", skill_writes=False)
    assert "skill_manage" not in off.registry.names()
    assert "offer to save" not in off.stable and "skill_view" in off.stable
    on = tenant_agent(hermes_home, tmp_path, "c" * 64)
    assert "skill_manage" in on.registry.names()
