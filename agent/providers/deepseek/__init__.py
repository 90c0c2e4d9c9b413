"""DeepSeek (the DeepSeek API, Chat Completions through the official `openai` SDK): the
facts hermes keeps about it, as one ProviderSpec. The adapter is `adapter.py`.

- Models: `deepseek-v4-flash` (the default), `deepseek-v4-pro`, and the older aliases
  `deepseek-chat` / `deepseek-reasoner`; `-m` with any of them selects this provider.
- Key and endpoint: `DEEPSEEK_API_KEY`, `DEEPSEEK_BASE_URL` (default
  https://api.deepseek.com; the SDK posts to `<base>/chat/completions`).
- Cache (docs/CACHING.md section 1, DeepSeek): automatic prefix caching on disk, on for
  every request, no marks and no write charge; hits come in 64-token units; usage
  reports `prompt_cache_hit_tokens` + `prompt_cache_miss_tokens` (their sum is the
  prompt). Entries live hours to days: nothing to keep warm.
- Thinking mode is on by default (DeepSeek's own default; hermes sends no toggle, only
  `reasoning_effort` when one is set). A reply's `reasoning_content` is kept with its
  message exactly as received and sent back on every later assistant message: with
  tools in the request DeepSeek refuses (HTTP 400) a history whose assistant messages
  lack it - also after `--resume` (the store keeps it).
- Prices: genai-prices' `deepseek` entries, in force at the time of the call (peak
  hours cost more: `agent/providers/price_source.py`).
"""

from __future__ import annotations

from agent.providers.cache_model import PrefixCache
from agent.providers.openai import CHAT_PROFILE
from agent.providers.spec import ProviderSpec

NAME = "deepseek"
DEFAULT_URL = "https://api.deepseek.com"
KEY_VAR, URL_VAR = "DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL"
CACHE_UNIT = 64  # hits are counted in 64-token units; shorter prefixes are not cached
ENTRY_SECONDS = 3600.0  # "hours to days" on disk: an hour is the least we assume
MODELS = tuple((model_id, CACHE_UNIT) for model_id in (
    "deepseek-v4-flash", "deepseek-v4-pro", "deepseek-chat", "deepseek-reasoner"))
# `reasoning_effort`: DeepSeek maps minimal/low -> low, medium/high/xhigh -> high, max
EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")
BLOCK = "reasoning_content"  # Message.reasoning block type: a reply's reasoning_content

CACHE = PrefixCache("automatic", CACHE_UNIT, {"5m": ENTRY_SECONDS, "1h": ENTRY_SECONDS},
                    reports_writes=False,
                    described="automatic, on disk, 64-token units, no write charge")


def is_deepseek(model: str) -> bool:
    """A DeepSeek model id ("deepseek-v4-flash", "deepseek/deepseek-chat" on a router)."""
    return model.lower().removeprefix("deepseek/").startswith("deepseek-")


def cache_prices(input_price: float, model: str = "") -> dict[str, float]:
    """No write charge (what is written is billed as input); a read the data lacks is
    priced at a tenth of input (the data lists every model we offer)."""
    return {"cache_read": 0.1 * input_price, "cache_write_5m": input_price,
            "cache_write_1h": input_price}


SPEC = ProviderSpec(
    name=NAME,
    names=(NAME,),
    label="DeepSeek",
    adapter="agent.providers.deepseek.adapter:DeepSeekProvider",
    profile=lambda model: CHAT_PROFILE,
    cache_model=lambda model, wire: CACHE,
    thinking_modes=lambda model: ("off",),  # no toggle sent: thinking is DeepSeek's default
    efforts=EFFORTS,
    key_var=KEY_VAR,
    url_var=URL_VAR,
    default_url=DEFAULT_URL,
    models_list_path="/models",
    stall_timeout=300.0,  # thinking streams reasoning, but a long prefill shows as silence
    price_ids=(NAME,),
    cache_prices=cache_prices,
    price_note="DeepSeek caches automatically (no write charge); peak hours cost more",
    models=MODELS,
    default_model="deepseek-v4-flash",
    claims=is_deepseek,
    vision=lambda model: False,  # text only on the Chat Completions API
)
