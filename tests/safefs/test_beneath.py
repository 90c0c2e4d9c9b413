"""safefs: links inside the root are followed, links out refused - with both resolvers."""

from __future__ import annotations

import os

import pytest

import safefs


@pytest.fixture(params=["openat2", "walk"])
def resolver(request):
    safefs.use(request.param)
    yield request.param
    safefs.use(None)


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "f.txt").write_text("inside\n")
    outside = tmp_path / "secret"
    outside.write_text("SECRET\n")
    (root / "in_rel").symlink_to("sub")
    (root / "in_abs").symlink_to(root / "sub" / "f.txt")
    (root / "out_rel").symlink_to("../secret")
    (root / "out_abs").symlink_to(outside)
    (root / "sub" / "up").symlink_to("..")
    (root / "loop").symlink_to("loop")
    return root


def test_links_inside_are_followed(tree, resolver):
    assert safefs.read_bytes(str(tree), "in_rel/f.txt") == b"inside\n"
    assert safefs.read_bytes(str(tree), "in_abs") == b"inside\n"
    assert safefs.read_bytes(str(tree), "sub/up/sub/f.txt") == b"inside\n"
    assert safefs.read_bytes(str(tree), "sub/../sub/f.txt") == b"inside\n"


@pytest.mark.parametrize("rel", ["out_rel", "out_abs", "../secret", "sub/up/../secret",
                                 "in_rel/../../secret"])
def test_links_and_dots_out_are_refused(tree, resolver, rel):
    with pytest.raises(safefs.Escape):
        safefs.read_bytes(str(tree), rel)


def test_writes_never_land_outside(tree, resolver):
    with pytest.raises(safefs.Escape):
        safefs.write_atomic(str(tree), "out_rel", b"x")
    (tree / "dir_out").symlink_to(tree.parent)
    with pytest.raises(safefs.Escape):
        safefs.write_atomic(str(tree), "dir_out/new.txt", b"x")
    assert (tree.parent / "secret").read_text() == "SECRET\n"
    assert not (tree.parent / "new.txt").exists()
    # a final link inside the root is written through; parents are made
    safefs.write_atomic(str(tree), "in_abs", b"changed\n")
    assert (tree / "sub" / "f.txt").read_text() == "changed\n"
    assert (tree / "in_abs").is_symlink()
    safefs.write_atomic(str(tree), "a/b/c.txt", b"deep")
    assert (tree / "a" / "b" / "c.txt").read_bytes() == b"deep"


def test_mode_kept_and_no_temp_left(tree, resolver):
    target = tree / "sub" / "f.txt"
    target.chmod(0o640)
    safefs.write_atomic(str(tree), "sub/f.txt", b"new")
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in (tree / "sub").iterdir()) == ["f.txt", "up"]


def test_no_links_mode_refuses_every_link(tree, resolver):
    with pytest.raises(safefs.Escape):
        safefs.read_bytes(str(tree), "in_rel/f.txt", links=False)
    assert safefs.read_bytes(str(tree), "sub/f.txt", links=False) == b"inside\n"


def test_loops_and_missing(tree, resolver):
    with pytest.raises(OSError):
        safefs.read_bytes(str(tree), "loop")
    with pytest.raises(FileNotFoundError):
        safefs.read_bytes(str(tree), "nope")
    assert safefs.stat_beneath(str(tree), "nope") is None
    with pytest.raises(safefs.Escape):
        safefs.stat_beneath(str(tree), "out_abs")  # O_PATH: the link is followed, not opened
    assert safefs.stat_beneath(str(tree), "in_abs").st_size == len(b"inside\n")


def test_fifo_and_devices_are_not_regular(tree, resolver):
    os.mkfifo(tree / "fifo")
    with pytest.raises(safefs.NotRegular):
        safefs.read_bytes(str(tree), "fifo")  # returns at once: O_NONBLOCK
    with pytest.raises(safefs.NotRegular):
        safefs.read_bytes("/dev", "zero")
    with pytest.raises(safefs.NotRegular):
        safefs.read_bytes(str(tree), "sub")


def test_create_new_is_exclusive_and_never_follows(tree, resolver):
    safefs.create_new(str(tree), "sub/new", b"1")
    with pytest.raises(FileExistsError):
        safefs.create_new(str(tree), "sub/new", b"2")
    (tree / "planted").symlink_to(tree.parent / "victim")
    with pytest.raises(FileExistsError):
        safefs.create_new(str(tree), "planted", b"x")
    assert not (tree.parent / "victim").exists()
    with pytest.raises(safefs.Escape):
        safefs.create_new(str(tree), "in_rel/x", b"x")  # no link in the parents either


def test_walk_lists_regular_files_only_and_never_follows(tree, resolver):
    os.mkfifo(tree / "sub" / "fifo")
    (tree / "node_modules").mkdir()
    (tree / "node_modules" / "x").write_text("x")
    found = [(e.rel, e.read()) for e in safefs.walk(str(tree), ".", frozenset({"node_modules"}))]
    assert found == [("sub/f.txt", b"inside\n")]


def test_the_kernel_resolver_is_used_here():
    # this machine's kernel has openat2; the fallback is covered by the "walk" params
    assert safefs.resolver() == "openat2"
