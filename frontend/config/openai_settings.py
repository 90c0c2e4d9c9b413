"""config.yaml's `openai:` section: which wire API and whether responses are stored.

    openai:
      api: auto    # auto | responses | chat: auto = Responses on OpenAI's and Azure's
                   # hosts, Chat Completions on every other server (llama.cpp, vLLM...)
      store: true  # Responses `store`: false for ZDR organisations (then cache misses
                   # are diagnosed client-side only)
"""

from __future__ import annotations

from typing import Any

from agent.errors import ConfigError
from agent.providers.openai import API_MODES as OPENAI_API_MODES
from frontend.config.settings import Settings


def openai_options(settings: Settings) -> dict[str, Any]:
    """The ProviderSettings keywords of the `openai:` section (one clear line if wrong)."""
    api = settings.get("openai.api", "auto", kind=str)
    if api not in OPENAI_API_MODES:
        raise ConfigError(f"config.yaml: `openai.api` must be auto, responses or chat, got {api!r}",
                          "e.g. `openai: {api: chat}` for a server without the Responses API")
    return {"api": api, "store": bool(settings.get("openai.store", True, kind=bool))}
