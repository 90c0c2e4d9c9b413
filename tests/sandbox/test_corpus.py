"""The corpus against the real kernel sandbox, through the terminal tool's sandbox layer.

After: nothing in the fake home or the store changes and no planted secret is printed,
with the store outside the temp dir and inside it (only the mount layer protects it
there). Before: the same corpus with nothing hidden, no environment scrubbing and the
fake home writable (the rest of the machine stays fenced: it is a shared machine).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from agent.sandbox.backend import Sandbox, backend, make_sandbox
from agent.sandbox.policy import Policy, SandboxSettings
from tests.sandbox.corpus import ALL, STORE_REACH, VERBATIM
from tests.sandbox.harness import ENV, Layout, run_corpus

pytestmark = [pytest.mark.wire, pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")]


def _layout(base: Path, store_in_tmp: bool, monkeypatch: pytest.MonkeyPatch) -> Layout:
    tmp = base / "tmp"
    layout = Layout(base=base, home=base / "home", ws=base / "ws", tmp=tmp,
                    hermes_home=(tmp / "hh") if store_in_tmp else base / "hh")
    for d in (layout.home, layout.ws, layout.tmp, layout.hermes_home):
        d.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(layout.home))
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setenv("HERMES_HOME", str(layout.hermes_home))
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return layout


def _sandboxed(layout: Layout) -> Sandbox:
    from tests.sandbox.harness import plant

    plant(layout)
    # the file-system battery: no proxy thread per session (each command is a new session)
    box = make_sandbox(SandboxSettings(network="off"), layout.hermes_home, layout.ws)
    assert box.active, box.reason
    assert str(layout.home) not in box.policy.writable and box.policy.writable == (str(layout.ws),)
    return box


def _assert_fenced(layout: Layout, box: Sandbox) -> None:
    """Before anything destructive runs: the fence holds (else stop right here)."""
    results = run_corpus(layout, box, [f"touch {layout.base}/canary; touch {layout.home}/canary"])
    assert not (layout.base / "canary").exists()
    assert not results["errors"]


@pytest.mark.parametrize("store_in_tmp", [False, True], ids=["store-outside-tmp", "store-in-tmp"])
def test_corpus_leaves_home_and_store_untouched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                store_in_tmp: bool) -> None:
    layout = _layout(tmp_path, store_in_tmp, monkeypatch)
    box = _sandboxed(layout)
    _assert_fenced(layout, box)
    # the store inside the temp dir: only the commands that can reach it there
    commands = STORE_REACH if store_in_tmp else ALL
    results = run_corpus(layout, box, commands)
    print(f"\nsandboxed ({'store in tmp' if store_in_tmp else 'store outside tmp'}): "
          f"destroyed {len(results['destroyed'])} / leaked {len(results['leaked'])} / total {len(commands)}")
    assert results["destroyed"] == [] and results["leaked"] == []
    assert len(ALL) >= 100 and set(VERBATIM) <= set(ALL) and len(STORE_REACH) >= 50


def test_workspace_and_temp_stay_writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(tmp_path, False, monkeypatch)
    box = _sandboxed(layout)
    run_corpus(layout, box, ["mkdir -p sub && echo data > sub/f && mv sub/f g && ln -s g h && "
                             "chmod 600 g && echo t > $TMPDIR/t && echo t > /tmp/t && truncate -s 2 g && "
                             "cp $TMPDIR/t from-tmp"])
    assert (layout.ws / "g").read_text() == "da" and (layout.ws / "h").is_symlink()
    assert (layout.ws / "from-tmp").read_text() == "t\n"  # the session's private /tmp
    assert not (layout.tmp / "t").exists()  # not the system temp dir


def test_corpus_before_the_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The old terminal's reach over the fake home: the figure the sandbox is measured by."""
    layout = _layout(tmp_path, False, monkeypatch)
    found, _ = backend()
    fence = Sandbox(Policy(workspace=str(layout.ws), hidden=(), env_allow=tuple(os.environ),
                           writable=(str(layout.ws), str(layout.tmp), str(layout.home),
                                     str(layout.hermes_home))), found, True)
    _assert_fenced(layout, fence)
    # enough to show the corpus has teeth: stop once both figures are reached
    results = run_corpus(layout, fence, ALL, enough=lambda r: len(r["destroyed"]) >= 60
                         and len(r["leaked"]) >= 20)
    print(f"\nunsandboxed: destroyed {len(results['destroyed'])} / leaked {len(results['leaked'])} "
          f"/ total {len(ALL)}")
    assert len(results["destroyed"]) >= 60 and len(results["leaked"]) >= 20
