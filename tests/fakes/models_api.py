"""The models lists: `GET /v1/models` (Anthropic, OpenAI; Gemini's SDK with a custom
base URL asks there too, with `x-goog-api-key`) and `GET /v1beta/models` (Gemini), as
the real APIs answer them, keys checked.

What `hermes doctor` calls to see that a key is accepted. A key is accepted unless it is
missing or in `FakeProvider.rejected_keys`; a rejected key is answered as each API does:
Anthropic 401 `authentication_error` "invalid x-api-key"; OpenAI 401 `invalid_api_key`
"Incorrect API key provided"; Gemini 400 INVALID_ARGUMENT with the ErrorInfo reason
API_KEY_INVALID ("API key not valid"), and 403 PERMISSION_DENIED for no key at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from .script import Outcome, Record

if TYPE_CHECKING:
    from .server import FakeProvider

ANTHROPIC_MODELS = ("claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1")
OPENAI_MODELS = ("gpt-5", "gpt-5-mini", "gpt-4.1")
GEMINI_MODELS = ("gemini-2.5-flash", "gemini-2.5-pro", "gemini-3.5-flash")
PATHS = ("/v1/models", "/v1beta/models", "/v1alpha/models")


def _bearer(rec: Record) -> str:
    auth = rec.headers.get("authorization", "")
    return auth[7:].strip() if auth.startswith("Bearer ") else ""


def _masked(key: str) -> str:
    return key[:3] + "*" * max(0, len(key) - 7) + key[-4:] if len(key) > 8 else "****"


def handle(p: FakeProvider, rec: Record, query: str) -> Outcome:
    """Route a models-list GET by its path and headers (Anthropic's SDK sends
    `anthropic-version`, Google's `x-goog-api-key`); `query`: the URL's query string."""
    args = parse_qs(query)
    if rec.path != "/v1/models" or "x-goog-api-key" in rec.headers or "key" in args:
        rec.api = "gemini"
        return _gemini(p, rec, args)
    if "anthropic-version" in rec.headers:
        rec.api = "anthropic"
        return _anthropic(p, rec, args)
    rec.api = "openai"
    return _openai(p, rec)


def _answer(rec: Record, status: int, body: dict[str, Any], error: str | None = None) -> Outcome:
    rec.status, rec.error = status, error
    return Outcome(status, body=body)


def _anthropic(p: FakeProvider, rec: Record, args: dict[str, list[str]]) -> Outcome:
    key = rec.headers.get("x-api-key") or _bearer(rec)
    if not key or key in p.rejected_keys:
        message = "invalid x-api-key" if key else "x-api-key header is required"
        return _answer(rec, 401, {"type": "error", "error": {
            "type": "authentication_error", "message": message},
            "request_id": p.new_id("req_")}, message)
    limit = int(args.get("limit", ["20"])[0])
    data = [{"type": "model", "id": m, "display_name": m, "created_at": "2025-09-29T00:00:00Z"}
            for m in ANTHROPIC_MODELS[:limit]]
    return _answer(rec, 200, {"data": data, "has_more": limit < len(ANTHROPIC_MODELS),
                              "first_id": data[0]["id"] if data else None,
                              "last_id": data[-1]["id"] if data else None})


def _openai(p: FakeProvider, rec: Record) -> Outcome:
    key = _bearer(rec)
    if not key or key in p.rejected_keys:
        message = (f"Incorrect API key provided: {_masked(key)}. You can find your API key at "
                   "https://platform.openai.com/account/api-keys." if key else
                   "You didn't provide an API key. You need to provide your API key in an "
                   "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")
        return _answer(rec, 401, {"error": {"message": message, "type": "invalid_request_error",
                                            "param": None,
                                            "code": "invalid_api_key" if key else None}}, message)
    return _answer(rec, 200, {"object": "list", "data": [
        {"id": m, "object": "model", "created": 1_750_000_000, "owned_by": "openai"}
        for m in OPENAI_MODELS]})


def _gemini(p: FakeProvider, rec: Record, args: dict[str, list[str]]) -> Outcome:
    key = rec.headers.get("x-goog-api-key") or args.get("key", [""])[0]
    if not key:
        message = ("Method doesn't allow unregistered callers (callers without established "
                   "identity). Please use API Key or other form of API consumer identity to "
                   "call this API.")
        return _answer(rec, 403, {"error": {"code": 403, "message": message,
                                            "status": "PERMISSION_DENIED"}}, message)
    if key in p.rejected_keys:
        message = "API key not valid. Please pass a valid API key."
        return _answer(rec, 400, {"error": {"code": 400, "message": message,
                                            "status": "INVALID_ARGUMENT", "details": [{
                                                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                                                "reason": "API_KEY_INVALID",
                                                "domain": "googleapis.com"}]}}, message)
    size = int(args.get("pageSize", ["50"])[0])
    models = [{"name": f"models/{m}", "version": "001", "displayName": m,
               "inputTokenLimit": 1_048_576, "outputTokenLimit": 65_536,
               "supportedGenerationMethods": ["generateContent", "countTokens",
                                              "createCachedContent"]}
              for m in GEMINI_MODELS[:size]]
    body: dict[str, Any] = {"models": models}
    if size < len(GEMINI_MODELS):
        body["nextPageToken"] = "next"
    return _answer(rec, 200, body)

