"""The chat splitter as a property (fast tier, hypothesis): for any text and any limit,
`split_message` keeps every character once, in order, every piece within the limit
with its code fences balanced; what it adds is only fence lines (a reply
whose first line opened a fence was lost, or repeated 130 times on Slack)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.chat.text import FENCE, MIN_LIMIT, balanced, pieces_of, split_message, utf16_len

LINES = st.one_of(
    st.text(alphabet="ab `~\t😀é\r\x1b", max_size=60),
    st.sampled_from(["```", "```js", "~~~", "````python x", "```js " + "x" * 90, "", " ",
                     "  ```", "``", "a```", "```\u00a0b"]),
)
TEXTS = st.lists(LINES, max_size=40).map("\n".join) | st.text(max_size=300)


def _check(text: str, limit: int) -> None:
    pairs = pieces_of(text, limit)
    assert "".join(core for core, _ in pairs) == text  # every character, once, in order
    reopened = False  # the previous piece closed a block: this one reopens it
    for core, piece in pairs:
        assert utf16_len(piece) <= limit and balanced(piece)
        head = piece[:piece.index("\n") + 1] if reopened else ""
        assert not reopened or FENCE.match(head[:-1])  # a fence line, then the slice
        assert piece[len(head):].startswith(core)
        tail = piece[len(head) + len(core):]  # nothing, or a closing fence
        closing = FENCE.match(tail.removeprefix("\n"))
        assert not tail or (closing and not closing.group(2) and "\n" not in tail[1:])
        reopened = bool(tail)
    assert split_message(text, limit) == [p for _, p in pairs if p.strip()]
    assert all(not core.strip() for core, p in pairs if not p.strip())  # only blanks dropped


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS, st.integers(min_value=MIN_LIMIT, max_value=160))
def test_every_character_once_within_the_limit_fences_balanced(text: str, limit: int) -> None:
    _check(text, limit)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="`x\n 😀", max_size=3000), st.sampled_from([1998, 2000, 4096]))
def test_long_replies_at_the_platforms_limits(text: str, limit: int) -> None:
    _check(text, limit)


def test_a_reply_whose_first_line_opens_a_fence_is_kept():
    text = "```js " + "x" * 3000
    pieces = split_message(text, 1998)
    assert len(pieces) == 2 and all(utf16_len(p) <= 1998 and balanced(p) for p in pieces)
    assert sum(len(p) for p in pieces) < len(text) + 20


def test_a_long_info_line_is_not_repeated_in_every_piece():
    """Slack's runaway: 44,000 characters arrived as 1.55 million."""
    text = "```js " + "y" * 11_900 + "\n" + "\n".join("z" * 80 for _ in range(400))
    pieces = split_message(text, 11_936)
    assert len(pieces) == 4
    assert sum(len(p) for p in pieces) < len(text) + 4 * 20
