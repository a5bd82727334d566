"""``harmony-viz escape`` and ``harmony-viz leaks``: exact output and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


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


# --- issue 32: every special spelling, every byte ---------------------------------------------


def test_escape_knows_every_special_spelling_and_leaks_calls_them_a_leak(cli):
    text = "a<|endoftext|>b<|startoftext|>c<|reserved_200013|>"
    assert cli("escape", "-", stdin=text) == (0, "a<\\|endoftext\\|>b<\\|startoftext\\|>c<\\|reserved_200013\\|>", "")
    for spelling in ("<|endoftext|>", "<|startoftext|>", "<|reserved_200013|>"):
        for surface in ("assistant_text", "assistant_thinking", "tool_arg"):
            code, out, err = cli("leaks", "-", "--surface", surface, "--strict", stdin=f'{{"a": "{spelling}"}}')
            assert (code, json.loads(out), err) == (1, {"leak": True, "signals": ["H"]}, "")


def _escape_in_process(argv: list[str], data: bytes) -> tuple[int, bytes, str]:
    """``harmony-viz escape`` in this process on real byte streams: stdin and stdout with buffers, as a terminal's are."""
    import contextlib
    import io

    from harmony_viz.cli import main

    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    out_bytes = io.BytesIO()
    stdout = io.TextIOWrapper(out_bytes, encoding="utf-8", write_through=True)
    err = io.StringIO()
    old_in, old_out = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = stdin, stdout
    try:
        with contextlib.redirect_stderr(err):
            code = main(argv)
        stdout.flush()
    finally:
        sys.stdin, sys.stdout = old_in, old_out
    return code, out_bytes.getvalue(), err.getvalue()


# Arbitrary bytes, and bytes rich in what a file holds and escaping touches: spellings (escaped
# zero to two times), CRLF, lone CR, a BOM, NUL, bytes that are not UTF-8.
_pieces = st.one_of(
    st.binary(max_size=8),
    st.sampled_from([b"<|end|>", b"<|endoftext|>", b"<|reserved_200013|>", b"<\\|call\\|>", b"<\\\\|start\\\\|>", b"<|nope|>",
                     b"\r\n", b"\r", b"\n", b"\xef\xbb\xbf", b"\x00", b"\xff", b"\xc3", "é🚀".encode(), b"<|", b"|>", b"\\"]),
)
byte_files = st.binary(max_size=300) | st.lists(_pieces, max_size=16).map(b"".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(byte_files)
def test_escape_then_reverse_gives_any_bytes_back_from_a_file_and_from_stdin(tmp_path, data):
    f = tmp_path / "in.bin"
    f.write_bytes(data)
    code, escaped, err = _escape_in_process(["escape", str(f)], b"")
    assert (code, err) == (0, "")
    assert b"<|end|>" not in escaped and b"<|endoftext|>" not in escaped
    assert _escape_in_process(["escape", "-"], data) == (0, escaped, "")  # stdin: the same bytes out
    back = tmp_path / "escaped.bin"
    back.write_bytes(escaped)
    assert _escape_in_process(["escape", "--reverse", str(back)], b"") == (0, data, "")
    assert _escape_in_process(["escape", "--reverse", "-"], escaped) == (0, data, "")


def test_escape_of_a_file_keeps_crlf_cr_bom_and_nul(tmp_path):
    data = b"\xef\xbb\xbfline<|end|>\r\nnext\rlast\x00"
    f = tmp_path / "in.txt"
    f.write_bytes(data)
    result = subprocess.run([sys.executable, "-m", "harmony_viz", "escape", str(f)], capture_output=True)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"\xef\xbb\xbfline<\\|end\\|>\r\nnext\rlast\x00", b"")
    back = subprocess.run([sys.executable, "-m", "harmony_viz", "escape", "--reverse", "-"], input=result.stdout, capture_output=True)
    assert (back.returncode, back.stdout, back.stderr) == (0, data, b"")


def test_escape_json_keeps_a_bom_and_refuses_bytes_that_are_not_utf8(tmp_path):
    f = tmp_path / "args.json"
    f.write_bytes(b'\xef\xbb\xbf{"a": "<|endoftext|>"}\r\n')
    code, out, err = _escape_in_process(["escape", "--json", str(f)], b"")
    assert (code, out, err) == (0, b'\xef\xbb\xbf{"a": "<\\\\|endoftext\\\\|>"}\r\n', "")
    f.write_bytes(b'{"a": "\xff"}')
    code, out, err = _escape_in_process(["escape", "--json", str(f)], b"")
    assert (code, out) == (2, b"")
    assert err == f"harmony-viz escape: {f}: not UTF-8 text (byte 7), so not a JSON document; drop --json to escape its bytes as they are\n"
    f.write_text("[" * 100_000 + "]" * 100_000)
    code, out, err = _escape_in_process(["escape", "--json", str(f)], b"")
    assert (code, out) == (2, b"")
    assert err == f"harmony-viz escape: {f}: not valid JSON: nested too deep to read (more levels than Python's recursion limit); drop --json to escape it as plain text\n"
