"""The suite linter, ``conformance --check-suite DIR|FILE`` (issue 34 item 4).

It exits 0 on the shipped suite; on a broken one it names every problem at its line, one line
each on stderr (``FILE:LINE: what``), and exits 2: the schema, a duplicate id, a rule the table
does not know, a level that is not the strictest of its rules or that the stream does not bear
out, a request our renderer cannot render, a line that is not JSON.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harmony_viz.cli import main
from harmony_viz.conformance import SUITE_DIR, check_suite

BASE = {"format": 1, "kind": "answer", "description": "a case", "tags": ["t"], "provenance": "written for a test"}
CLEAN = "<|channel|>final<|message|>Hello.<|return|>"
MALFORMED = "<|channel|> final<|message|>Hello.<|return|>"  # a space before the channel's name: bad-channel


def _case(**fields: object) -> str:
    return json.dumps({**BASE, **fields})


# (what is wrong, the line, the words that must name it)
BROKEN = [
    ("fine", _case(id="ok/clean", rules=["H01"], level="must", text=CLEAN), None),
    ("schema", _case(id="bad/schema", rules=["H01"], level="must", text=CLEAN, colour="red"), r"unknown field 'colour'"),
    ("bad json", '{"format": 1,,}', r"bad JSON at column 14"),
    ("duplicate id", _case(id="ok/clean", rules=["H01"], level="must", text=CLEAN), r"duplicate id 'ok/clean' \(first at .*c\.jsonl:1\)"),
    ("unknown rule", _case(id="bad/rule", rules=["H01", "H99"], level="must", text=CLEAN), r"rule 'H99' is not a known rule"),
    ("no rules", _case(id="bad/norules", level="must", text=CLEAN), r"no 'rules': cite the ids"),
    ("no level, so the strictest rule's", _case(id="ok/nolevel", rules=["H01"], text=CLEAN), None),
    ("no level, and a must rule on a malformed stream", _case(id="bad/nolevel", rules=["H01"], text=MALFORMED),
     r"level 'must' is for a well-formed stream, but the scanner finds bad-channel"),
    ("level not strictest", _case(id="bad/level", rules=["H01", "H40"], level="may", text=CLEAN),
     r"level is 'may', but the strictest of its rules is 'must' \(H01\)"),
    ("must but malformed", _case(id="bad/must-malformed", rules=["H01"], level="must", text=MALFORMED),
     r"level 'must' is for a well-formed stream, but the scanner finds bad-channel"),
    ("should but clean", _case(id="bad/should-clean", rules=["H20"], level="should", text=CLEAN),
     r"level 'should' is for recovery from malformed output, but the scanner finds nothing at warning or above"),
    ("request", _case(id="bad/request", rules=["H01"], level="must", text=CLEAN, request={"messages": [{"role": "robot", "content": "hi"}]}),
     r"the request cannot be rendered as a Harmony prompt: messages\[0\]\.role: unknown role 'robot'"),
]


def test_the_shipped_suite_checks_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "--check-suite", str(SUITE_DIR)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    n = sum(1 for p in SUITE_DIR.glob("*.jsonl") for line in p.read_text(encoding="utf-8").splitlines() if line.strip())
    assert out.strip() == f"{n} case(s) checked: no problem"


def test_each_problem_is_named_at_its_line_on_stderr_and_the_exit_is_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(line for _, line, _ in BROKEN) + "\n", encoding="utf-8")
    assert main(["conformance", "--check-suite", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    broken = sum(1 for _, _, pattern in BROKEN if pattern is not None)
    assert lines[-1] == f"harmony-viz conformance: {broken} problem(s) in {len(BROKEN)} case(s)"
    problems = lines[:-1]
    assert len(problems) == broken  # one line a problem: each broken case here has exactly one
    for n, (what, _, pattern) in enumerate(BROKEN, 1):
        mine = [p for p in problems if p.startswith(f"{path}:{n}: ")]
        if pattern is None:
            assert mine == [], what
        else:
            assert len(mine) == 1 and re.search(pattern, mine[0]), (what, mine)


def test_several_problems_of_one_case_are_each_a_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(_case(id="bad/twice", rules=["H99", "H20"], level="must", text=CLEAN) + "\n", encoding="utf-8")
    problems, n = check_suite([path])
    assert n == 1
    assert [p.source for p in problems] == [f"{path}:1", f"{path}:1"]
    assert [p.what.split(" ")[0:2] for p in problems] == [["rule", "'H99'"], ["level", "is"]]


def test_folders_json_files_and_missing_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "one.json").write_text(_case(id="a/one", rules=["H40"], level="may", text=CLEAN), encoding="utf-8")
    (tmp_path / "two.jsonl").write_text(_case(id="a/one", rules=["H40"], level="may", text=CLEAN) + "\n", encoding="utf-8")
    assert main(["conformance", "--check-suite", str(tmp_path), str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert f"{tmp_path / 'two.jsonl'}:1: duplicate id 'a/one' (first at {tmp_path / 'one.json'})" in err
    assert f"{tmp_path / 'nowhere'}: no such file or folder" in err
    assert not any(line.startswith(str(tmp_path / "one.json")) for line in err)  # a clean may case: no problem
    assert len(err) == 3
