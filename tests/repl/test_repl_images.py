"""Images in the REPL, in a real pty: `@sh<Tab>` completes an image (offered as one),
`@shot.png` sends it with the message, a pasted path alone on a line does too, every
later request re-sends the same image bytes, and a file that is no image is one line."""

from __future__ import annotations

from tests.fakes import Reply
from tests.fakes.cache import canonical
from tests.helpers import screenshot


def _image_parts(record) -> list[dict]:
    return [part for message in record.body["messages"] if isinstance(message["content"], list)
            for part in message["content"] if part.get("type") == "image"]


def test_mentioned_and_pasted_images_go_with_the_message(spawn_repl, fake_provider, tmp_path):
    work = tmp_path / "work"
    (work / "shot.png").write_bytes(screenshot(2880, 1800))
    (work / "other shot.png").write_bytes(screenshot(640, 400))
    fake_provider.script(Reply(text="a stack trace"), Reply(text="the same trace"),
                         Reply(text="two pictures"))
    repl = spawn_repl()
    repl.child.send("what is @sh\t")
    repl.child.send(" showing?\r")
    repl.expect("attached image shot.png 2880x1800")
    repl.expect("a stack trace")
    repl.prompt()
    first = fake_provider.requests[-1]
    images = _image_parts(first)
    assert len(images) == 1 and images[0]["source"]["media_type"] == "image/png"
    user = first.body["messages"][-1]["content"]
    assert user[-1]["text"] == "what is @shot.png showing?"  # the text as typed

    repl.send("and now?")
    repl.expect("the same trace")
    repl.prompt()
    second = fake_provider.requests[-1]
    assert canonical(second.body["messages"][0]) == canonical(first.body["messages"][0])
    assert second.cache_read > 0

    repl.send(f"'{work}/other shot.png'")  # a file dragged into the terminal: quoted path
    repl.expect("attached image")
    repl.expect("two pictures")
    repl.prompt()
    assert len(_image_parts(fake_provider.requests[-1])) == 2

    (work / "fake.png").write_text("not really a picture\n")
    asked = len(fake_provider.requests)
    repl.send("look at @fake.png")
    repl.expect("error: fake.png is not an image hermes can attach")
    repl.prompt()
    assert len(fake_provider.requests) == asked  # refused: nothing sent
