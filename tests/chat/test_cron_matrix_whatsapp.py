"""Scheduled jobs delivering to Matrix and WhatsApp (wire tier, as test_cron_chat_targets.py:
the real app on uvicorn, the fake provider, FakeMatrix / FakeWhatsApp): `matrix:ROOM` and
`whatsapp:NUMBER` go through the gateway's running adapter, `origin` finds the chat by its
route, and a WhatsApp number outside the 24-hour window is a failed delivery that says so."""

from __future__ import annotations

import pytest

from gateway.chat.base import chat_owner
from tests.chat.cron_clock import Clock, finished, runs
from tests.chat.test_cron_chat_targets import _fire, _responder

pytestmark = pytest.mark.wire


def test_jobs_deliver_to_a_matrix_room_and_to_their_matrix_origin(matrices, tmp_path):
    from tests.chat.matrix_harness import OWNER

    matrices.fake.responder = _responder
    server = matrices.start()
    room = matrices.hs.dm(OWNER)
    matrices.joined(room)
    matrices.hs.say(room, OWNER, "hello")  # the DM's route: the chat a job made there answers in
    matrices.turns(server, 1)
    group = matrices.hs.invite("!team:fake.local", OWNER, members=("@bob:fake.local",))
    matrices.joined(group)
    _fire(matrices.home, server, Clock(), {
        "standup": f"matrix:{group}", "stretch": f"origin:{chat_owner('matrix', room)}"}, tmp_path)
    matrices.hs.wait_for(lambda: finished(matrices.home, ("standup", "stretch"), 1),
                         timeout=30, what="both runs delivered")
    assert matrices.hs.texts(group) == ["Standup at ten."]
    assert matrices.hs.texts(room)[-1] == "Time to stretch."


def test_whatsapp_jobs_deliver_within_the_window_and_fail_clearly_outside(whatsapps, tmp_path):
    from tests.chat.whatsapp_harness import OTHER, OWNER

    whatsapps.fake.responder = _responder
    server = whatsapps.start()
    whatsapps.wa.message(OWNER, "hello")
    whatsapps.turns(server, 1)
    _fire(whatsapps.home, server, Clock(), {
        "standup": f"whatsapp:{OWNER}", "silent": f"whatsapp:{OTHER}"}, tmp_path)
    whatsapps.wa.wait_for(lambda: finished(whatsapps.home, ("standup",), 1) and
                          runs(whatsapps.home, "silent") and
                          runs(whatsapps.home, "silent")[0]["error"], timeout=30,
                          what="one delivered, one failed")
    assert whatsapps.wa.texts(OWNER)[-1] == "Standup at ten."
    assert "24-hour customer-service window (error 131047)" in \
        runs(whatsapps.home, "silent")[0]["error"]

