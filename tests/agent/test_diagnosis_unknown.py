"""A call that read nothing although its prefix was unchanged and inside the TTL (the
provider evicted the entry early): the cause says what happened, the detail gives the
figures, and /usage shows them without repeating itself (fast tier)."""

from __future__ import annotations

from agent.diagnosis import CacheFacts, Fingerprint, diagnose
from agent.usage import Usage
from frontend.miss_causes import CAUSE_EXPLANATIONS


def test_an_entry_evicted_before_its_ttl_is_explained_with_its_figures():
    fp = Fingerprint("m", "t", "s", "", ("a", "b"))
    grown = Fingerprint("m", "t", "s", "", ("a", "b", "c"))
    found = diagnose(previous=fp, current=grown, usage=Usage(write_5m=5_000, uncached=20, calls=1),
                     provider_reason=None, provider_missed=None,
                     facts=CacheFacts(gap_seconds=90, ttl_seconds=300, prefix_tokens=3_000,
                                      min_tokens=1_024, previous_prompt=4_800))
    assert found.cause == "unknown"
    assert found.detail == "0 of ~4,800 tokens read 90 s after the previous call, within the 5-min TTL"
    explanation = CAUSE_EXPLANATIONS["unknown"]
    assert "dropped the entry before its TTL" in explanation
    assert found.detail not in explanation and "unchanged" not in found.detail
