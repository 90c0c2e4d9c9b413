"""`/model` back to a model whose cache is still warm: the notice's estimate
of what the next call writes and costs is what the call then writes and costs - the
messages added on the other model since this model's last write are written again (its
cache ends where its last request did), not ~0. Wire tier: the real Anthropic SDK
against the fake API, whose recorded writes and bill are the truth."""

from __future__ import annotations

import re

from agent.cost import pricing
from agent.usage import Usage
from tests.helpers import MODEL, make_agent, run

OTHER = "claude-opus-5"


def _figure(text: str, pattern: str) -> float:
    found = re.search(pattern, text)
    assert found, text
    return float(found.group(1).replace(",", ""))


def test_switching_back_to_a_warm_model_estimates_the_write_the_call_makes(
        fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    run(agent, "hello " + "a fairly long first question about the project. " * 40)
    agent.switch_model(OTHER)
    run(agent, "on the other model: " + "another question with some detail to it. " * 30)
    notice = agent.switch_model(MODEL).text
    assert "still warm" in notice, notice
    written = _figure(notice, r"writes ~([\d,]+)")
    estimate = _figure(notice, r"est\. \$(\d+\.\d+)")
    run(agent, "back")
    last = fake_provider.requests_for("anthropic")[-1]
    assert last.cache_write > 0
    # the next message ("back") is not known to the notice: a few tokens
    assert abs(written - last.cache_write) <= max(20, 0.15 * last.cache_write), (
        written, last.cache_write, notice)
    billed = pricing.cost(Usage(uncached=last.prompt_tokens - last.cache_read - last.cache_write,
                                write_5m=last.cache_write, cache_read=last.cache_read), MODEL)
    assert billed is not None
    assert abs(estimate - billed) <= 0.15 * billed + 0.00005, (estimate, billed, notice)
    agent.close()
