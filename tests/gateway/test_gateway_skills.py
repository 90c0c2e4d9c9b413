"""Skills a gateway tenant's agent writes (wire tier: real uvicorn, the real openai
client, the fake provider): off unless `gateway.skills_writable`; then each client key
writes its own folder outside its workspace, never the installation's; its skills join
its next session's prompt in a block after the shared installation block, so another
tenant's prompt never changes and the installation block stays shared."""

from __future__ import annotations

import json

import pytest

from gateway.auth import owner_id
from gateway.workspaces import tenant_workspace
from memory.tenants import skills_dir
from tests.fakes.script import Reply, ToolCall
from tests.helpers import KEY_A, KEY_B, ask, system_of

pytestmark = pytest.mark.wire

SKILL = "---\nname: alpha-release\ndescription: How alpha ships a release.\n---\n1. Tag it.\n"


def _tools(record) -> str:
    return json.dumps([{k: v for k, v in t.items() if k != "cache_control"} for t in record.body["tools"]])


def test_a_tenants_skill_stays_its_own_and_after_the_shared_block(harness):
    harness.config["toolsets"] = ["file", "skills"]
    server = harness.start(skills_writable=True)
    alice, bob = harness.client(server, KEY_A), harness.client(server, KEY_B)
    ask(bob, "b1", "hello")
    bob_before = system_of(harness.fake.last)
    harness.fake.script(Reply(tool_calls=[ToolCall("skill_manage", {
        "action": "create", "name": "alpha-release", "content": SKILL})]), Reply(text="saved"))
    ask(alice, "a1", "save how we release")
    call, after = harness.fake.requests[-2:]
    assert "new skill alpha-release: in the index from your next session" in json.dumps(after.body)
    assert system_of(call) == system_of(after) and _tools(call) == _tools(after)
    assert "alpha-release" not in json.dumps(system_of(after))
    own = skills_dir(harness.home, owner_id(KEY_A)) / "alpha-release" / "SKILL.md"
    assert own.read_text() == SKILL
    assert not (harness.home / "skills").exists()
    assert tenant_workspace(harness.home, owner_id(KEY_A)) not in own.parents
    ask(bob, "b2", "hello again")  # bob's next session: not a byte of alice's skill
    assert system_of(harness.fake.last) == [*bob_before[:-1], system_of(harness.fake.last)[-1]]
    assert b"alpha-release" not in harness.fake.last.raw
    ask(alice, "a2", "next session")
    alice_next = system_of(harness.fake.last)
    assert alice_next[0] == bob_before[0]  # the installation block: shared, byte for byte
    assert "alpha-release" not in alice_next[0]["text"]
    assert "# Your own skills (written in earlier sessions)\n- alpha-release: How alpha ships a release." \
        in alice_next[1]["text"]
    assert harness.fake.last.cache_read > 0  # tools + the shared block read from bob's write
    ask(alice, "a1", "/undo")  # the turn that wrote it: the skill goes again
    assert not own.parent.exists()


def test_without_skills_writable_no_tenant_is_offered_skill_manage(harness):
    harness.config["toolsets"] = ["file", "skills"]
    server = harness.start()
    ask(harness.client(server, KEY_A), "a1", "hello")
    names = [t["name"] for t in harness.fake.last.body["tools"]]
    assert "skill_view" in names and "skill_manage" not in names
