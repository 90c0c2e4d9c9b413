"""WhatsApp's facts as pure data (a platform registry may read them; nothing imported)."""

NAME = "whatsapp"
TOKENS = ("WHATSAPP_ACCESS_TOKEN", "WHATSAPP_APP_SECRET", "WHATSAPP_VERIFY_TOKEN")
CONFIG_KEYS = ("phone_number_id", "base_url", "allowed_users", "listen")
CHAT_ID = "the user's phone number, digits only with the country code: 15550001111"
USER_ID = r"^\d{6,15}$"  # E.164 without the +
TARGET = "whatsapp:NUMBER"  # a cron delivery target, e.g. whatsapp:15550001111
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
