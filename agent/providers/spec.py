"""What a provider declares about itself: its profile, settings, prices and catalogue.

Each provider package (`agent/providers/<name>/__init__.py`) defines one `SPEC` of this
type; `agent.providers.registry` lists them and answers every question the rest of the
code asks about a provider. Pure data: no SDK import, no import of an adapter (the
adapter is named by its module path and loaded by `make_provider` on first use).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from agent.providers.cache_model import CacheModelFor


@dataclass(frozen=True)
class ProviderProfile:
    """What the wire supports for one provider + model family."""

    api_mode: str  # e.g. "anthropic-messages" | "chat-completions" | "responses"
    sdk_module: str  # the SDK imported on first use (warm-up imports it early)
    # "module:Model": SDK models every call validates, whose schemas pydantic builds on
    # first use (~30 ms of CPU a process); the warm start server builds them ahead
    prebuilt: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImageLimits:
    """What one attached image may be on this provider's wire: an image over any limit
    is scaled down once, at attach time (agent/providers/image_scale.py), never per request.
    `tokens(width, height)` is the provider's own estimate of what the image costs."""

    max_edge: int  # the long edge, pixels
    max_pixels: int  # width * height
    max_bytes: int  # the encoded image (base64 text, as sent)
    tokens: Callable[[int, int], int]
    short_edge: int = 0  # the short edge, pixels (0: no limit)


def _no_claim(model: str) -> bool:
    return False


def pixel_tokens(width: int, height: int) -> int:
    """~width * height / 750 tokens (Anthropic's published estimate)."""
    return max(1, -(-width * height // 750))


# The conservative default for a provider that declares none: the tightest published
# limits (Anthropic's, see agent/providers/anthropic/__init__.py).
DEFAULT_IMAGES = ImageLimits(max_edge=1568, max_pixels=1_150_000, max_bytes=5 * 1024 * 1024,
                             tokens=pixel_tokens)


def _all_see(model: str) -> bool:
    return True


@dataclass(frozen=True)
class Credentials:
    """How a person gives hermes a provider's key and endpoint (what `hermes doctor` and
    the settings read): the env vars the key is read from, in order; the env var of a
    base URL and the default URL (None: the provider has none - a base URL is required);
    the config.yaml keys that set them."""

    key_vars: tuple[str, ...]
    url_var: str
    default_url: str | None
    config_keys: tuple[str, ...] = ("api_key", "base_url")


@dataclass(frozen=True)
class ProviderSpec:
    """One provider: everything hermes knows about it, in one place.

    Names: `name` is stored in sessions and usage rows; `names` are what settings accept
    (`provider:`, `--provider`), all served by this spec's adapter.
    """

    name: str
    names: tuple[str, ...]
    label: str  # how a person reads it: "Anthropic"
    adapter: str  # "module.path:ClassName" of its Provider (loaded on first use)
    # --- profile
    profile: Callable[[str], ProviderProfile]  # model -> what the wire supports
    # (model, wire API) -> how it caches a prefix (agent/providers/cache_model.py)
    cache_model: CacheModelFor
    thinking_modes: Callable[[str], tuple[str, ...]]  # model -> "off"/"budget"/"adaptive"
    efforts: tuple[str, ...]  # reasoning effort levels it accepts
    # --- settings validation
    key_var: str  # the env var holding its API key (the SDK's own)
    url_var: str  # the env var holding a base URL
    keyless_with_url: bool = False  # a custom base URL needs no key (local servers)
    needs_url: bool = False  # it has no default endpoint: a base URL is required
    setup_hint: str = ""  # one clause for "no provider configured"
    # seconds of silence before a stalled stream is abandoned (config `timeout:` wins):
    # the longest gap a healthy stream of this provider shows (README, "Timeouts")
    stall_timeout: float = 120.0
    # --- prices and models
    price_ids: tuple[str, ...] = ()  # genai-prices provider ids whose data prices its models
    # rules for missing prices: (input price, model) -> prices (agent.providers.cache_model:
    # cache_read, cache_write_5m, cache_write_1h; storage_hour where storage is billed)
    cache_prices: Callable[[float, str], dict[str, float]] | None = None
    price_note: str = ""  # those rules in words (`hermes models`)
    models: tuple[tuple[str, int], ...] = field(default=())  # (model id, min cacheable tokens)
    default_model: str | None = None
    claims: Callable[[str], bool] = _no_claim  # a model id only this provider makes
    # --- images (agent/images.py): the limits one image is scaled to, and which models
    # take images at all (False: attaching one is refused before any request)
    images: ImageLimits = DEFAULT_IMAGES
    vision: Callable[[str], bool] = _all_see
    # other env vars the SDK also reads a key from, after `key_var` (Gemini: GOOGLE_API_KEY)
    alt_key_vars: tuple[str, ...] = ()
    # --- endpoint: the default base URL (None with `needs_url`), and the path under it
    # that lists the models a key may use - one authenticated GET, no tokens spent: what
    # a doctor check calls to prove the key and the URL
    default_url: str | None = None
    models_list_path: str = "/models"

    @property
    def credentials(self) -> Credentials:
        """Its key and endpoint settings, as `Credentials`."""
        return Credentials((self.key_var, *self.alt_key_vars), self.url_var,
                           None if self.needs_url else self.default_url)

    def key_in(self, env: Mapping[str, str]) -> str | None:
        """Its API key in `env`: `key_var`, else the first alternative set."""
        return next((env[var] for var in (self.key_var, *self.alt_key_vars) if env.get(var)), None)
