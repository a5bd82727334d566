"""No file is a traceback (issue 32 item 3): each kind of broken file through every command that reads one.

Deeply nested JSON, truncated and corrupt gzip and Parquet, NUL bytes in JSON, a 50 MB single
line: one line on stderr naming the file and what is wrong, exit 2 (``stats``: its
documented exit 1, the file skipped), nothing on stdout, no page half written. ``escape``
takes any bytes and gives them back escaped; ``leaks`` reads text, and says in one line when
a file is not. A byte-order mark, and NUL bytes in text, are read: the BOM changes nothing.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harmony_viz.cli import main
from harmony_viz.leak import escape_bytes

COMMANDS = ["parse", "lint", "html", "stats", "render", "escape", "leaks"]
TEXT = "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello<|return|>"
REQUEST = json.dumps({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]})


def run_cli(*argv: str) -> tuple[int, bytes, str]:
    """``harmony-viz ARGV`` in this process, stdout as bytes (escape writes bytes); a traceback would raise here."""
    out = io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    err = io.StringIO()
    old = sys.stdout
    sys.stdout = stdout
    try:
        with contextlib.redirect_stderr(err):
            code = main(list(argv))
        stdout.flush()
    finally:
        sys.stdout = old
    return code, out.getvalue(), err.getvalue()


def argv(command: str, path: Path, tmp_path: Path) -> list[str]:
    if command == "html":
        return [command, str(path), "-o", str(tmp_path / "page.html")]
    if command == "stats":
        return [command, str(path), "--json"]
    return [command, str(path)]


def _jsonl() -> bytes:
    return "".join(json.dumps({"id": f"r{i}", "text": TEXT}) + "\n" for i in range(40)).encode()


def _parquet() -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"text": [TEXT] * 50}), buf)
    return buf.getvalue()


# name: (bytes, what the one line says is wrong)
BROKEN = {
    "deep.json": (("[" * 100_000 + "]" * 100_000).encode(), "JSON nested too deep to read"),
    "deep-object.json": (('{"messages": ' * 100_000 + "[]" + "}" * 100_000).encode(), "JSON nested too deep to read"),
    "cut.jsonl.gz": (gzip.compress(_jsonl())[:-40], "truncated gzip"),
    "corrupt.jsonl.gz": (gzip.compress(_jsonl())[:12] + b"\xff" * 64, "corrupt gzip data"),
    "cut.parquet": (_parquet()[:300], "not a readable Parquet file, truncated or corrupt"),
    "corrupt.parquet": (b"PAR1" + bytes(range(200)) + b"PAR1", "not a readable Parquet file, truncated or corrupt"),
    "nul.json": (b"[200006, \x00 1428]", "invalid JSON at line 1, column 10"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
@pytest.mark.parametrize("command", COMMANDS)
def test_a_broken_file_is_one_line_in_every_command(tmp_path, command, name):
    data, what = BROKEN[name]
    path = tmp_path / name
    path.write_bytes(data)
    _check_broken(command, path, data, what, tmp_path)


def _check_broken(command: str, path: Path, data: bytes, what: str, tmp_path: Path) -> None:
    code, out, err = run_cli(*argv(command, path, tmp_path))
    assert "Traceback" not in err
    if command == "escape":  # any bytes are something to escape: given back, escaped
        assert (code, out, err) == (0, escape_bytes(data), "")
        return
    if command == "leaks":
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            assert (code, out, err) == (2, b"", f"harmony-viz leaks: {path}: not UTF-8 text (byte {exc.start})\n")
        else:  # text, whatever else it is: a verdict
            assert code == 0 and err == "" and set(json.loads(out)) == {"leak", "signals"}
        return
    lines = err.splitlines()
    assert len(lines) == 1, err
    if command == "stats":
        assert code == 1 and json.loads(out) == []
        assert lines[0].startswith(f"harmony-viz stats: {path}: {what}") and lines[0].endswith("; file skipped")
    else:
        assert (code, out) == (2, b"")
        assert lines[0].startswith(f"harmony-viz {command}: {path}: {what}"), lines[0]
    assert not (tmp_path / "page.html").exists()  # no page written, whole or half


@pytest.mark.parametrize("command", COMMANDS)
def test_a_50_mb_single_line_is_one_line_too(tmp_path, command):
    """A 50 MB JSON record cut off mid-string (a download that stopped): one line, quickly, in every command."""
    path = tmp_path / "cut.json"
    data = b'{"id": "x", "text": "<|start|>user<|message|>' + b"a" * (50 * 1024 * 1024)
    path.write_bytes(data)
    _check_broken(command, path, data, "invalid JSON at line 1, column 21: Unterminated string", tmp_path)


def test_one_bad_file_among_many_is_skipped_by_stats(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_bytes(_jsonl())
    for name in ("cut.jsonl.gz", "corrupt.parquet", "deep.json"):
        bad = tmp_path / name
        bad.write_bytes(BROKEN[name][0])
        code, out, err = run_cli("stats", str(good), str(bad), "--json")
        assert code == 1 and len(json.loads(out)) == 40
        assert err.startswith(f"harmony-viz stats: {bad}: {BROKEN[name][1]}") and err.endswith("; file skipped\n") and err.count("\n") == 1


@pytest.mark.parametrize("command", COMMANDS)
def test_a_byte_order_mark_changes_nothing(tmp_path, command):
    """A UTF-8 BOM is skipped with no finding: every command says of the file with one what it says without."""
    body = (REQUEST if command == "render" else TEXT).encode()
    plain, marked = tmp_path / "plain" / "in.txt", tmp_path / "marked" / "in.txt"
    for path, data in ((plain, body), (marked, b"\xef\xbb\xbf" + body)):
        path.parent.mkdir()
        path.write_bytes(data)
    code, out, err = run_cli(*argv(command, plain, plain.parent))
    got = run_cli(*argv(command, marked, marked.parent))
    if command == "escape":  # escape keeps every byte, the BOM too
        assert got == (code, b"\xef\xbb\xbf" + out, err)
        return
    assert got == (code, out, err.replace(str(plain.parent), str(marked.parent)))
    assert "\ufeff" not in out.decode() and "text-outside-message" not in err + out.decode()
    if command == "html":
        page = (marked.parent / "page.html").read_text(encoding="utf-8")
        assert page.replace(str(marked), str(plain)) == (plain.parent / "page.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", COMMANDS)
def test_nul_bytes_in_text_are_text(tmp_path, command):
    path = tmp_path / "nul.txt"
    data = "<|start|>user<|message|>a\x00b<|end|><|start|>assistant<|channel|>final<|message|>c\x00<|return|>".encode()
    path.write_bytes(data)
    code, out, err = run_cli(*argv(command, path, tmp_path))
    assert "Traceback" not in err
    if command == "render":  # Harmony text is no conversation: the usual one line
        assert (code, out) == (2, b"") and err == f"harmony-viz render: {path}: Harmony text, not a conversation; give Harmony conversation JSON or a Chat Completions request\n"
    elif command == "escape":
        assert (code, out, err) == (0, escape_bytes(data), "") and b"a\x00b" in out
    elif command == "parse":
        assert code == 0 and err.splitlines()[0] == f"read {path} as Harmony text"
        parsed = json.loads(out)
        assert [m["content"][0]["text"] for m in parsed["messages"]] == ["a\x00b", "c\x00"]
    else:
        assert code == 0, err


@pytest.mark.parametrize("command", ["parse", "lint", "html", "stats", "leaks"])
def test_tool_call_arguments_nested_past_the_recursion_limit_are_read(tmp_path, command):
    """Model output is never a traceback: arguments nested 5,000 deep were a RecursionError in the scanner and the lints."""
    path = tmp_path / "deep-call.txt"
    path.write_text("<|start|>assistant<|channel|>commentary to=functions.f<|constrain|>json<|message|>" + "[" * 5000 + "]" * 5000 + "<|call|>", encoding="utf-8")
    code, out, err = run_cli(*argv(command, path, tmp_path))
    assert "Traceback" not in err and code == 0, err
    if command == "lint":
        (finding,) = [d for d in json.loads(out)["diagnostics"] if d["code"] == "arguments-not-json"]
        assert "nested too deep to read" in finding["message"]


def test_a_tools_file_nested_too_deep_or_with_a_bom(tmp_path):
    text = tmp_path / "t.txt"
    text.write_text(TEXT, encoding="utf-8")
    deep = tmp_path / "tools.json"
    deep.write_bytes(BROKEN["deep.json"][0])
    assert run_cli("lint", str(text), "--tools", str(deep)) == (
        2, b"", f"harmony-viz lint: --tools {deep}: JSON nested too deep to read (more levels than Python's recursion limit); expected an OpenAI tools array\n")
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]
    plain, marked = tmp_path / "plain.json", tmp_path / "marked.json"
    plain.write_text(json.dumps(tools), encoding="utf-8")
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    code, out, err = run_cli("lint", str(text), "--tools", str(plain))
    assert code == 0 and run_cli("lint", str(text), "--tools", str(marked)) == (code, out, err)
