"""Pure chat logic (fast tier): UTF-16 splitting, Telegram HTML, session keys, access,
and the fake Bot API's text rules themselves."""

from __future__ import annotations

import pytest

from gateway.chat.base import ChatPolicy, Inbound, chat_owner, session_of
from gateway.chat.text import balanced, split_message, to_html, utf16_len
from tests.fakes.telegram_rules import TextError, visible_text


def test_utf16_length_counts_astral_characters_twice():
    assert utf16_len("a😀é") == 4
    assert utf16_len("😀" * 2048) == 4096


def test_short_text_is_one_piece_and_long_text_splits_at_paragraphs():
    assert split_message("hello") == ["hello"]
    paragraphs = [f"paragraph {i} " + "x" * 1500 for i in range(6)]
    pieces = split_message("\n\n".join(paragraphs))
    assert all(utf16_len(p) <= 4096 for p in pieces)
    assert "".join(pieces) == "\n\n".join(paragraphs)  # nothing lost, cut between paragraphs
    assert all(p.startswith("paragraph") for p in pieces)


def test_astral_text_splits_by_utf16_units_not_code_points():
    text = "😀" * 5000  # 10,000 UTF-16 units, no boundary at all
    pieces = split_message(text)
    assert [utf16_len(p) for p in pieces] == [4096, 4096, 1808]
    assert "".join(pieces) == text


def test_a_long_code_block_is_split_with_fences_closed_and_reopened():
    code = "\n".join(f"x = {i}  # 😀" for i in range(900))
    text = f"Here:\n\n```python\n{code}\n```\n\nDone."
    pieces = split_message(text)
    assert len(pieces) >= 3
    assert all(utf16_len(p) <= 4096 and balanced(p) for p in pieces)
    inner = [p for p in pieces if "x = " in p]
    assert all(p.count("```python") == 1 for p in inner)
    assert all(f"x = {i}  #" in "".join(pieces) for i in (0, 450, 899))
    assert not balanced("```python\nopen")


def test_a_code_block_that_fits_is_kept_whole():
    block = "```\n" + "\n".join("y" * 50 for _ in range(30)) + "\n```"
    text = "a" * 3000 + "\n\n" + block
    pieces = split_message(text)
    assert pieces[1] == block


def test_html_escapes_model_text_and_converts_code_bold_links():
    html = to_html("1 < 2 & **bold** `a<b` [docs](https://x.y/?a=1&b=\"2\")\n```py\nif a<b:\n```")
    assert "1 &lt; 2 &amp; <b>bold</b> <code>a&lt;b</code>" in html
    assert '<a href="https://x.y/?a=1&amp;b=&quot;2&quot;">docs</a>' in html
    assert '<pre><code class="language-py">if a&lt;b:</code></pre>' in html
    for sample in ("<script>", "a ** b", "`", "[x](javascript:alert(1))", "**a\nb**"):
        assert visible_text(to_html(sample), "HTML")  # the fake's rules accept it


def test_fake_rules_reject_what_telegram_rejects():
    with pytest.raises(TextError, match="can't parse entities"):
        visible_text("a.b", "MarkdownV2")
    with pytest.raises(TextError, match="can't parse entities"):
        visible_text("*bold", "MarkdownV2")
    with pytest.raises(TextError, match="can't parse entities"):
        visible_text("<b>x</i>", "HTML")
    with pytest.raises(TextError, match="can't parse entities"):
        visible_text("1 < 2", "HTML")
    with pytest.raises(TextError, match="too long"):
        visible_text("😀" * 2049, None)
    assert visible_text("a\\.b *bold* `c.d`", "MarkdownV2") == "a.b bold c.d"
    assert visible_text("<b>" + "x" * 4096 + "</b>", "HTML") == "x" * 4096


def _msg(**fields) -> Inbound:
    return Inbound(**{"platform": "telegram", "chat_id": "1", "user_id": "7", "text": "hi",
                      **fields})


def test_session_keys_private_group_per_user_and_topic():
    plain, per_user = ChatPolicy(), ChatPolicy(per_user_in_group=True)
    assert session_of(_msg(), plain) == (chat_owner("telegram", "1"), "telegram/1")
    group = _msg(chat_id="-100", chat_type="supergroup")
    assert session_of(group, plain)[1] == "telegram/-100"
    assert session_of(group, per_user)[1] == "telegram/-100/user:7"
    topic = _msg(chat_id="-100", chat_type="supergroup", thread_id=5)
    assert session_of(topic, plain)[1] == "telegram/-100/topic:5"
    assert session_of(topic, plain)[0] == session_of(group, plain)[0]  # one chat, one owner
    assert chat_owner("telegram", "1") != chat_owner("console", "1")
    assert len(chat_owner("telegram", "1")) == 64


def test_access_is_denied_by_default():
    assert not ChatPolicy().allows(_msg())
    assert ChatPolicy(allowed_users=frozenset({"7"})).allows(_msg())
    assert ChatPolicy(allowed_chats=frozenset({"-100"})).allows(_msg(chat_id="-100", user_id="9"))
    assert not ChatPolicy(allowed_chats=frozenset({"-100"})).allows(_msg(user_id="9"))
