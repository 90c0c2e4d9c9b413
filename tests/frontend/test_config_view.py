"""/config: each setting in force with where it came from; secrets never shown (fast tier)."""

from __future__ import annotations

from pathlib import Path

from frontend.config.settings import Settings
from frontend.config_view import in_force
from frontend.setup import Flags


def _rows(tmp_path: Path, raw: dict, flags: Flags, env: dict[str, str]) -> dict[str, tuple[str, str]]:
    settings = Settings(home=tmp_path, raw=raw)
    rows = in_force(settings, flags, "claude-sonnet-5", "anthropic", environ=env)
    return {r.key: (r.value, r.source) for r in rows}


def test_flags_config_and_environment_are_named_as_sources(tmp_path):
    raw = {"model": "claude-sonnet-5", "cache": {"ttl": "1h"}, "api_key": "sk-secret-1",
           "gateway": {"telegram": {"allowed_users": [1, 2]}, "metrics_key": "m-secret"}}
    rows = _rows(tmp_path, raw, Flags(yolo=True, skills=("a", "b")),
                 {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9/"})
    config = str(tmp_path / "config.yaml")
    assert rows["model"] == ("claude-sonnet-5", f"{config} `model`")
    assert rows["base_url"] == ("http://127.0.0.1:9/", "environment ANTHROPIC_BASE_URL")
    assert rows["api_key"] == ("set (hidden)", f"{config} `api_key`")
    assert rows["yolo"] == ("True", "command line --yolo")
    assert rows["skills"] == ("a,b", "command line --skills")
    assert rows["cache.ttl"] == ("1h", config)
    assert rows["gateway.telegram.allowed_users"] == ("[1, 2]", config)
    assert rows["gateway.metrics_key"][0] == "set (hidden)"
    shown = repr(rows)
    assert "sk-secret-1" not in shown and "m-secret" not in shown


def test_a_model_switched_in_the_session_says_so(tmp_path):
    rows = _rows(tmp_path, {"model": "claude-opus-5"}, Flags(model="claude-opus-5"),
                 {"ANTHROPIC_API_KEY": "k"})
    assert rows["model"] == ("claude-sonnet-5", "this session (/model or --resume)")
    assert rows["api_key"] == ("set (hidden)", "environment ANTHROPIC_API_KEY")
    assert rows["base_url"][1] == "built-in default"


def test_the_provider_default_model_says_so_and_defaults_are_listed(tmp_path):
    """Before: /config said the default model came from "/model or --resume" and
    listed no defaults."""
    from agent.providers.models import default_model

    model = default_model("anthropic")
    settings = Settings(home=tmp_path, raw={"cache": {"ttl": "1h"}})
    rows = {r.key: (r.value, r.source)
            for r in in_force(settings, Flags(), model, "anthropic", environ={})}
    assert rows["model"] == (model, "the default model of Anthropic (no --model or `model:`)")
    assert rows["max_iterations"] == ("90", "default")
    assert rows["cache.keep_warm"] == ("auto", "default")
    assert rows["cache.ttl"] == ("1h", str(tmp_path / "config.yaml"))  # set: not a default


def test_a_key_read_from_dotenv_says_so(tmp_path, monkeypatch):
    """The key's source is HERMES_HOME/.env when that is where it was read, not "environment"."""
    from frontend.config.settings import load_settings

    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    monkeypatch.delenv("ANTHROPIC_API_KEY")  # restored (absent) after the test
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/")  # from the shell
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=sk-from-file\n")
    settings = load_settings(tmp_path)
    rows = {r.key: (r.value, r.source) for r in in_force(settings, Flags(), "m", "anthropic")}
    assert rows["api_key"] == ("set (hidden)", f"{tmp_path / '.env'} ANTHROPIC_API_KEY")
    assert rows["base_url"][1] == "environment ANTHROPIC_BASE_URL"
