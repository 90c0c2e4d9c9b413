"""`@path` mentions: the file's content goes into the stored user
message; binary and oversized files are refused; `@word` naming no file stays text."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from frontend.mentions import MAX_FILE_BYTES, MentionError, attach
from hermes_cli.repl.completion import MentionCompleter
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent


def test_a_mentioned_file_is_attached_once(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\ny = 2\n")
    found = attach("why is @src/a.py slow? see @src/a.py, mail me@example.com @nobody", tmp_path)
    assert found.files == [("src/a.py", 2, 12)]
    assert found.text.endswith('<file path="src/a.py" lines="2">\nx = 1\ny = 2\n</file>')
    assert found.text.count("<file") == 1
    assert found.unknown == ["nobody"]  # the e-mail address is no mention at all
    assert attach("plain text", tmp_path).text == "plain text"
    # trailing punctuation is not part of the path; quotes allow spaces
    (tmp_path / "my notes.txt").write_text("n")
    assert [f[0] for f in attach('read @src/a.py, and @"my notes.txt"', tmp_path).files] == \
        ["src/a.py", "my notes.txt"]


def test_binary_and_large_files_are_refused(tmp_path):
    (tmp_path / "blob.bin").write_bytes(b"\x89PNX\0\0\0")
    with pytest.raises(MentionError, match="binary"):
        attach("look at @blob.bin", tmp_path)
    (tmp_path / "img.png").write_bytes(b"\x89PNX\0\0\0")  # named like an image, is none
    with pytest.raises(MentionError, match="not an image hermes can attach"):
        attach("look at @img.png", tmp_path)
    (tmp_path / "big.log").write_text("x" * (MAX_FILE_BYTES + 1))
    with pytest.raises(MentionError, match="over the") as caught:
        attach("@big.log", tmp_path)
    assert "read_file" in caught.value.hint
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9")
    with pytest.raises(MentionError, match="UTF-8"):
        attach("@latin.txt", tmp_path)


def test_the_attachment_is_stored_so_a_resume_sends_the_same_bytes(hermes_home, tmp_path):
    (tmp_path / "a.py").write_text("print('hi')\n")
    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path)
    sent = attach("explain @a.py", tmp_path).text
    run(agent, sent)
    (stored,) = [m for m in agent.store.messages(agent.session_id) if m["role"] == "user"]
    assert stored["content"] == sent and "print('hi')" in stored["content"]
    assert model.requests[-1].messages[0].content == sent


def test_tab_completes_a_mentioned_path(tmp_path):
    tmp_path = tmp_path / "proj"
    tmp_path.mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "setup.cfg").write_text("")
    (tmp_path / ".secret").write_text("")
    completer = MentionCompleter(lambda: tmp_path)

    def complete(text: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]

    assert complete("look at @s") == ["setup.cfg", "src/"]
    assert complete("look at @src/m") == ["src/main.py"]
    assert complete("look at @") == ["setup.cfg", "src/"]  # no dot-files unless typed
    assert complete("@.s") == [".secret"]
    assert complete("no mention") == [] and complete("/model @s") == []
