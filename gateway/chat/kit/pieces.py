"""A long message goes out in pieces, in order (gateway/chat/text.py `split_message`).
When the platform refuses one, the pieces it already took are not sent again: the
Undelivered raised carries the rest (`Undelivered.rest`), and the delivery ledger
(kit/ledger.py) keeps only that - for a reply, a job's answer, or a kept row sent again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from gateway.chat.base import Undelivered


async def send_pieces(pieces: Sequence[str], send: Callable[[str], Awaitable[object]],
                      refused: type[BaseException] | tuple[type[BaseException], ...],
                      said: Callable[[BaseException], str]) -> None:
    """`send` each piece in order; a `refused` error becomes Undelivered(`said(error)`),
    with `rest` the pieces not taken when some were (None: nothing went)."""
    for index, piece in enumerate(pieces):
        try:
            await send(piece)
        except refused as exc:
            raise Undelivered(said(exc), rest="\n".join(pieces[index:]) if index else None) from None
