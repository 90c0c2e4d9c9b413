"""The notices of deliberate cache breaks count what is still cached: switching back to
a model whose entry is warm reads it; a new personality keeps the tools' entry. Fast
tier: a real agent on the scripted model, with a clock the test moves."""

from __future__ import annotations

import re

from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _tokens(text: str, phrase: str) -> int:
    found = re.search(phrase + r" ?~([\d,]+)", text)
    assert found, text
    return int(found.group(1).replace(",", ""))


def test_switching_back_to_a_warm_model_says_it_reads(hermes_home, tmp_path):
    clock = Clock()
    agent = scripted_agent(ScriptedModel(*(Reply(text=f"a{n}") for n in range(3))),
                           hermes_home, tmp_path, clock=clock)
    first = agent.model
    run(agent, "hello")
    prompt = agent.state.last_by_model[first][2]
    assert prompt > 0
    cold = agent.switch_model("claude-opus-5").text
    assert "re-sends ~" in cold and "one deliberate miss" in cold, cold
    run(agent, "on the other model")
    clock.now += 60  # within the 5-minute TTL of `first`'s entry
    warm = agent.switch_model(first).text
    assert "still warm" in warm and _tokens(warm, "reads") == prompt, warm
    clock.now += 400  # `first`'s entry expired; claude-opus-5's too
    assert "re-sends ~" in agent.switch_model("claude-opus-5").text


def test_a_new_personality_keeps_the_tools_cached_while_warm(hermes_home, tmp_path):
    clock = Clock()
    agent = scripted_agent(ScriptedModel(Reply(text="hi")), hermes_home, tmp_path, clock=clock)
    cold = agent.set_personality("skeptic", "Doubt everything.").text
    assert "re-sends ~" in cold, cold  # nothing was ever cached
    run(agent, "hello")
    warm = agent.set_personality("pirate", "Talk like a pirate.").text
    read, write = _tokens(warm, r"tools \("), _tokens(warm, "writes")
    assert read > 0 and write > 0, warm
    clock.now += 400
    assert "re-sends ~" in agent.set_personality(None, None).text


def test_a_break_notice_counts_the_images_it_re_sends(hermes_home, tmp_path):
    from agent.tokens import image_tokens
    from tests.helpers import screenshot

    clock = Clock()
    agent = scripted_agent(ScriptedModel(Reply(text="seen")), hermes_home, tmp_path, clock=clock)
    picture = agent.attach_image(screenshot(1200, 800), "shot.png").image
    events = list(agent.run_turn("look", images=(picture,)))
    assert events[-1].reason == "answer"
    clock.now += 400  # the entry expired: the notice counts the whole prompt
    with_image = _tokens(agent.set_personality("skeptic", "Doubt.").text, "re-sends")
    (tmp_path / "other").mkdir()
    text_only = _tokens(scripted_agent(ScriptedModel(), hermes_home, tmp_path / "other")
                        .set_personality("skeptic", "Doubt.").text, "re-sends")
    assert with_image - text_only >= image_tokens(picture.width, picture.height)
