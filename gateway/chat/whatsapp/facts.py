"""WhatsApp, as data (gateway/chat/kit/facts.py), and the Cloud API's published limits."""

from __future__ import annotations

from gateway.chat.kit.facts import PlatformFacts, TokenCheck

NAME = "whatsapp"
TOKENS = ("WHATSAPP_ACCESS_TOKEN", "WHATSAPP_APP_SECRET", "WHATSAPP_VERIFY_TOKEN")
CONFIG_KEYS = ("phone_number_id", "base_url", "allowed_users", "listen")
USER_ID = r"^\d{6,15}$"  # E.164 without the +
BASE_URL = "https://graph.facebook.com"
API_VERSION = "v21.0"
WEBHOOK_PATH = "/whatsapp/webhook"
WEBHOOK_MAX_BYTES = 1 << 20  # a webhook body (Meta's are a few KB): more is refused 413
TEXT_MAX = 4096  # characters of a text message's body
BUTTONS_MAX = 3  # reply buttons of an interactive message
BUTTON_TITLE_MAX = 20
BUTTON_BODY_MAX = 1024
# per user: a burst of up to 45 messages, then one every 6 s (the pair rate limit, 131056)
RATE_PER_S = 1 / 6
BURST = 40
ERROR_THROUGHPUT = 130429  # too many messages a second from the number (HTTP 429)
ERROR_PAIR_RATE = 131056  # too many messages to one user
ERROR_WINDOW = 131047  # more than 24 hours since the user last wrote: templates only
ERROR_TOKEN = 190  # the access token is invalid or expired

FACTS = PlatformFacts(
    name=NAME, label="WhatsApp", package="gateway.chat.whatsapp", tokens=TOKENS,
    config_keys=CONFIG_KEYS, base_url=BASE_URL,
    chat_id=USER_ID, chat_hint="a phone number (digits with the country code: 15550001111)",
    target="whatsapp:NUMBER", target_noun="the WhatsApp number",
    sender="the gateway's WhatsApp number: gateway.whatsapp in config.yaml and "
           "WHATSAPP_ACCESS_TOKEN (only within 24 hours of the user's last message)",
    token_check=TokenCheck("GET", API_VERSION + "/{phone_number_id}", auth="Bearer {token}",
                           shows="{display_phone_number}", error_field="error.message"),
    section_needed=True, builder="settings",
    replays=True,  # Meta retries an unacknowledged webhook for days
)
