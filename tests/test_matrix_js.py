"""The conformance matrix page's pure TypeScript (its columns, the marks of what changed across versions, its filters) under node's test runner.

js/test/matrix.test.mjs builds matrices from results written out there and checks each mark
and each filter's rows, columns and tallies; tests/test_conformance_page.py and
tests/ui/test_conformance_page_browser.py check the same page drawn in chromium from real reports.
"""

from __future__ import annotations

import re

from _js import run_node_tests

UNIT_TESTS = 8  # the tests in matrix.test.mjs


def test_the_matrix_pure_logic_passes_its_node_tests() -> None:
    out = run_node_tests("test/matrix.test.mjs", {})
    assert re.search(rf"^# pass {UNIT_TESTS}$", out, re.M), out[-2000:]
    assert re.search(r"^# fail 0$", out, re.M)


LEVEL_TESTS = 2  # the tests in matrix_levels.test.mjs


def test_the_matrix_levels_and_triage_pass_their_node_tests() -> None:
    out = run_node_tests("test/matrix_levels.test.mjs", {})
    assert re.search(rf"^# pass {LEVEL_TESTS}$", out, re.M), out[-2000:]
    assert re.search(r"^# fail 0$", out, re.M)


SITE_TESTS = 2  # the tests in site.test.mjs


def test_the_site_pure_logic_passes_its_node_tests() -> None:
    out = run_node_tests("test/site.test.mjs", {})
    assert re.search(rf"^# pass {SITE_TESTS}$", out, re.M), out[-2000:]
    assert re.search(r"^# fail 0$", out, re.M)
