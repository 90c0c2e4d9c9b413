"""Matrix's facts as pure data (a platform registry may read them; nothing imported)."""

NAME = "matrix"
TOKENS = ("MATRIX_ACCESS_TOKEN",)
CONFIG_KEYS = ("homeserver", "user_id", "allowed_users", "edit_interval")
CHAT_ID = "a room id: !opaque:server"  # e.g. !abcdEFGH:example.org
USER_ID = r"^@[^:\s]+:\S+$"  # @alice:example.org, taken as it is (not a number)
TARGET = "matrix:ROOM_ID"  # a cron delivery target, e.g. matrix:!abcdEFGH:example.org
EVENT_MAX_BYTES = 65_536  # the spec's limit on one event's JSON
PART_CHARS = 16_000  # one message's text (an edit carries it and its HTML twice)
RATE_PER_S = 0.2  # Synapse's rc_message default: one event every 5 s after a burst
BURST = 8  # below the server's 10: the first edits of a burst stay clear of its clock
EDIT_INTERVAL = 2.0  # s between edits of a streamed answer
