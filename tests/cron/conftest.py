"""A HERMES_HOME configured for jobs (anthropic through a URL nobody serves: runs use the
in-process ScriptedModel, lent to the run's agent)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from frontend.config.settings import load_settings
from memory import open_store
from memory.cron import CronStore
from tests.helpers import MODEL


class Home:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.config = {"provider": "anthropic", "model": MODEL, "api_key": "test-key",
                       "base_url": "http://127.0.0.1:9", "toolsets": ["file", "cron"]}
        self.write()
        self.store = open_store(path, None)
        self.cron = CronStore(self.store.handle)

    def write(self) -> None:
        (self.path / "config.yaml").write_text(yaml.safe_dump(self.config), encoding="utf-8")

    def settings(self):
        return load_settings(self.path)


@pytest.fixture
def home(hermes_home: Path):
    made = Home(hermes_home)
    yield made
    made.store.close()
