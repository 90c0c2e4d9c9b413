"""Quitting right after start does not wait for the background build's SDK warm-up
: exit needs the agent (to discard its empty session), not the provider
SDK imported. Fast tier: the REPL object without a terminal, a scripted agent whose
warm-up (the SDK import it stands for) holds until the test lets it go."""

from __future__ import annotations

import threading

from frontend.setup import Flags
from hermes_cli.repl.main import Repl
from tests.fakes.scripted import ScriptedModel
from tests.helpers import scripted_agent


def test_exit_takes_the_agent_without_waiting_for_its_warm_up(hermes_home, tmp_path):
    agent = scripted_agent(ScriptedModel(), hermes_home, tmp_path)
    warming, release = threading.Event(), threading.Event()

    def slow_import() -> None:  # the SDK import of a loaded machine, held by the test
        warming.set()
        release.wait(10)

    agent.warm_up = slow_import  # type: ignore[method-assign]
    repl = Repl(Flags())
    repl.defer_agent(lambda: agent, agent.model, "anthropic")
    repl._start_build(None)
    assert warming.wait(10)
    try:
        settled = threading.Thread(target=repl._settled_agent)
        settled.start()
        settled.join(5)  # was: waited for the warm-up (until release)
        assert not settled.is_alive() and repl._settled_agent() is agent
    finally:
        release.set()
        agent.close()
