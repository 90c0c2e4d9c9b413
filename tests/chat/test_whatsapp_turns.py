"""WhatsApp through the real gateway (wire tier: FakeWhatsApp's Graph API, webhooks signed
and POSTed with httpx to the gateway's own port, fake provider): the handshake, the
signature, sessions and the cache, strangers, duplicates and statuses, long answers,
rate limits, approvals as reply buttons, the 24-hour window."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from gateway.chat.base import Undelivered, chat_owner
from gateway.workspaces import tenant_workspace
from tests.chat.whatsapp_harness import OTHER, OWNER, STRANGER
from tests.fakes import Reply, ToolCall
from tests.fakes.whatsapp_api import PHONE_ID, TOKEN, VERIFY_TOKEN

pytestmark = pytest.mark.wire


def test_the_subscribe_handshake_answers_only_the_right_verify_token(whatsapps):
    whatsapps.start()
    params = {"hub.mode": "subscribe", "hub.challenge": "1158201444"}
    right = httpx.get(whatsapps.wa.webhook, params={**params, "hub.verify_token": VERIFY_TOKEN})
    assert (right.status_code, right.text) == (200, "1158201444")
    wrong = httpx.get(whatsapps.wa.webhook, params={**params, "hub.verify_token": "guess"})
    assert wrong.status_code == 403 and "1158201444" not in wrong.text


def test_a_dm_is_answered_and_the_second_message_reads_the_cached_prefix(whatsapps):
    server = whatsapps.start()
    whatsapps.fake.script(Reply("first answer"), Reply("second answer"))
    wamid, answer = whatsapps.wa.message(OWNER, "hello")
    assert answer.status_code == 200
    whatsapps.turns(server, 1)
    whatsapps.wa.message(OWNER, "and again")
    whatsapps.turns(server, 2)
    assert whatsapps.wa.texts(OWNER) == ["first answer", "second answer"]
    first, second = whatsapps.fake.requests_for("anthropic")
    assert "hello" in repr(second.body["messages"])
    assert second.cache_read / second.prompt_tokens >= 0.9, second.cache_read
    assert whatsapps.hub(server).gateway.cache.builds == 1  # one cached agent for the number
    read = whatsapps.wa.sent(OWNER, "read")
    assert read and read[0].body == {"messaging_product": "whatsapp", "status": "read",
                                     "message_id": wamid, "typing_indicator": {"type": "text"}}


def test_unsigned_or_wrongly_signed_webhooks_are_refused_and_never_reach_the_model(whatsapps):
    server = whatsapps.start()
    whatsapps.fake.script(Reply("only the signed one"))
    wa = whatsapps.wa
    message = {"messages": [{"from": OWNER, "id": "wamid.X1", "timestamp": "1",
                             "type": "text", "text": {"body": "forged-7731"}}]}
    assert wa.deliver(message, sign=False).status_code == 401
    assert wa.deliver(message, secret="not-the-app-secret").status_code == 401
    assert wa.deliver(message, raw=b"{" + b" " * (2 << 20) + b"}").status_code == 413
    wa.message(OWNER, "signed")
    whatsapps.turns(server, 1)
    assert len(whatsapps.fake.requests_for("anthropic")) == 1
    assert "forged-7731" not in repr(whatsapps.fake.last.body)
    assert whatsapps.hub(server).stats["whatsapp"].messages == 1


def test_a_stranger_gets_one_refusal_and_never_reaches_the_model(whatsapps):
    server = whatsapps.start()
    whatsapps.fake.script(Reply("hi owner"))
    whatsapps.wa.message(STRANGER, "let me in")
    whatsapps.wa.message(STRANGER, "please")
    whatsapps.wa.message(OWNER, "hi")
    whatsapps.turns(server, 1)
    stats = whatsapps.hub(server).stats["whatsapp"]
    whatsapps.wa.wait_for(lambda: stats.refused == 2)
    assert whatsapps.wa.texts(STRANGER) == [
        "Sorry, this bot answers only the people its owner allowed."]
    assert len(whatsapps.fake.requests_for("anthropic")) == 1
    assert "let me in" not in repr(whatsapps.fake.last.body)


def test_a_redelivered_message_is_answered_once_and_statuses_never_reach_the_model(whatsapps):
    server = whatsapps.start()
    whatsapps.fake.script(Reply("once"), Reply("after"))
    wamid, _ = whatsapps.wa.message(OWNER, "hello")
    whatsapps.wa.message(OWNER, "hello", wamid=wamid)  # WhatsApp retried it
    whatsapps.turns(server, 1)
    for status in ("sent", "delivered", "read", "failed"):
        assert whatsapps.wa.status(OWNER, "wamid.OUT1", status).status_code == 200
    whatsapps.wa.message(OWNER, "next")
    whatsapps.turns(server, 2)
    assert whatsapps.wa.texts(OWNER) == ["once", "after"]
    second = whatsapps.fake.requests_for("anthropic")[1]
    assert "next" in repr(second.body["messages"][-1])  # not the redelivered "hello"
    assert repr(second.body["messages"]).count("hello") == 1
    assert whatsapps.hub(server).stats["whatsapp"].messages == 2


def test_a_message_redelivered_after_a_restart_is_not_answered_again(whatsapps):
    """The first gateway answered and stopped; WhatsApp's retry of the same message id
    reaches the next one (or another worker on the same store): dropped, not paid twice."""
    first = whatsapps.start()
    whatsapps.fake.script(Reply("once"), Reply("after"))
    wamid, _ = whatsapps.wa.message(OWNER, "hello")
    whatsapps.turns(first, 1)
    whatsapps.stop_all()
    second = whatsapps.start()
    assert whatsapps.wa.message(OWNER, "hello", wamid=wamid)[1].status_code == 200
    whatsapps.wa.message(OWNER, "next")
    whatsapps.turns(second, 1)
    assert whatsapps.wa.texts(OWNER) == ["once", "after"]
    assert whatsapps.hub(second).stats["whatsapp"].messages == 1
    assert len(whatsapps.fake.requests_for("anthropic")) == 2


def test_a_long_answer_is_split_at_4096_in_order_with_nothing_lost(whatsapps):
    prose = "\n\n".join(f"Paragraph {i}: " + "words and more words " * 30 for i in range(40))
    code = "\n".join(f"print('line {i}')" for i in range(600))
    answer = f"{prose}\n\n```python\n{code}\n```\n\nThe end."
    server = whatsapps.start()
    whatsapps.fake.script(Reply(answer))
    whatsapps.wa.message(OWNER, "write a lot")
    whatsapps.turns(server, 1)
    parts = whatsapps.wa.texts(OWNER)
    assert len(parts) >= 6 and all(len(p) <= 4096 for p in parts)
    joined = "\n".join(parts)
    assert all(joined.count(f"Paragraph {i}: ") == 1 for i in range(40))
    assert all(joined.count(f"print('line {i}')\n") == 1 for i in range(599))
    assert joined.rstrip().endswith("The end.")
    assert [p.status for p in whatsapps.wa.posted if p.body.get("type") == "text"] == [200] * len(parts)


def test_an_answer_refused_halfway_is_finished_after_a_restart_without_repeats(whatsapps):
    """WhatsApp took the first piece of a long answer and then failed (131000): the ledger
    keeps only the pieces not taken; the next gateway sends those, so the user reads every
    piece once and in order."""
    answer = "\n\n".join(f"Paragraph {i}: " + "words and more words " * 30 for i in range(20))
    server = whatsapps.start()
    whatsapps.fake.script(Reply(answer))
    whatsapps.wa.outage_after = 1
    whatsapps.wa.message(OWNER, "write a lot")
    whatsapps.turns(server, 1)
    taken = whatsapps.wa.texts(OWNER)
    assert len(taken) == 1 and "Paragraph 0: " in taken[0]
    whatsapps.stop_all()
    whatsapps.wa.outage_after = None
    whatsapps.start()  # the ledger replays at once
    whatsapps.wa.wait_for(lambda: "Paragraph 19: " in "".join(whatsapps.wa.texts(OWNER)),
                          what="the rest of the answer")
    joined = "\n".join(whatsapps.wa.texts(OWNER))
    assert [joined.count(f"Paragraph {i}: ") for i in range(20)] == [1] * 20
    assert [joined.index(f"Paragraph {i}: ") for i in range(20)] == \
        sorted(joined.index(f"Paragraph {i}: ") for i in range(20))


def test_a_throughput_limit_is_waited_out_and_nothing_is_lost(whatsapps):
    whatsapps.wa.limits.mps = 1
    server = whatsapps.start()
    whatsapps.fake.script(Reply("\n\n".join(f"Part {i}: " + "y" * 4000 for i in range(3))))
    whatsapps.wa.message(OWNER, "three parts")
    whatsapps.turns(server, 1)
    assert len(whatsapps.wa.texts(OWNER)) == 3
    codes = [p.code for p in whatsapps.wa.posted if p.body.get("type") == "text"]
    assert 130429 in codes and whatsapps.adapter(server).rate_limited >= 1


def test_a_dangerous_command_waits_for_the_askers_button(whatsapps):
    whatsapps.config["toolsets"] = ["terminal"]
    whatsapps.fake.script(Reply(tool_calls=[ToolCall("terminal", {"command": "rm -rf *"})]),
                          Reply("cleaned"))
    server = whatsapps.start()
    workspace = tenant_workspace(whatsapps.home, chat_owner("whatsapp", OWNER))
    (workspace / "scratch.txt").write_text("x", encoding="utf-8")
    whatsapps.wa.message(OWNER, "clean the workspace")
    (question,) = whatsapps.wa.wait_for(lambda: whatsapps.wa.sent(OWNER, "interactive"))
    inter = question.body["interactive"]
    assert "rm -rf *" in inter["body"]["text"]
    buttons = inter["action"]["buttons"]
    assert len(buttons) <= 3 and all(len(b["reply"]["title"]) <= 20 for b in buttons)
    approve = buttons[0]["reply"]
    whatsapps.wa.message(OTHER, "", press=(approve["id"], approve["title"]))  # not the asker
    whatsapps.wa.wait_for(lambda: whatsapps.wa.texts(OTHER))
    assert whatsapps.wa.texts(OTHER) == ["Only the person who asked can answer this."]
    assert (workspace / "scratch.txt").exists()
    whatsapps.wa.message(OWNER, "", press=(approve["id"], approve["title"]))
    whatsapps.turns(server, 1)
    assert not (workspace / "scratch.txt").exists()
    assert any(t.startswith("Approved once: rm -rf *") for t in whatsapps.wa.texts(OWNER))


def test_a_delivery_outside_the_24_hour_window_fails_with_its_reason(whatsapps):
    from gateway.chat.whatsapp.adapter import WhatsAppAdapter

    adapter = WhatsAppAdapter(TOKEN, "s", "v", phone_number_id=PHONE_ID,
                              base_url=whatsapps.wa.base_url)
    adapter.mounted = True  # no webhook needed to send

    async def deliver() -> None:
        await adapter.start(None)  # type: ignore[arg-type]
        try:
            await adapter.deliver("15559998888", "the nightly report")
        finally:
            await adapter.stop()

    with pytest.raises(Undelivered) as caught:
        asyncio.run(deliver())
    assert "24-hour customer-service window (error 131047)" in str(caught.value)


def test_without_the_api_the_adapter_serves_its_webhook_itself(whatsapps):
    import socket

    from gateway.chat.whatsapp.adapter import WhatsAppAdapter

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    adapter = WhatsAppAdapter(TOKEN, "s", VERIFY_TOKEN, phone_number_id=PHONE_ID,
                              base_url=whatsapps.wa.base_url, listen=("127.0.0.1", port))

    async def handshake() -> tuple[int, str, int]:
        await adapter.start(None)  # type: ignore[arg-type]
        try:
            async with httpx.AsyncClient() as client:
                url = f"http://127.0.0.1:{port}/whatsapp/webhook"
                for _ in range(100):  # uvicorn binds in its task: at most ~5 s
                    try:
                        answer = await client.get(url, params={
                            "hub.mode": "subscribe", "hub.verify_token": VERIFY_TOKEN,
                            "hub.challenge": "77"})
                        break
                    except httpx.ConnectError:
                        await asyncio.sleep(0.05)
                unsigned = await client.post(url, content=b"{}")
            return answer.status_code, answer.text, unsigned.status_code
        finally:
            await adapter.stop()

    assert asyncio.run(handshake()) == (200, "77", 401)
