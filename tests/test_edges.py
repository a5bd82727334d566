"""The edges, one rule each, the same in every command that reads input (issue 25, item 4).

1. An empty stream (an empty file, a JSON file holding ``[]``, ``""`` or ``[]`` given to a
   verb) is a stream with no tokens: no command refuses it, none invents a diagnostic, and a
   replay page says the stream is empty.
2. A ``.json`` file whose JSON is of no known shape is bad input: one line naming what it
   holds and the shapes expected. Harmony text comes from a file that is not JSON.
3. A flag is checked whenever it is given: ``--tools`` must be a readable file, ``--run N``
   a run the input holds (Harmony text and token ids hold one).
4. ``html`` without ``-o`` writes no page to a terminal; a pipe gets it.
5. Numeric flags name their valid range when refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harmony_viz.cli import main

ONE_RUN = "<|start|>assistant<|channel|>final<|message|>Hi<|end|>"
EMPTY_PAGE = "This stream is empty: no tokens"


def _write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _argv(command: str, path: Path, tmp_path: Path) -> list[str]:
    return {"html": ["html", str(path), "-o", str(tmp_path / "out.html")], "stats": ["stats", str(path), "--json"]}.get(command, [command, str(path)])


# ---- 1. an empty stream -------------------------------------------------------------------------

EMPTY_FILES = {"empty.txt": "", "empty.json": "", "empty.jsonl": "", "empty-array.json": "[]", "empty-array.txt": " [ ]\n"}


@pytest.mark.parametrize("name", sorted(EMPTY_FILES))
@pytest.mark.parametrize("command", ["parse", "lint", "stats", "html", "leaks"])
def test_an_empty_stream_is_no_error_in_any_command(tmp_path, cli, command, name):
    path = _write(tmp_path, name, EMPTY_FILES[name])
    rc, out, err = cli(*_argv(command, path, tmp_path))
    assert rc == 0, err
    assert "harmony-viz" not in err  # nothing refused, nothing warned
    if command == "parse":
        result = json.loads(out)
        assert result["messages"] == [] and result["diagnostics"] == []
    elif command == "lint":
        assert json.loads(out)["diagnostics"] == []
    elif command == "stats":
        (row,) = json.loads(out)
        assert row["output_tokens"] == row["reasoning_tokens"] == row["final_tokens"] == row["diagnostics"] == row["messages"] == 0
    elif command == "html":
        assert EMPTY_PAGE in (tmp_path / "out.html").read_text(encoding="utf-8")
        assert "(0 tokens" in err
    elif command == "leaks":
        assert json.loads(out) == {"leak": False, "signals": []}


@pytest.mark.parametrize("command", ["parse", "lint", "stats", "html"])
@pytest.mark.parametrize("stdin", ["", "[]"])
def test_an_empty_stream_on_standard_input(cli, command, stdin):
    rc, out, err = cli(command, "-", stdin=stdin)
    assert rc == 0 and "harmony-viz" not in err, err
    if command == "html":
        assert EMPTY_PAGE in out


@pytest.mark.parametrize("name", sorted(EMPTY_FILES))
def test_render_of_an_empty_file_is_one_line_and_exit_2(tmp_path, cli, name):
    """issue 32: an empty file has no conversation to render (most likely the wrong file): one line, exit 2, no output."""
    path = _write(tmp_path, name, EMPTY_FILES[name])
    rc, out, err = cli("render", str(path))
    assert (rc, out) == (2, "")
    assert err.startswith(f"harmony-viz render: {path}: ") and err.endswith(", nothing to render; give Harmony conversation JSON or a Chat Completions request\n")
    assert len(err.splitlines()) == 1
    rc, out, err = cli("render", "-", stdin=EMPTY_FILES[name])
    assert (rc, out, len(err.splitlines())) == (2, "", 1) and "nothing to render" in err


def test_parse_projections_of_an_empty_stream(tmp_path, cli):
    """A server that stops at once returns ``[]``: every projection is the empty answer, not bad input."""
    path = _write(tmp_path, "stopped.json", "[]")
    for output in ("messages", "events", "chat", "chat-stream", "responses", "responses-stream"):
        rc, out, err = cli("parse", str(path), "--output", output)
        assert rc == 0 and "harmony-viz" not in err, (output, err)
        assert err == f"read {path} as token ids (empty)\n"


@pytest.mark.parametrize("source", ["", []], ids=["empty-string", "empty-list"])
def test_the_verbs_take_an_empty_stream(tmp_path, source):
    import harmony_viz as hv

    assert hv.lint(source) == []
    widget = hv.replay(source)
    assert widget.trace.tokens.size == 0 and widget.source.endswith("(empty)")
    assert EMPTY_PAGE in widget.save_html(tmp_path / "w.html").read_text(encoding="utf-8")
    assert EMPTY_PAGE in hv.save_html(source, tmp_path / "s.html").read_text(encoding="utf-8")
    hv.playground(source)  # no error
    non_empty = hv.save_html(ONE_RUN, tmp_path / "one.html").read_text(encoding="utf-8")
    assert EMPTY_PAGE not in non_empty


# ---- 2. JSON of no known shape -------------------------------------------------------------------

SHAPELESS = {
    "null.json": ("null", "JSON null"),
    "number.json": ("5", "a JSON number"),
    "string.json": ('"<|start|>user<|message|>Hi<|end|>"', "a JSON string"),
    "boolean.json": ("true", "a JSON boolean"),
    "object.json": ('{"foo": 1}', "a JSON object with keys foo"),
    "empty-object.json": ("{}", "an empty JSON object"),
    "objects.json": ('[{"foo": 1}, {"bar": 2}]', "a JSON array of objects"),
}


@pytest.mark.parametrize("name", sorted(SHAPELESS))
@pytest.mark.parametrize("command", ["parse", "lint", "stats", "html", "render"])
def test_a_json_file_of_no_known_shape_is_bad_input(tmp_path, cli, command, name):
    """Exit 2 and one line naming what was found (stats names it, gives it no row and exits 1, as for any unreadable file)."""
    text, found = SHAPELESS[name]
    path = _write(tmp_path, name, text)
    rc, out, err = cli(*_argv(command, path, tmp_path))
    assert rc == (1 if command == "stats" else 2), err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"harmony-viz {command}: {path}: {found}"), err
    assert " of no known shape" in lines[0] and "; expected a JSON array of token ids" in lines[0], err
    assert "Harmony text comes from a file that is not JSON" in lines[0]
    assert out in ("", "[]\n")
    assert not (tmp_path / "out.html").exists()


@pytest.mark.parametrize("command", ["parse", "lint", "html"])
def test_harmony_text_comes_from_a_file_that_is_not_json(tmp_path, cli, command):
    """The same characters in a .txt file are text; a .json file that is no JSON at all is text too."""
    for name, text in (("five.txt", "5"), ("null.txt", "null"), ("transcript.json", ONE_RUN)):
        path = _write(tmp_path, name, text)
        rc, _, err = cli(*_argv(command, path, tmp_path))
        assert rc == 0 and err.startswith(f"read {path} as Harmony text"), err


@pytest.mark.parametrize("value", [None, 5, "x", True, {"foo": 1}])
def test_in_memory_values_of_no_known_shape_are_refused(value):
    from harmony_viz.inputs import InputError, read

    if isinstance(value, str):
        assert read(value).kind == "text"  # text in memory is Harmony text
        return
    with pytest.raises(InputError):
        read(value).stream()


# ---- 3. flags are checked whenever given ---------------------------------------------------------


def _bad_tools(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    folder = tmp_path / "tools-folder"
    folder.mkdir(exist_ok=True)
    binary = _write(tmp_path, "tools.bin", b"\xff\xfe[]")
    return {"missing": (tmp_path / "nonexistent.json", "no such file"), "folder": (folder, "is a folder"), "not-utf8": (binary, "not UTF-8")}


TOOLS_COMMANDS = [["parse"], *(["parse", "--output", o] for o in ("events", "chat", "responses-stream")), ["lint"]]


@pytest.mark.parametrize("problem", ["missing", "folder", "not-utf8"])
@pytest.mark.parametrize("command", TOOLS_COMMANDS, ids=lambda c: "-".join(c).replace("--", ""))
def test_tools_must_be_readable_whatever_else_is_asked(tmp_path, cli, command, problem):
    stream = _write(tmp_path, "one.txt", ONE_RUN)
    tools, why = _bad_tools(tmp_path)[problem]
    rc, out, err = cli(command[0], str(stream), *command[1:], "--tools", str(tools))
    assert rc == 2 and out == ""
    assert err == f"harmony-viz {command[0]}: --tools {tools}: {why}" + err.split(why, 1)[1] and len(err.splitlines()) == 1, err


def _runs_files(tmp_path: Path) -> dict[str, tuple[Path, int]]:
    two = "\n".join(json.dumps({"id": f"r{i}", "text": ONE_RUN}) for i in range(2)) + "\n"
    return {
        "text": (_write(tmp_path, "one.txt", ONE_RUN), 1),
        "ids": (_write(tmp_path, "ids.json", "[200006, 173781, 200008, 12194, 200007]"), 1),
        "empty": (_write(tmp_path, "empty.txt", ""), 1),
        "jsonl": (_write(tmp_path, "two.jsonl", two), 2),
    }


@pytest.mark.parametrize("kind", ["text", "ids", "empty", "jsonl"])
@pytest.mark.parametrize("command", ["parse", "lint", "html"])
def test_run_beyond_the_inputs_runs_is_refused_naming_how_many(tmp_path, cli, command, kind):
    path, n = _runs_files(tmp_path)[kind]
    argv = _argv(command, path, tmp_path)
    for ok in (0, -1, n - 1, -n):
        rc, _, err = cli(*argv, "--run", str(ok))
        assert rc == 0, (ok, err)
    (tmp_path / "out.html").unlink(missing_ok=True)
    for bad in (n, n + 4, -n - 1):
        rc, out, err = cli(*argv, "--run", str(bad))
        assert rc == 2 and out == "", (bad, err)
        runs = "1 run: 0, or -1" if n == 1 else f"{n} runs: 0 to {n - 1}, or -{n} to -1"
        assert err == f"harmony-viz {command}: {path}: run {bad} is out of range; it holds {runs} from the end\n"
    assert not (tmp_path / "out.html").exists()


# ---- 4. html and the terminal --------------------------------------------------------------------


def _html_cli(args: list[str], *, tty: bool, cwd: Path) -> tuple[int, bytes, bytes]:
    """``harmony-viz html ARGS`` with stdout on a pseudo-terminal (or a pipe); (exit status, stdout, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    argv = [sys.executable, "-m", "harmony_viz", "html", *args]
    if not tty:
        done = subprocess.run(argv, capture_output=True, cwd=cwd, env=env, timeout=120)
        return done.returncode, done.stdout, done.stderr
    import pty

    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen(argv, stdout=follower, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=cwd, env=env)
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the command is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        err = proc.stderr.read() if proc.stderr else b""
        rc = proc.wait(timeout=120)
    finally:
        os.close(leader)
        if follower != -1:
            os.close(follower)
    return rc, b"".join(chunks), err


@pytest.mark.parametrize("source", ["one.txt", "empty.txt"])
def test_html_writes_no_page_to_a_terminal(tmp_path, source):
    _write(tmp_path, "one.txt", ONE_RUN)
    _write(tmp_path, "empty.txt", "")
    rc, out, err = _html_cli([source], tty=True, cwd=tmp_path)
    assert rc == 2 and b"<html" not in out
    assert err.decode().splitlines() == ["harmony-viz html: no page written: standard output is a terminal; give -o OUT.html (or -o - to print it anyway)"]
    rc, out, err = _html_cli([source, "-o", "page.html"], tty=True, cwd=tmp_path)
    assert rc == 0 and (tmp_path / "page.html").is_file() and b"<html" not in out
    rc, out, _ = _html_cli([source], tty=False, cwd=tmp_path)  # a pipe still gets the page
    assert rc == 0 and out.startswith(b"<!DOCTYPE html>")


# ---- 5. numeric flags name their range -----------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["html", "IN", "--step", "-50", "-o", "out.html"], "--step -50 is out of range: this replay has steps 0 to 8, or -9 to -1 from the end"),
        (["html", "IN", "--step", "9", "-o", "out.html"], "--step 9 is out of range: this replay has steps 0 to 8, or -9 to -1 from the end"),
        (["html", "IN", "--run", "3", "-o", "out.html"], "run 3 is out of range; it holds 1 run: 0, or -1 from the end"),
        (["parse", "IN", "--run", "-2"], "run -2 is out of range; it holds 1 run: 0, or -1 from the end"),
        (["lint", "IN", "--run", "1"], "run 1 is out of range; it holds 1 run: 0, or -1 from the end"),
        (["html", "IN", "--chunking", "every:0", "-o", "out.html"], "the size must be at least 1, got 0"),
        (["html", "IN", "--chunking", "chars:0", "-o", "out.html"], "the size must be at least 1, got 0"),
        (["html", "IN", "--chunking", "every:-1", "-o", "out.html"], "--chunking every:-1: every:N takes a whole number of 1 or more, got '-1'"),
        (["html", "IN", "--chunking", "bytes:x", "-o", "out.html"], "--chunking bytes:x: bytes:N takes a whole number of 1 or more, got 'x'"),
        (["stats", "IN", "--jobs", "0"], "argument --jobs: expected a whole number of 1 or more, got 0"),
        (["stats", "IN", "--batch-size", "0"], "argument --batch-size: expected a whole number of 1 or more, got 0"),
        (["stats", "IN", "--jobs", "two"], "argument --jobs: expected a whole number of 1 or more, got 'two'"),
    ],
)
def test_numeric_flags_name_their_range(tmp_path, cli, monkeypatch, argv, says):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "IN", ONE_RUN)
    rc, out, err = cli(*argv)
    assert rc == 2 and out == ""
    assert says in err.splitlines()[-1], err
    assert not (tmp_path / "out.html").exists()
