"""The fixed prefix (tools + system) a default session re-sends on every request stays
within its budget (2,971 tokens before the descriptions were re-justified, 2,328
after; README "Measured"), counted as the fake Anthropic API counts it (bench/prefix_size.py).
A new tool or paragraph that does not fit must pay for itself by cutting elsewhere."""

from __future__ import annotations

from bench.prefix_size import tokens
from tests.fakes import Reply
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent

BUDGET = 2_400  # tokens; raise it only with the figure measured and the reason


def test_a_default_sessions_fixed_prefix_stays_within_its_budget(hermes_home, tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "AGENTS.md").write_text("Run the tests with `pytest -q`.\n")
    model = ScriptedModel(Reply(text="hello"))
    run(scripted_agent(model, hermes_home, cwd), "hi")
    size = tokens(model.bodies[0])
    # no search backend configured: web_search is not offered; every other default tool is
    assert "web_search" not in size["tools"] and len(size["tools"]) == 14, sorted(size["tools"])
    assert size["total"] <= BUDGET, (size["total"], size["tools"])
    # each fact once: one skills instruction, the cron guidance in cronjob's description
    system = "\n\n".join(text for _, text in size["paragraphs"])
    assert system.count("skill_view") == 1 and "cronjob" not in system
    assert "MCP" not in system  # no MCP server configured: nothing says a word about it
