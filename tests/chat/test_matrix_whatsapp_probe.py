"""`hermes doctor`'s token checks for Matrix and WhatsApp (wire tier: FakeMatrix and
FakeWhatsApp over httpx): a good token is named, a refused one says which variable."""

from __future__ import annotations

import pytest
import yaml

from frontend.config.settings import load_settings
from gateway.chat.probe import probes
from tests.fakes.matrix_api import BOT, FakeMatrix
from tests.fakes.matrix_api import TOKEN as MATRIX_TOKEN
from tests.fakes.whatsapp_api import PHONE_ID, FakeWhatsApp
from tests.fakes.whatsapp_api import TOKEN as WHATSAPP_TOKEN

pytestmark = pytest.mark.wire


def test_doctor_checks_the_matrix_and_whatsapp_tokens(hermes_home, monkeypatch):
    with FakeMatrix() as hs, FakeWhatsApp() as wa:
        (hermes_home / "config.yaml").write_text(yaml.safe_dump({"gateway": {
            "matrix": {"homeserver": hs.base_url, "user_id": BOT},
            "whatsapp": {"base_url": wa.base_url, "phone_number_id": PHONE_ID}}}))
        settings = load_settings(hermes_home)
        monkeypatch.setenv("MATRIX_ACCESS_TOKEN", MATRIX_TOKEN)
        monkeypatch.setenv("WHATSAPP_ACCESS_TOKEN", WHATSAPP_TOKEN)
        found = {name: (var, probe()) for name, var, probe in probes(settings)}
        assert found["matrix"] == ("MATRIX_ACCESS_TOKEN", (True, f"{BOT} at {hs.base_url}"))
        assert found["whatsapp"][1] == (True, f"15550009999 at {wa.base_url}")
        monkeypatch.setenv("MATRIX_ACCESS_TOKEN", "wrong")
        monkeypatch.setenv("WHATSAPP_ACCESS_TOKEN", "wrong")
        found = {name: probe() for name, _, probe in probes(settings)}
        assert found["matrix"] == (False, f"MATRIX_ACCESS_TOKEN refused by {hs.base_url}: "
                                          "M_UNKNOWN_TOKEN")
        assert found["whatsapp"][0] is False and "WHATSAPP_ACCESS_TOKEN" in found["whatsapp"][1]
