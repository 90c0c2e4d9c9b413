"""Bad input met before any call, in-process: config.yaml nested without end or not a
regular file, unusable base URLs from each place they come from, spend limits that are
not finite, a stored session whose JSON columns were damaged. Each is one ConfigError or
StoreError naming the problem, never a traceback or a hang."""

from __future__ import annotations

import math
import os
import sqlite3
import threading

import pytest

from agent.errors import ConfigError
from frontend.config.provider_choice import resolve_provider
from frontend.config.settings import load_settings
from frontend.setup import Flags, budget_limits
from memory.errors import StoreError
from memory.store import SessionStore

DEADLINE = 20.0


@pytest.mark.parametrize("text", [
    "a: " + "[" * 5000 + "]" * 5000 + "\n",  # the parser's own recursion runs out
    "a: " + "{b: " * 3000 + "1" + "}" * 3000 + "\n",
    "a: " + "[" * 100 + "]" * 100 + "\n",  # parses, but deeper than any setting
])
def test_deeply_nested_config_is_one_error(text, hermes_home):
    (hermes_home / "config.yaml").write_text(text)
    with pytest.raises(ConfigError, match="nested more than 32 levels deep"):
        load_settings(hermes_home)


def test_aliases_that_multiply_are_walked_once(hermes_home):
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 12)]
    (hermes_home / "config.yaml").write_text("\n".join(lines) + "\n")
    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(load_settings(hermes_home)), daemon=True)
    worker.start()
    worker.join(DEADLINE)
    assert done, "10^12 alias paths were walked one by one"


@pytest.mark.parametrize("name", ["config.yaml", ".env"])
def test_settings_file_that_is_a_fifo_is_refused_not_waited_on(name, hermes_home):
    fifo = hermes_home / name
    os.mkfifo(fifo)
    caught: list[BaseException] = []

    def load() -> None:
        try:
            load_settings(hermes_home)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            caught.append(exc)

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(DEADLINE)
    if worker.is_alive():  # the old way: open() waits for a writer; be one, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(DEADLINE)
        pytest.fail(f"reading {name} as a FIFO waited for a writer")
    assert len(caught) == 1 and isinstance(caught[0], ConfigError), caught
    assert f"{name} is a FIFO, not a regular file" in caught[0].message


BAD_URLS = ["http://[::1", "::garbage::", "http://127.0.0.1:99999", "ftp://example.com",
            "localhost:8080", "http://"]


@pytest.mark.parametrize("url", BAD_URLS)
@pytest.mark.parametrize(("provider", "source"), [
    ("anthropic", "--base-url"), ("anthropic", "config.yaml `base_url`"),
    ("anthropic", "ANTHROPIC_BASE_URL"), ("openai", "OPENAI_BASE_URL"),
])
def test_unusable_base_url_names_where_it_came_from(url, provider, source, hermes_home):
    config = f"provider: {provider}\napi_key: k\n"
    if source.startswith("config"):
        config += f"base_url: '{url}'\n"
    (hermes_home / "config.yaml").write_text(config)
    environ = {source: url} if source.endswith("_URL") else {}
    with pytest.raises(ConfigError) as caught:
        resolve_provider(load_settings(hermes_home), environ=environ,
                         base_url=url if source == "--base-url" else None)
    assert caught.value.message.startswith(f"{source} is not a usable URL: '{url}'")
    assert source in caught.value.hint


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/v1", "https://api.example.com",
                                 "http://[::1]:8080/v1", "HTTP://LOCALHOST/v1"])
def test_usable_base_urls_pass(url, hermes_home):
    (hermes_home / "config.yaml").write_text("provider: openai\napi_key: k\n")
    assert resolve_provider(load_settings(hermes_home), base_url=url, environ={}).base_url == url


@pytest.mark.parametrize("usd", [math.nan, math.inf, -math.inf, 0.0, -1.0])
def test_max_usd_must_be_finite_and_positive(usd, hermes_home):
    (hermes_home / "config.yaml").write_text("provider: anthropic\napi_key: k\n")
    with pytest.raises(ConfigError, match="--max-usd must be a finite number more than 0"):
        budget_limits(load_settings(hermes_home), Flags(max_usd=usd))


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_config_spend_limit_must_be_finite(value, hermes_home):
    (hermes_home / "config.yaml").write_text(f"provider: anthropic\napi_key: k\n"
                                             f"budget: {{session_usd: {value}}}\n")
    with pytest.raises(ConfigError, match="`budget.session_usd` must be a finite number"):
        budget_limits(load_settings(hermes_home), Flags())


DAMAGED = [
    ("tool_calls", '[{"id": "c1", "na', "not valid JSON"),
    ("tool_calls", "5", "not a list of {id, name, arguments}"),
    ("tool_calls", '[{"x": 1}]', "not a list of {id, name, arguments}"),
    ("tool_calls", '[{"id": "c1", "name": "todo", "arguments": 7}]', "not a list"),
    ("reasoning", "[1, 2]", "not a list of texts"),
    ("reasoning", "{", "not valid JSON"),
]


def stored_session(home, column: str, value: str) -> SessionStore:
    store = SessionStore(home / "state.db")
    store.create_session("s1", model="claude-sonnet-4-5", provider="anthropic", system_prompt="s")
    store.append_message("s1", role="user", content="hi")
    store.append_message("s1", role="assistant", content="",
                         tool_calls=[{"id": "c1", "name": "todo", "arguments": "{}"}],
                         reasoning=["thought"])
    store.append_message("s1", role="tool", content="ok", tool_call_id="c1", tool_name="todo")
    with sqlite3.connect(home / "state.db") as db:
        db.execute(f"UPDATE messages SET {column} = ? WHERE role = 'assistant'", [value])
    return store


@pytest.mark.parametrize(("column", "value", "why"), DAMAGED)
def test_damaged_stored_message_is_a_store_error(column, value, why, hermes_home):
    store = stored_session(hermes_home, column, value)
    with pytest.raises(StoreError) as caught:
        store.messages("s1")
    assert f"the stored {column} of message" in caught.value.message
    assert "of session s1 is damaged" in caught.value.message and why in caught.value.message
    assert caught.value.hint
