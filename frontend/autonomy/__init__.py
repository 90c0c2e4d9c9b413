"""Work without the user typing (docs/AUTONOMY.md): `goal` (/goal: turn after turn until
a check passes), `loop` (/loop: a prompt again every interval; `auto` picks the interval
from the cache lifetime and the costs), `background` (`hermes -q --bg`, `/bg`: runs in a
process of their own, listed from the store). Every turn they start is an ordinary turn
of the session (undo, usage and budgets apply); none of them changes the tools or the
system bytes, so each reads the cache the previous request wrote."""
