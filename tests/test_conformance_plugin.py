"""The pytest plugin (``pytest --harmony-conformance``, entry point ``pytest11``) against the command, on real engines.

Each run is a real pytest in a subprocess (``pytester``), in a folder of its own with no
configuration: what a user gets from any folder. Its tests, per node id and in total, must be
the command's statuses on the same input: pass PASSED, fail (and fixed, as XPASS(strict))
FAILED, known XFAIL, not-served SKIPPED, error ERROR.
"""

from __future__ import annotations

import json
import re
from importlib import metadata
from pathlib import Path

import pytest

from harmony_viz.cli import main

pytest_plugins = ["pytester"]

WORD = {"pass": "PASSED", "fail": "FAILED", "fixed": "FAILED", "known": "XFAIL", "not-served": "SKIPPED", "error": "ERROR"}
# `pytest -v`: one line per test, its node id then its outcome (the short summary puts the word first, so it is not matched)
VERBOSE_LINE = re.compile(r"^(\S+/\S+\[[\w.-]+\]) (PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR)\b", re.M)
RUN_TIMEOUT_S = 600


@pytest.fixture(scope="module", autouse=True)
def _entry_point() -> None:
    """The plugin loads from the installed metadata; a checkout installed before it existed needs a re-install."""
    found = [ep for ep in metadata.entry_points(group="pytest11") if ep.name == "harmony_viz"]
    if not found:
        pytest.fail("the pytest11 entry point harmony_viz is not installed: run `pip install --no-deps --no-build-isolation -e .`", pytrace=False)
    assert found[0].value == "harmony_viz.pytest_plugin"


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wide terminal for the runs: no line of theirs is cut."""
    monkeypatch.setenv("COLUMNS", "400")


@pytest.fixture(scope="module")
def sglang() -> None:
    import _server

    from harmony_viz.servers import LaunchError
    from harmony_viz.servers.engines.sglang import find_sglang_python

    try:
        find_sglang_python()
    except LaunchError as exc:
        _server._unavailable(str(exc))


def _plugin(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, str]]:
    result = pytester.runpytest_subprocess("--harmony-conformance", *args, "-p", "no:cacheprovider", "-v", timeout=RUN_TIMEOUT_S)
    words: dict[str, str] = {}
    for node, word in VERBOSE_LINE.findall(result.stdout.str()):
        assert node not in words, f"{node} reported twice"
        words[node] = word
    return result, words


def _command(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "report.json"
    assert main(["conformance", *args, "--json", str(out)]) in (0, 1)
    return json.loads(out.read_text())


def _same_as(result: pytest.RunResult, words: dict[str, str], report: dict) -> None:
    expected = {f"{r['case']}[{r['engine']}-{r['api']}]": WORD[r["status"]] for r in report["results"]}
    assert words == expected
    s = report["summary"]
    result.assert_outcomes(passed=s["passed"], failed=s["failed"] + s["fixed"], xfailed=s["known"], skipped=s["not_served"], errors=s["errors"])


def test_without_the_flag_the_plugin_collects_nothing_and_imports_nothing_heavy(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mine="def test_mine():\n    pass\n")
    # The session's end says which parts of harmony_viz were imported.
    pytester.makeconftest("import sys\n\ndef pytest_sessionfinish(session):\n"
                          "    print('HV-MODULES', sorted(m for m in sys.modules if m.startswith('harmony_viz')))\n")
    result = pytester.runpytest_subprocess("--co", "-q", "-s", "-p", "no:cacheprovider")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["test_mine.py::test_mine", "1 test collected*"])
    assert "HV-MODULES ['harmony_viz', 'harmony_viz.pytest_plugin']" in result.stdout.lines
    # An engine named without --harmony-conformance: the option is known (from the registry) and nothing more happens.
    result = pytester.runpytest_subprocess("--co", "-q", "--harmony-sglang", "-p", "no:cacheprovider")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["1 test collected*"])
    help_text = pytester.runpytest_subprocess("--help").stdout.str()
    for flag in ("--harmony-conformance", "--harmony-vllm=URL", "--harmony-llama-cpp=URL", "--harmony-sglang ", "--harmony-gpt-oss=URL",
                 "--harmony-known=FILE", "--harmony-suite=DIR|FILE", "--harmony-select=PATTERN", "--harmony-sglang-python=PY"):
        assert flag in help_text, flag


def test_bad_input_is_a_usage_error_in_one_line(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--harmony-conformance", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --harmony-conformance: name at least one engine: --harmony-vllm URL, --harmony-llama-cpp URL, --harmony-sglang, --harmony-gpt-oss URL"])
    result = pytester.runpytest_subprocess("--harmony-conformance", "--harmony-sglang", "--harmony-select", "nope/*", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --harmony-conformance: no case matches nope/*"])
    pytester.path.joinpath("known.jsonl").write_text('{"case": "a/b"}\n')
    result = pytester.runpytest_subprocess("--harmony-conformance", "--harmony-sglang", "--harmony-known", "known.jsonl", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --harmony-conformance: known.jsonl:1: missing engine, api, codes"])


def test_collection_is_the_suite_alone_unless_test_paths_are_given(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mine="def test_mine():\n    pass\n")
    args = ("--harmony-conformance", "--harmony-sglang", "--harmony-select", "header/leading-space-channel", "--harmony-select", "prompt/two-step",
            "--co", "-q", "-p", "no:cacheprovider")
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == 0
    ids = [line for line in result.stdout.lines if line.startswith(("header/", "prompt/", "test_"))]
    assert ids == ["prompt/two-step[sglang-prompt]",  # the suite's order: prompt.jsonl, then zoo.jsonl
                   "header/leading-space-channel[sglang-chat]", "header/leading-space-channel[sglang-chat-stream]",
                   "header/leading-space-channel[sglang-responses]", "header/leading-space-channel[sglang-responses-stream]"]
    result = pytester.runpytest_subprocess(*args, "test_mine.py")
    assert "test_mine.py::test_mine" in result.stdout.lines and "6 tests collected" in result.stdout.str()


def test_an_engine_that_cannot_be_asked_is_an_error_with_its_one_line(pytester: pytest.Pytester, tmp_path: Path) -> None:
    from _server import free_port

    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    args = ("--select", "header/no-channel", "--select", "prompt/two-step")
    report = _command(tmp_path, "--gpt-oss", url, *args)
    assert {r["status"] for r in report["results"]} == {"error"}
    result, words = _plugin(pytester, "--harmony-gpt-oss", url, *(a.replace("--", "--harmony-") for a in args))
    _same_as(result, words, report)
    reason = report["results"][0]["reason"]
    assert f"ERROR header/no-channel[gpt-oss-responses] - Failed: gpt-oss could not be asked: {reason}" in result.stdout.lines


def test_sglang_subset_gives_the_commands_statuses(pytester: pytest.Pytester, tmp_path: Path, sglang: None) -> None:
    args = ("--select", "header/*", "--select", "prompt/two-step")
    report = _command(tmp_path, "--sglang", *args)
    result, words = _plugin(pytester, "--harmony-sglang", *(a.replace("--", "--harmony-") for a in args))
    _same_as(result, words, report)
    assert words["header/leading-space-channel[sglang-chat]"] == "PASSED"
    assert words["prompt/two-step[sglang-prompt]"] == "SKIPPED"  # offline: no prompt to see
    # A failure names its codes (the short summary) and each finding's message (the report).
    failing = next(r for r in report["results"] if r["status"] == "fail")
    node = f"{failing['case']}[sglang-{failing['api']}]"
    out = result.stdout.str()
    assert f"FAILED {node} - {', '.join(failing['codes'])}" in out
    for d in failing["discrepancies"]:
        if d["code"] in failing["codes"]:
            assert f"[{d['severity']}] {d['code']}: {d['message']}" in out
    result.stdout.fnmatch_lines(["*= harmony-viz conformance =*", "sglang: * of 33"])


@pytest.mark.server
def test_the_reference_server_gives_the_commands_statuses_and_known_divergences_xfail(gpt_oss_server, pytester: pytest.Pytester, tmp_path: Path) -> None:  # noqa: ANN001
    from harmony_viz.conformance import Target, load_suite, read_known, run_suite, select, write_known

    url = gpt_oss_server.url
    args = ("--select", "header/*", "--select", "clean/final-only", "--select", "prompt/two-step")
    plugin_args = ("--harmony-gpt-oss", url, *(a.replace("--", "--harmony-") for a in args))
    report = _command(tmp_path, "--gpt-oss", url, *args)
    result, words = _plugin(pytester, *plugin_args)
    _same_as(result, words, report)
    assert words["header/leading-space-channel[gpt-oss-responses]"] == "FAILED"
    assert words["header/leading-space-channel[gpt-oss-chat]"] == "SKIPPED"  # the reference server serves Responses only

    # Known divergences from real outcomes: one failure as it fails (xfail), a passing case (strict XPASS),
    # and one failure listed with other codes than it fails with (still a failure).
    cases = select(load_suite(), ["header/leading-space-channel", "header/no-channel", "clean/final-only"])
    outcomes = {o.key: o for o in run_suite(cases, [Target("gpt-oss", url)])}
    failing = outcomes[("header/leading-space-channel", "gpt-oss", "responses")]
    passing = outcomes[("clean/final-only", "gpt-oss", "responses")]
    other = outcomes[("header/no-channel", "gpt-oss", "responses-stream")]
    assert failing.status == other.status == "fail" and passing.status == "pass"
    known = pytester.path / "known.jsonl"
    assert write_known([failing], known, reason="the reference server's own parser") == 1
    with known.open("a") as f:
        f.write(json.dumps({"case": passing.case.id, "engine": "gpt-oss", "api": "responses", "codes": ["text-dropped"], "reason": "was broken"}) + "\n")
        f.write(json.dumps({"case": other.case.id, "engine": "gpt-oss", "api": "responses-stream", "codes": ["not-" + other.codes[0]]}) + "\n")
    assert len(read_known(known)) == 3
    report = _command(tmp_path, "--gpt-oss", url, *args, "--known", str(known))
    s = report["summary"]
    assert (s["known"], s["fixed"]) == (1, 1)
    result, words = _plugin(pytester, *plugin_args, "--harmony-known", "known.jsonl", "-rxX")
    _same_as(result, words, report)
    assert words["header/leading-space-channel[gpt-oss-responses]"] == "XFAIL"
    assert words["clean/final-only[gpt-oss-responses]"] == "FAILED"
    assert words["header/no-channel[gpt-oss-responses-stream]"] == "FAILED"
    out = result.stdout.str()
    assert "XFAIL header/leading-space-channel[gpt-oss-responses] - known divergence " + ", ".join(failing.codes) + ": the reference server's own parser" in out
    assert "[XPASS(strict)] known divergence text-dropped: was broken" in out
    assert "listed as known with not-" in out
    # --harmony-allow-fixed, as the command's --allow-fixed: the fixed case is an XPASS that does not fail.
    result, words = _plugin(pytester, *plugin_args, "--harmony-known", "known.jsonl", "--harmony-allow-fixed")
    assert words["clean/final-only[gpt-oss-responses]"] == "XPASS"
    result.assert_outcomes(passed=s["passed"], failed=s["failed"], xfailed=s["known"], xpassed=s["fixed"], skipped=s["not_served"])
