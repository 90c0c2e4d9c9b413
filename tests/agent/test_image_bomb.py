"""An image whose header declares a huge size (a decompression bomb) is one clear
ImageError before anything is decoded: for the CLI's `--image` and `@file` paths (both
call AIAgent.attach_image) and the gateway's (fast tier; the gateway's 400 is in
tests/gateway/test_gateway_image_bomb.py)."""

from __future__ import annotations

import pytest

from agent.images import ImageError
from agent.providers.anthropic import IMAGES as ANTHROPIC
from agent.providers.image_scale import MAX_PIXELS, prepare
from hermes_cli.oneshot import attached
from tests.fakes.scripted import ScriptedModel
from tests.helpers import png_bomb, scripted_agent


@pytest.mark.parametrize(("width", "height"), [(50_000, 50_000), (12_000, 10_000)])
def test_a_declared_huge_image_is_refused_with_one_line(width, height):
    assert width * height > MAX_PIXELS
    with pytest.raises(ImageError) as caught:
        prepare(png_bomb(width, height), "bomb.png", ANTHROPIC)
    assert "bomb.png" in caught.value.message and "pixel limit" in caught.value.message
    assert "\n" not in caught.value.message and caught.value.hint


def test_the_cli_image_path_gives_the_same_error(tmp_path, monkeypatch):
    (tmp_path / "bomb.png").write_bytes(png_bomb())
    monkeypatch.chdir(tmp_path)
    agent = scripted_agent(ScriptedModel(), tmp_path / "home", tmp_path)
    try:
        with pytest.raises(ImageError) as caught:
            attached(agent, ["bomb.png"])
        assert "50,000x50,000 pixels" in caught.value.message or "more pixels" in caught.value.message
    finally:
        agent.close()
