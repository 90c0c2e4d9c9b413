"""The README a new user follows: every repository file it names
exists, bare `hermes` is never called without saying how to get it on PATH, the
install command says what happens without a key, the gateway section says a key is
required and how sessions are keyed."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
REPO_PATH = re.compile(r"(?<![\w~/.])((?:tests|bench|agent|frontend|hermes_cli|gateway|\.ci)"
                       r"/[\w./-]*\w|ARCHITECTURE\.md|HERMES\.md\.example)")


def _sections() -> list[str]:
    return re.split(r"^## ", README, flags=re.M)


def test_every_repository_file_named_exists():
    named = set(REPO_PATH.findall(README))
    assert "tests/fakes/scripted.py" in named  # the pattern finds what it should
    missing = sorted(p for p in named if "<" not in p and not (ROOT / p).exists())
    assert missing == []


def test_bare_hermes_only_after_saying_how_to_get_it_on_path():
    for section in _sections():
        for match in re.finditer(r"```sh\n(.*?)```", section, flags=re.S):
            calls = [ln for ln in match.group(1).splitlines() if re.match(r"hermes\b", ln)]
            if calls:
                before = section[: match.end()]
                assert ". .venv/bin/activate" in before, (section.splitlines()[0], calls[0])


def test_the_install_command_says_what_happens_without_a_key():
    start = README.index(".venv/bin/pip install -e . && .venv/bin/hermes")
    nearby = README[start:start + 600]
    assert "no provider configured" in nearby and "ANTHROPIC_API_KEY" in nearby


def test_the_gateway_section_says_a_key_is_required_and_how_sessions_are_keyed():
    (gateway,) = [s for s in _sections() if s.startswith("The gateway")]
    assert "HERMES_API_KEY" in gateway and "requires a client key" in gateway
    assert "X-Hermes-Session-Id" in gateway and "user" in gateway
