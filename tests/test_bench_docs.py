"""bench/_docs.py: a bench writes its figures into docs/BENCHMARKS.md between its markers,
touching nothing else; every generated section on the page names a bench that writes it."""

from __future__ import annotations

import datetime
from pathlib import Path

from bench import _docs

ROOT = Path(__file__).resolve().parent.parent


def test_a_section_is_replaced_in_place_and_the_prose_around_it_kept(tmp_path):
    page = tmp_path / "BENCHMARKS.md"
    page.write_text("# Benchmarks\n\nprose before\n\n<!-- bench:x -->\nold figures\n"
                    "<!-- /bench:x -->\n\nprose after\n")
    _docs.write_section("x", "| a |\n|---|\n| 1 |", page, stamp_line="*stamp*")
    _docs.write_section("x", "| a |\n|---|\n| 2 |", page, stamp_line="*stamp*")
    text = page.read_text()
    assert "old figures" not in text and "| 1 |" not in text
    assert text.count("| 2 |") == 1 and text.count("<!-- bench:x -->") == 1
    assert text.startswith("# Benchmarks\n\nprose before\n") and text.endswith("prose after\n")


def test_a_new_section_is_appended(tmp_path):
    page = tmp_path / "BENCHMARKS.md"
    page.write_text("# Benchmarks\n")
    _docs.write_section("y", "figures", page, stamp_line="*stamp*")
    assert _docs.sections(page) == ["y"]
    assert page.read_text().startswith("# Benchmarks\n\n<!-- bench:y -->\nfigures\n")


def test_the_stamp_says_which_bench_when_and_on_what_commit():
    line = _docs.stamp("cron_cost", today=datetime.date(2026, 12, 7), commit="abc1234")
    assert "bench/cron_cost.py --write-docs" in line and "2026-12-07" in line
    assert "abc1234" in line


def test_every_generated_section_of_the_page_is_written_by_a_bench():
    for name in _docs.sections():
        writers = [p for p in (ROOT / "bench").glob("*.py")
                   if f'"{name}"' in p.read_text(encoding="utf-8")
                   and "--write-docs" in p.read_text(encoding="utf-8")]
        assert writers, f"no bench writes section {name!r} of docs/BENCHMARKS.md"
