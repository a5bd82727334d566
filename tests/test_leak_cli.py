"""``harmony-viz escape`` and ``harmony-viz leaks``: exact output and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def test_escape_prints_exactly_the_escaped_text(tmp_path, cli):
    f = tmp_path / "in.txt"
    f.write_text("a<|start|>b<|end|>\n", encoding="utf-8")
    assert cli("escape", str(f)) == (0, "a<\\|start\\|>b<\\|end\\|>\n", "")
    assert cli("escape", "-", stdin="x<|call|>") == (0, "x<\\|call\\|>", "")
    assert cli("escape", "--reverse", "-", stdin="x<\\|call\\|>") == (0, "x<|call|>", "")


def test_escape_json(cli):
    doc = '{"a": ["<|return|>", 1]}'
    code, out, err = cli("escape", "--json", "-", stdin=doc)
    assert (code, out, err) == (0, '{"a": ["<\\\\|return\\\\|>", 1]}', "")
    assert json.loads(out) == {"a": ["<\\|return\\|>", 1]}
    assert cli("escape", "--json", "--reverse", "-", stdin=out) == (0, doc, "")


def test_escape_bad_input_is_one_line_and_exit_2(tmp_path, cli):
    code, out, err = cli("escape", "--json", "-", stdin='{"a": ')
    assert (code, out) == (2, "")
    assert err == "harmony-viz escape: -: not valid JSON: Expecting value at line 1, column 7; drop --json to escape it as plain text\n"
    missing = tmp_path / "nope.txt"
    assert cli("escape", str(missing)) == (2, "", f"harmony-viz escape: {missing}: no such file\n")


@pytest.mark.parametrize(
    ("argv", "text", "code", "expected"),
    [
        (["leaks", "-"], "Done.<|end|>", 0, {"leak": True, "signals": ["H"]}),
        (["leaks", "-", "--surface", "assistant_thinking"], "The marker to=functions.x routes calls.", 0, {"leak": False, "signals": ["M"]}),
        (["leaks", "-", "--surface", "tool_arg"], '{"a": 1} analysis to=functions.edit', 0, {"leak": True, "signals": ["M", "C", "T"]}),
        (["leaks", "-", "--surface", "tool_arg", "--strict"], '{"a": 1} analysis to=functions.edit', 1, {"leak": True, "signals": ["M", "C", "T"]}),
        (["leaks", "-", "--strict"], "```\n<|end|>\n```", 0, {"leak": False, "signals": []}),
        # issue 25: control spellings in any argument text, JSON or not
        (["leaks", "-", "--surface", "tool_arg", "--strict"], '{"city": "Paris<|call|>', 1, {"leak": True, "signals": ["H"]}),
        (["leaks", "-", "--surface", "tool_arg", "--strict"], '{"city": "Paris<|call|>"}', 1, {"leak": True, "signals": ["H"]}),
        (["leaks", "-", "--surface", "tool_arg", "--strict"], '{"city": "Paris"}', 0, {"leak": False, "signals": []}),
    ],
)
def test_leaks_prints_the_verdict(argv, text, code, expected, cli):
    got_code, out, err = cli(*argv, stdin=text)
    assert (got_code, err) == (code, "")
    assert out == json.dumps(expected) + "\n"


def test_leaks_rejects_an_unknown_surface(cli):
    code, out, err = cli("leaks", "-", "--surface", "tool", stdin="x")
    assert code == 2 and out == ""
    assert "invalid choice: 'tool' (choose from 'assistant_text', 'assistant_thinking', 'tool_arg')" in err


def test_escape_via_the_console_script_adds_no_newline(cli):
    result = subprocess.run([sys.executable, "-m", "harmony_viz", "escape", "-"], input="<|message|>", capture_output=True, text=True)
    assert (result.returncode, result.stdout, result.stderr) == (0, "<\\|message\\|>", "")
