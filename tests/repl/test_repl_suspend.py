"""Ctrl-Z at the prompt of a cold REPL suspends it as a shell job; `fg` resumes it."""

from __future__ import annotations

import pytest

from tests.helpers import anthropic_env
from tests.repl.job_control import suspend_and_resume

pytestmark = pytest.mark.wire


def test_ctrl_z_at_the_prompt_suspends_the_repl_and_fg_resumes_it(hermes_home, fake_provider,
                                                                  tmp_path):
    suspend_and_resume(anthropic_env(hermes_home, fake_provider), tmp_path, fake_provider)
