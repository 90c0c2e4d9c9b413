"""The bad-input battery, in-process: config, files, arguments and HTTP
requests. Each case asserts no traceback and a message naming the problem. (Provider
faults: tests/e2e/test_provider_faults.py; representative CLI runs: tests/e2e/.)"""

from __future__ import annotations

import traceback

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from agent.errors import ConfigError, HermesError
from frontend.config.settings import load_settings
from frontend.setup import Flags, agent_config
from gateway.boot import build_app, gateway_limits
from hermes_cli.app import app
from hermes_cli.argv_checks import bare_resume, checked_resume
from memory.errors import HermesMemoryError, StoreError
from memory.notes import Notes
from memory.store import SessionStore

# ---- config.yaml: every numeric setting x wrong shapes -----------------------------

NUMERIC = ["max_iterations", "max_tokens", "timeout", "retry.attempts", "retry.base_delay",
           "retry.max_delay", "compression.threshold", "gateway.header_timeout",
           "gateway.body_timeout", "gateway.max_connections"]
WRONG = ["lots", "[1, 2]", "{a: 1}", "-5"]


def _yaml(dotted: str, value: str) -> str:
    head, _, leaf = dotted.rpartition(".")
    return f"{head}: {{{leaf}: {value}}}\n" if head else f"{dotted}: {value}\n"


def _config_error(home, tmp_path) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        settings = load_settings(home)
        agent_config(settings, Flags(), tmp_path)
        gateway_limits(settings)
    return caught.value


@pytest.mark.parametrize("value", WRONG)
@pytest.mark.parametrize("dotted", NUMERIC)
def test_wrong_numeric_setting_names_the_key(dotted, value, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text("provider: anthropic\napi_key: k\n" + _yaml(dotted, value))
    error = _config_error(hermes_home, tmp_path)
    assert f"`{dotted}`" in error.message and error.hint


BROKEN_YAML = [
    "provider: [anthropic\n", "a: b: c\n", "key: 'unterminated\n", "\t- tab indented\n",
    "x: {y: 1\n", "? complex\n: [\n", "provider: anthropic\n  model: bad-indent\n",
    "- just\n- a list\n", "just a string\n", "42\n", "%YAML 9.9\n---\nx: 1\n",
    "x: !!python/object:os.system ls\n",
]


@pytest.mark.parametrize("text", BROKEN_YAML)
def test_broken_yaml_is_one_config_error(text, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text(text)
    error = _config_error(hermes_home, tmp_path)
    assert "config.yaml" in error.message


SECTIONS = ["cache", "retry", "compression", "gateway", "memory", "prices", "personalities",
            "context_windows"]


@pytest.mark.parametrize("section", SECTIONS)
@pytest.mark.parametrize("value", ["5", "[a, b]", "text"])
def test_section_that_is_not_a_mapping_is_named(section, value, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text(f"provider: anthropic\napi_key: k\n{section}: {value}\n")
    error = _config_error(hermes_home, tmp_path)
    assert f"`{section}`" in error.message


@pytest.mark.parametrize(("text", "named"), [
    ("provider: mistral\n", "provider"), ("provider: 5\n", "provider"),
    ("model: [a]\n", "model"), ("fallback_model: [x]\n", "fallback_model"), ("cache: {ttl: 7d}\n", "cache.ttl"),
])
def test_wrong_choices_are_named(text, named, hermes_home, tmp_path):
    prefix = "api_key: k\n" if text.startswith("provider") else "provider: anthropic\napi_key: k\n"
    (hermes_home / "config.yaml").write_text(prefix + text)
    assert named in _config_error(hermes_home, tmp_path).message


# ---- files: notes, store -----------------------------------------------------------

NOTE_CONTENTS = {"binary": b"\xff\xfe\x00\x80" * 100, "latin1": "caf\xe9".encode("latin-1")}


@pytest.mark.parametrize("target", ["memory", "user"])
@pytest.mark.parametrize("kind", sorted(NOTE_CONTENTS))
def test_unreadable_notes_are_named(target, kind, tmp_path):
    notes = Notes(tmp_path)
    notes.dir.mkdir()
    notes.path(target).write_bytes(NOTE_CONTENTS[kind])
    [problem] = notes.problems()
    assert notes.path(target).name in problem and "not UTF-8" in problem


STORE_FILES = {"elf": b"\x7fELF" + bytes(300), "text": b"hello\n" * 2000,
               "truncated-header": b"SQLite format 3\x00" + b"\x00" * 50,
               "random": bytes(range(256)) * 64}


@pytest.mark.parametrize("kind", sorted(STORE_FILES))
def test_garbage_state_db_is_named(kind, tmp_path):
    path = tmp_path / "state.db"
    path.write_bytes(STORE_FILES[kind])
    with pytest.raises(StoreError) as caught:
        SessionStore(path).list_sessions()
    assert "state.db" in caught.value.message and caught.value.hint


# ---- arguments, through the Typer app in-process -------------------------------------

ARGS = [
    (["--max-turns", "many", "-q", "x"], "--max-turns"),
    (["--port-typo"], "--port-typo"),
    (["gateway", "--port", "99999"], "--port"),
    (["gateway", "--port", "-3"], "--port"),
    (["gateway", "--port", "eighty"], "--port"),
    (["sessions", "list", "--limit", "0"], "--limit"),
    (["sessions", "list", "--limit", "x"], "--limit"),
    (["sessions", "export"], "SESSION_ID"),
    (["sessions", "show"], "SESSION_ID"),
    (["nosuchcommand"], "nosuchcommand"),
    (["prompt", "show", "--session"], "--session"),
    (["-q"], "-q"),
]


@pytest.mark.parametrize(("args", "named"), ARGS)
def test_bad_arguments_are_a_usage_line(args, named, hermes_home):
    result = CliRunner().invoke(app, args, env={"HERMES_HOME": str(hermes_home)})
    assert result.exit_code == 2
    assert named.lower() in result.output.lower()
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("args", "named"), [
    (["-q", "   "], "the question given to -q is empty"),
    (["--resume", "", "-q", "x"], "--resume needs a session id"),
    (["--resume", "nope", "-q", "x"], "No session matches"),
    (["sessions", "show", "nope"], "No session matches"),
    (["sessions", "export", "nope"], "No session matches"),
    (["sessions", "usage", "nope"], "No session matches"),
    (["sessions", "export", "x", "--format", "pdf"], "unknown export format"),
    (["skills", "show", "no-such-skill"], "no-such-skill"),
])
def test_bad_values_are_a_hermes_error(args, named, hermes_home):
    (hermes_home / "config.yaml").write_text("provider: anthropic\napi_key: k\n")
    result = CliRunner().invoke(app, args, env={"HERMES_HOME": str(hermes_home)})
    assert isinstance(result.exception, HermesError | HermesMemoryError), result.output
    assert named in result.exception.message


@pytest.mark.parametrize(("argv", "expected"), [
    (["--resume"], ["--resume=?"]), (["-r", "-q", "x"], ["--resume=?", "-q", "x"]),
    (["--resume", "abc"], ["--resume", "abc"]), (["-q", "x", "--", "-r"], ["-q", "x", "--", "-r"]),
])
def test_a_bare_resume_asks_for_the_picker(argv, expected):
    assert bare_resume(argv) == expected


def test_the_picker_is_not_for_one_shot(hermes_home):
    result = CliRunner().invoke(app, ["--resume=?", "-q", "x"], env={"HERMES_HOME": str(hermes_home)})
    assert result.exit_code == 1
    assert "--resume without an id picks a session for the REPL" in result.output


@pytest.mark.parametrize("word", ["", " ", "\t", "\n"])
def test_empty_resume_words(word):
    with pytest.raises(ConfigError, match="--resume needs a session id"):
        checked_resume(word)


# ---- HTTP requests, in-process (starlette TestClient: no socket) --------------------

KEY = "battery-key-0123456789"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    (home / "config.yaml").write_text(
        f"provider: anthropic\napi_key: k\nbase_url: http://127.0.0.1:9\n"
        f"gateway: {{api_keys: [{KEY}]}}\n")
    with TestClient(build_app(load_settings(home), home), raise_server_exceptions=False) as test:
        yield test


AUTH = {"Authorization": f"Bearer {KEY}"}
BODIES = [
    (b"", "body"), (b"{", "JSON"), (b"[]", "object"), (b"null", "object"), (b'"text"', "object"),
    (b'{"messages": []}', "messages"), (b'{"messages": 5}', "messages"),
    (b'{"messages": [5]}', "messages"), (b'{"messages": [{"role": "robot", "content": "x"}]}', "messages"),
    (b'{"messages": [{"role": "user"}]}', "messages"),
    (b'{"messages": [{"role": "user", "content": null}]}', "messages"),
    (b'{"messages": [{"role": "user", "content": "x"}], "stream": 1}', "stream"),
    (b'{"messages": [{"role": "user", "content": "x"}], "model": 5}', "model"),
    (b'{"messages": [{"role": "user", "content": "x"}], "model": ["a"]}', "model"),
    (b'{"messages": [{"role": "user", "content": "x"}], "reasoning_effort": "max!"}', "reasoning_effort"),
    (b'\xff\xfe{"messages"}', "JSON"),
    # JSON allows a lone surrogate escape; refused before the turn runs (and is billed)
    (b'{"messages": [{"role": "user", "content": "\\ud800"}]}', "messages[0].content holds a lone"),
    (b'{"messages": [{"role": "user", "content": [{"type": "text", "text": "a\\udfffb"}]}]}',
     "messages[0].content[0].text holds a lone"),
    (b'{"messages": [{"role": "system", "content": "\\ud83d"}, {"role": "user", "content": "x"}]}',
     "messages[0].content holds a lone"),
    (b'{"messages": [{"role": "user", "content": "x"}], "user": "\\udc00"}', "user holds a lone"),
]


@pytest.mark.parametrize(("body", "named"), BODIES)
def test_bad_request_bodies_are_4xx_json(client, body, named):
    response = client.post("/v1/chat/completions", content=body,
                           headers={**AUTH, "X-Hermes-Session-Id": "battery"})
    assert 400 <= response.status_code < 500, response.text
    message = response.json()["error"]["message"]
    assert named.lower() in (message + str(response.json()["error"].get("param"))).lower()


@pytest.mark.parametrize(("headers", "status"), [
    ({}, 401), ({"Authorization": "Bearer wrong"}, 401), ({"Authorization": "Basic abc"}, 401),
    ({"Authorization": "Bearer"}, 401), ({"Authorization": "Bearer " + "x" * 10_000}, 401),
])
def test_bad_auth_is_401_json(client, headers, status):
    response = client.post("/v1/chat/completions", json={"messages": [{"role": "user", "content": "x"}]},
                           headers=headers)
    assert response.status_code == status
    assert response.json()["error"]["message"]


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/v1/nothing", 404), ("DELETE", "/v1/chat/completions", 405),
    ("PUT", "/health", 405), ("GET", "/v1/sessions/%ff/usage", 404), ("GET", "/../../etc/passwd", 404),
])
def test_bad_routes_are_json(client, method, path, status):
    response = client.request(method, path, headers=AUTH)
    assert response.status_code == status
    assert response.json()["error"]["message"]


def test_no_traceback_was_printed(capfd):
    assert "Traceback" not in capfd.readouterr().err
    assert traceback  # (imported for clarity: the battery's contract)
