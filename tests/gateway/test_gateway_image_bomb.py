"""A PNG header declaring 50000x50000 pixels over the HTTP API: a clear 400 before any
model call, and no traceback in the gateway's log."""

from __future__ import annotations

import base64

import openai
import pytest

from tests.helpers import ask, png_bomb

pytestmark = pytest.mark.wire


def test_an_image_bomb_is_a_400_without_a_traceback(harness, capfd):
    server = harness.start()
    client = harness.client(server)
    data = base64.b64encode(png_bomb()).decode()
    with pytest.raises(openai.BadRequestError) as caught:
        ask(client, "bomb", "", messages=[{"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}]}])
    assert "pixel limit" in str(caught.value)
    assert harness.fake.requests == []
    err = capfd.readouterr().err
    assert "Traceback" not in err and "DecompressionBomb" not in err, err
