"""HERMES_HOME/.env is read by python-dotenv's rules: an inline comment is not part of
the key (fast tier)."""

from __future__ import annotations

from frontend.config.settings import load_dotenv

ENV = """\
# keys
export ANTHROPIC_API_KEY=sk-ant-123 # work key
OPENAI_API_KEY="sk-o  spaced" # personal
LITERAL='a \\n b' # kept literally
ESCAPED="line\\nnext"
HASH_IN_WORD=abc#def
EMPTY=
"""


def test_dotenv_values_follow_python_dotenv(tmp_path):
    (tmp_path / ".env").write_text(ENV)
    env: dict[str, str] = {}
    load_dotenv(tmp_path / ".env", env)
    assert env == {"ANTHROPIC_API_KEY": "sk-ant-123", "OPENAI_API_KEY": "sk-o  spaced",
                   "LITERAL": "a \\n b", "ESCAPED": "line\nnext", "HASH_IN_WORD": "abc#def",
                   "EMPTY": ""}
