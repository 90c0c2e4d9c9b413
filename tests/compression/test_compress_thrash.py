"""Automatic compression never thrashes: with a small window, once what compression
keeps is itself over the trigger, it stops compacting and says once what to do."""

from __future__ import annotations

from agent.events import Notice
from tests.fakes import Reply

MODEL = "claude-sonnet-5"
WORDS = ["the", "parser", "keeps", "every", "token", "of", "the", "input", "and", "reports", "its", "position", "exactly"]


def _reply(n: int) -> str:
    """An answer of ~300 tokens (~1,200 characters)."""
    words = [WORDS[(n + i) % len(WORDS)] for i in range(200)]
    return f"answer {n}: " + " ".join(words)


def _ten_turns(s) -> list:
    s.summaries.extend(["## Goal\n" + " ".join(WORDS * 10)] * 10)
    events = []
    for n in range(10):
        s.replies.append(Reply(text=_reply(n)))
        events += list(s.agent.run_turn(f"question {n}: explain part {n} of the parser"))
    return events


def test_small_window_compacts_only_when_it_helps(session):
    """Default tools, an 8,000-token window, threshold 0.5, ~300-token replies and
    summaries: from the 7th turn the kept part alone is over the trigger. Compacting
    anyway made a new session every turn (4 in 10 turns, each "14 -> 12 messages")."""
    s = session(context_windows={MODEL: 8000}, compression_threshold=0.5, toolsets=None)
    first = s.agent.session_id
    events = _ten_turns(s)
    summaries = s.summary_requests()
    compacted = [e.text for e in events if isinstance(e, Notice)
                 and e.text.startswith("Compressed the conversation")]
    skipped = [e.text for e in events if isinstance(e, Notice)
               and e.text.startswith("Automatic compression skipped")]
    assert len(summaries) == len(compacted) == 0  # was 4: one per turn from turn 7
    assert s.agent.session_id == first
    assert len(skipped) == 1  # said once, with what to do instead
    assert "/new" in skipped[0] and "threshold" in skipped[0] and "context_windows" in skipped[0]
    assert all(c.status == 200 for c in s.calls)


def test_a_small_saving_is_not_worth_a_compaction(session):
    """Threshold 0.6: after the 10th turn the kept part fits under the trigger, but
    compacting would cut ~13% of the prompt: a summary call and a rewrite for that."""
    s = session(context_windows={MODEL: 8000}, compression_threshold=0.6, toolsets=None)
    events = _ten_turns(s)
    assert not s.summary_requests()
    (skipped,) = [e.text for e in events if isinstance(e, Notice)
                  and e.text.startswith("Automatic compression skipped")]
    assert "it would save ~" in skipped


def test_each_automatic_compaction_saves_a_real_share(session):
    """Where automatic compaction does run, it cuts the prompt well below the trigger."""
    s = session(context_windows={MODEL: 8000}, compression_threshold=0.5)
    for _ in range(12):
        s.tool_turn()
        if len(s.summary_requests()):
            break
    assert s.summary_requests(), "the trigger never compacted"
    child = s.agent.session
    assert child.calls.context_estimate < 0.5 * 8000 * 0.9
