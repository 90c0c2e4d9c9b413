"""Review finding: a call cancelled mid-stream was billed but never recorded."""

from __future__ import annotations

from agent.cancel import CancelToken
from agent.events import Done, TextDelta, UsageEvent
from tests.fakes import Reply
from tests.helpers import make_agent, run


def test_call_cancelled_after_the_prompt_was_processed_is_recorded(fake_provider, hermes_home,
                                                                    tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    run(agent, "first")
    fake_provider.script(Reply(text="a long answer that streams slowly", delay=0.2, chunks=5))
    cancel = CancelToken()
    events = []
    for event in agent.run_turn("second", cancel):
        events.append(event)
        if isinstance(event, TextDelta):
            cancel.cancel()
    assert isinstance(events[-1], Done) and events[-1].reason == "cancelled"
    record = fake_provider.requests[-1]
    rows = agent.store.usage_rows(agent.session_id)
    assert len(rows) == 2, "the cancelled call's prompt was billed; /usage must show it"
    assert rows[-1]["cache_read"] == record.cache_read > 0
    assert rows[-1]["uncached"] + rows[-1]["write_5m"] == record.uncached + record.cache_write
    assert [e for e in events if isinstance(e, UsageEvent)]
    # the history stays valid and the next call still reads the cache
    run(agent, "third")
    assert fake_provider.requests[-1].cache_read >= record.cache_read
    assert len(agent.store.usage_rows(agent.session_id)) == 3
