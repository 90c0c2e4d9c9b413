"""A message sent in pieces (gateway/chat/kit/pieces.py): in order; a refusal after some
pieces went carries exactly the ones not taken, a refusal of the first carries none (the
whole message is still to send), and other errors pass through untouched."""

from __future__ import annotations

import asyncio

import pytest

from gateway.chat.base import Undelivered
from gateway.chat.kit.pieces import send_pieces


class Refused(Exception):
    pass


def _send(pieces: list[str], refuse_at: int | None, error: type[Exception] = Refused) -> list[str]:
    taken: list[str] = []

    async def send(piece: str) -> None:
        if len(taken) == refuse_at:
            raise error("down")
        taken.append(piece)

    asyncio.run(send_pieces(pieces, send, Refused, lambda exc: f"platform: {exc}"))
    return taken


def test_every_piece_goes_in_order() -> None:
    assert _send(["a", "b", "c"], None) == ["a", "b", "c"]


def test_a_refusal_halfway_carries_only_the_pieces_not_taken() -> None:
    with pytest.raises(Undelivered) as raised:
        _send(["a", "b", "c"], 1)
    assert str(raised.value) == "platform: down" and raised.value.rest == "b\nc"


def test_a_refusal_of_the_first_piece_carries_no_rest() -> None:
    with pytest.raises(Undelivered) as raised:
        _send(["a", "b"], 0)
    assert raised.value.rest is None


def test_an_unexpected_error_is_not_taken_for_a_refusal() -> None:
    with pytest.raises(KeyError):
        _send(["a", "b"], 1, KeyError)
