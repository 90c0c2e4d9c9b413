"""Links a sandboxed command planted in the workspace never carry a secret out, nor a
write in: every in-process file path (the file tools through the registry, `@file`,
context files, skills, checkpoints' /undo) opens beneath its root. Eight targets: a
fake ~/.ssh/id_rsa, ~/.aws/credentials, HERMES_HOME/.env and config.yaml, ~/.netrc,
~/.config/gh/hosts.yml, another tenant's file, /proc/self/environ (the provider key)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import safefs
from agent.checkpoints import CheckpointStore, UndoRefused
from agent.prompts.context import context_problems, find_context_file
from agent.prompts.context_search import PRECEDENCE
from agent.tools.registry import ToolContext, ToolServices
from frontend.mentions import MentionError, attach
from skills.loader import discover
from tests.tools.escape_world import SECRETS, VICTIMS, Battery, World, make_world


@pytest.fixture(params=["openat2", "walk"])
def world(request, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hermes_home: Path) -> World:
    safefs.use(request.param)
    yield make_world(tmp_path, monkeypatch, hermes_home)
    safefs.use(None)


def _ctx(world: World, **kw) -> ToolContext:
    return ToolContext(session_id="s", home=world.hh, cwd=world.ws, yolo=True, **kw)


def _score(battery: Battery, world: World, result_text: str, is_error: bool) -> None:
    battery.attempted += 1
    leaks = world.leaked(result_text)
    battery.leaked += bool(leaks)
    battery.blocked += bool(is_error and not leaks)


@pytest.mark.parametrize("backend", ["python", pytest.param("rg", marks=[
    pytest.mark.wire, pytest.mark.skipif(shutil.which("rg") is None, reason="no ripgrep")])])
def test_reads_through_planted_links_leak_nothing(world: World, call, backend: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_SEARCH_BACKEND", backend)
    battery = Battery(f"file tools ({backend}), 8 targets x (read_file, search_files content "
                      "+ files, patch)")
    ctx = _ctx(world)
    for name in world.links:
        for tool, args in (("read_file", {"path": name}),
                           ("search_files", {"pattern": "LEAK", "path": name}),
                           ("search_files", {"pattern": "LEAK"}),
                           ("patch", {"path": name, "old_string": "LEAK", "new_string": "X"})):
            result = call(tool, ctx, **args)
            _score(battery, world, result.content, not result.ok or "No matches" in result.content)
    print("\n" + battery.line())
    assert battery.leaked == 0
    assert battery.blocked == battery.attempted
    assert not world.destroyed()


def test_writes_through_planted_links_destroy_nothing(world: World, call) -> None:
    battery = Battery("write_file / patch through links to ~/.bashrc, SOUL.md, config.yaml")
    ctx = _ctx(world)
    for number, spec in enumerate(VICTIMS):
        (world.ws / f"v{number}").symlink_to(world.target(spec))
        (world.ws / f"d{number}").symlink_to(world.target(spec).parent)
        for tool, args in (("write_file", {"path": f"v{number}", "content": "PWNED"}),
                           ("write_file", {"path": f"d{number}/{world.target(spec).name}",
                                           "content": "PWNED"}),
                           ("patch", {"path": f"v{number}", "old_string": "e", "new_string": "X"})):
            result = call(tool, ctx, **args)
            battery.attempted += 1
            battery.blocked += not result.ok
    battery.destroyed = len(world.destroyed())
    print("\n" + battery.line())
    assert world.destroyed() == []
    assert battery.blocked == battery.attempted


def test_links_inside_the_workspace_still_work(world: World, call,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_SEARCH_BACKEND", "python")
    (world.ws / "src").mkdir()
    (world.ws / "src" / "a.py").write_text("x = 1\n")
    (world.ws / "alias").symlink_to("src")
    ctx = _ctx(world)
    assert "x = 1" in call("read_file", ctx, path="alias/a.py").content
    assert call("write_file", ctx, path="alias/b.py", content="y = 2\n").ok
    assert (world.ws / "src" / "b.py").read_text() == "y = 2\n"
    assert call("patch", ctx, path="alias/a.py", old_string="1", new_string="3").ok
    assert "alias/a.py:1: x = 3" in call("search_files", ctx, pattern="x =", path="alias/a.py").content


def test_a_file_mention_of_a_planted_link_attaches_nothing(world: World) -> None:
    battery = Battery("@file mentions of 8 planted links")
    for name in world.links:
        battery.attempted += 1
        try:
            sent = attach(f"look at @{name}", world.ws).text
        except MentionError as exc:
            battery.blocked += "outside the working directory" in str(exc)
            continue
        battery.leaked += bool(world.leaked(sent))
    print("\n" + battery.line())
    assert battery.blocked == battery.attempted


@pytest.mark.parametrize("name", PRECEDENCE)
def test_a_context_file_linked_out_loads_nothing_and_says_so(world: World, name: str) -> None:
    battery = Battery(f"context file {name} -> 8 targets")
    said = 0
    for spec in SECRETS:
        context = world.ws / name
        context.unlink(missing_ok=True)
        context.symlink_to(world.target(spec))
        found = find_context_file(world.ws)
        battery.attempted += 1
        battery.leaked += found is not None and bool(world.leaked(found.text))
        battery.blocked += found is None
        said += any("leading outside" in p for p in context_problems(world.hh, world.ws))
    print("\n" + battery.line())
    assert battery.leaked == 0
    assert said == len(SECRETS)  # a notice for each


def test_a_skill_linked_out_loads_nothing(world: World) -> None:
    folder = world.hh / "skills" / "evil"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(world.target(".ssh/id_rsa"))
    good = world.hh / "skills" / "good"
    good.mkdir()
    (good / "SKILL.md").write_text("---\nname: good\ndescription: A fine skill.\n---\nBody\n")
    (good / "key").symlink_to(world.target(".aws/credentials"))
    catalog = discover(world.hh, bundled=world.hh / "none")
    assert list(catalog.skills) == ["good"]
    assert any("outside the skill's folder" in w for w in catalog.warnings)
    with pytest.raises(Exception, match="outside the skill folder"):
        catalog.skills["good"].read_file("key")


def test_undo_never_writes_through_a_link_swapped_in_later(world: World, call) -> None:
    store = CheckpointStore.under(world.hh, "lineage")
    ctx = _ctx(world, services=ToolServices(checkpoints=store))
    (world.ws / "sub").mkdir()
    assert call("write_file", ctx, path="sub/.bashrc", content="mine\n").ok
    # the command swaps sub for a link to HOME: /undo would delete ~/.bashrc through it
    (world.ws / "sub").rename(world.ws / "old")
    (world.ws / "sub").symlink_to(world.home)
    with pytest.raises(UndoRefused):
        store.undo(force=True)
    assert world.destroyed() == []


def test_not_found_hints_never_list_a_directory_outside(world: World, call) -> None:
    (world.home / "notes").mkdir()
    (world.home / "notes" / "diary.txt").write_text("private\n")
    (world.ws / "notes").symlink_to(world.home / "notes")
    result = call("read_file", _ctx(world), path="notes/diary.tx")
    assert not result.ok and "diary.txt" not in result.content
