"""config.yaml: a typo inside a section warns like a top-level one, with "did you mean";
YAML's `off`/`on` are the words the settings expect (fast tier)."""

from __future__ import annotations

from agent.providers.reasoning import from_config
from frontend.config.cache_settings import cache_options
from frontend.config.settings import load_settings

CONFIG = """\
budget: {turn_token: 100}
compression: {treshold: 0.5}
cache: {tll: 1h, keep_warm: off}
reasoning: {thinking: off}
sandbox: {enabled: on}
gateway: {telegram: {groups: mention, leader_tll: 5}}
modle: x
"""


def test_nested_typos_warn_with_did_you_mean_and_off_is_a_word(hermes_home):
    (hermes_home / "config.yaml").write_text(CONFIG)
    settings = load_settings(hermes_home)
    warned = "\n".join(settings.warnings)
    for typo, meant in (("budget.turn_token", "budget.turn_tokens"),
                        ("compression.treshold", "compression.threshold"),
                        ("cache.tll", "cache.ttl"), ("modle", "model"),
                        ("gateway.telegram.leader_tll", "gateway.telegram.leader_ttl")):
        assert f"unknown setting `{typo}` ignored - did you mean `{meant}`?" in warned
    assert len(settings.warnings) == 5, settings.warnings
    assert cache_options(settings)["keep_warm"] == "off"
    assert from_config(settings.get("reasoning")).thinking == "off"
    assert settings.get("sandbox.enabled", True, kind=bool) is True


def test_every_setting_the_code_reads_is_known(hermes_home):
    """Keys hermes honours never warn as unknown (sandbox.network, env_allow,
    allow_arming and permissions were said to be ignored while they worked)."""
    (hermes_home / "config.yaml").write_text(
        "sandbox: {network: off, env_allow: [GITHUB_TOKEN], allow_arming: [.envrc], "
        "pass_env: [X], writable: [/tmp/x], hidden: [/tmp/y], enabled: true}\n"
        "permissions: {allow: [read_file]}\n"
        "cache: {keep_warm: auto, keep_warm_max_idle: 600, extended_retention: true}\n"
        "web: {allow_hosts: [127.0.0.1]}\n"
        "gateway: {hooks: false, skills_writable: false, metrics_key: k, "
        "rate_limit: {requests_per_minute: 5}}\n")
    assert load_settings(hermes_home).warnings == []
