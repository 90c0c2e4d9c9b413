"""The small exception family that carries control flow and user-facing messages.

Every error a user can cause or meet carries `message` (what is wrong) and `hint`
(how to fix it); front ends print both and never a traceback.
"""

from __future__ import annotations


class HermesError(Exception):
    """Base: an error with a message for the user and an optional hint."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class ConfigError(HermesError):
    """Configuration is missing or malformed."""


class ProviderError(HermesError):
    """The provider refused or failed the request (after retries, if transient)."""

    def __init__(self, message: str, hint: str = "", status: int | None = None) -> None:
        super().__init__(message, hint)
        self.status = status


class TransientProviderError(ProviderError):
    """Worth retrying: 429, 5xx, 529 overloaded, connection errors, timeouts."""

    def __init__(
        self, message: str, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after


class UnreachableProviderError(TransientProviderError):
    """No connection was made at all (refused, no such host, no route): on a session's
    first call that is a wrong base URL, not an outage - said at once, never retried."""


class AuthenticationError(ProviderError):
    """The API key was missing or rejected."""


class PromptTooLongError(ProviderError):
    """The prompt exceeds the model's context window."""


class TurnCancelled(HermesError):
    """The user cancelled the turn (Ctrl-C); history has been left valid.

    `partial` is the ProviderReply of what had arrived when the cancel cut the model's
    reply (None when nothing had), so the loop can keep what the user saw."""

    def __init__(self, message: str = "cancelled", partial: object = None) -> None:
        super().__init__(message)
        self.partial = partial


class ToolError(HermesError):
    """A tool failed in a way the model should read (returned as the tool result)."""
