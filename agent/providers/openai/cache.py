"""OpenAI's cache models: automatic prefix caching on both wires, GPT-5.6's marks on the
Responses API (agent.providers.cache_model describes the protocol).

- Chat Completions: automatic, read in 128-token steps, entries kept 5 min (24 h on
  request with `prompt_cache_retention` where the model offers it); a Claude model behind
  an OpenAI-compatible router still takes explicit marks (Anthropic's 5m/1h).
- Responses, GPT-5.6+ on OpenAI itself: our marks become `prompt_cache_breakpoint`s,
  the lifetimes 5m/1h map to 30m/12h (`prompt_cache_options.ttl`), keep-warm is a
  `prewarm` (prepares the cache, generates nothing).
- Responses, earlier models or another server: automatic, as on Chat Completions, with
  the Responses lifetimes the diagnosis compares idle gaps with (30m/12h).
"""

from __future__ import annotations

from collections.abc import Callable

from agent.providers.anthropic import is_claude
from agent.providers.cache_model import MARKER_SECONDS, CacheModel, PrefixCache

# OpenAI's automatic prefix caching reads in 128-token steps (docs/CACHING.md section 1).
CACHE_STEP = 128
# GPT-5.6+ on the Responses API: the planner's marks (agent/modelcall/caching.py) become
# `prompt_cache_breakpoint`s (agent/providers/openai/responses_map.py; "tools" marks have
# no part there and are skipped). OpenAI writes the latest 4 explicit breakpoints in
# `explicit` mode, matches at the latest 80; `implicit` mode would spend one of the 4
# writes on its own end-of-prompt breakpoint, which duplicates our tail mark - so explicit
# mode whenever we mark (never dearer: it writes a superset). Lifetimes: cache.ttl 5m/1h
# map to OpenAI's 30m/12h.
WIRE_LIFETIMES = {"5m": "30m", "1h": "12h"}
RESPONSES_SECONDS = {"5m": 1800.0, "1h": 43200.0}


def openai_cache(model: str, wire: str, *, controls: bool,  # noqa: PLR0913 - one fact each
                 retention: Callable[[str], bool | None], described: Callable[[str], str],
                 marks: Callable[[str], bool], reports_writes: bool) -> CacheModel:
    """The cache model of `model` over `wire` ("responses" | "chat-completions");
    `controls`: the server takes GPT-5.6's cache controls (OpenAI itself), `marks`:
    GPT-5.6+ (the controls exist for the model)."""
    keeps = retention(model)
    text = described(model)
    if wire == "responses":
        if controls and marks(model):
            return PrefixCache("markers", 0, RESPONSES_SECONDS, WIRE_LIFETIMES, keeps,
                               refresh_generates=False, reports_writes=reports_writes,
                               described=text)
        return PrefixCache("automatic", CACHE_STEP, RESPONSES_SECONDS, None, keeps,
                           refresh_generates=False, reports_writes=reports_writes,
                           described=text)
    if is_claude(model):  # a router's Claude: explicit marks inside content parts
        return PrefixCache("markers", 0, MARKER_SECONDS, None, keeps,
                           reports_writes=reports_writes, described=text)
    return PrefixCache("automatic", CACHE_STEP, MARKER_SECONDS, None, keeps,
                       reports_writes=reports_writes, described=text)
