"""``harmony-viz parse``: exact output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harmony_viz.tokens import encode

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", ["scan_role_section_call", "scan_missing_message"])
def test_parse_messages_golden(name, cli):
    path = str(GOLDEN / f"{name}.txt")
    rc, out, err = cli("parse", path)
    assert rc == 0 and err.startswith(f"read {path} as Harmony text\n")
    assert out == (GOLDEN / f"{name}.json").read_text(encoding="utf-8")


def test_parse_events_from_ids_on_stdin(cli):
    rc, out, err = cli("parse", "-", "--output", "events", stdin="[200006, 173781, 200005, 17196, 200008, 12194, 200002]")
    assert (rc, err) == (0, "read standard input as token ids\n")
    assert out.splitlines() == [
        '{"type": "message_start", "message": 0, "role": "assistant", "name": null, "recipient": null, "channel": "final", "content_type": null, "kind": "final", "start": 0, "end": 5, "unit": "tokens"}',
        '{"type": "content_delta", "message": 0, "kind": "final", "text": "Hi", "start": 5, "end": 6, "unit": "tokens"}',
        '{"type": "message_end", "message": 0, "terminator": "<|return|>", "start": 6, "end": 7, "unit": "tokens"}',
    ]


def test_parse_completion_role(cli):
    rc, out, _ = cli("parse", "-", "--role", "assistant", stdin="<|channel|>final<|message|>4<|return|>")
    assert rc == 0
    assert out == '{"messages": [{"role": "assistant", "name": null, "content": [{"type": "text", "text": "4"}], "channel": "final"}], "diagnostics": [], "unit": "chars"}\n'


def test_parse_empty_input_is_valid(cli):
    assert cli("parse", "-", stdin="") == (0, '{"messages": [], "diagnostics": [], "unit": "chars"}\n', "read standard input as Harmony text (empty)\n")


def test_chunk_seed_does_not_change_messages(corpus_dir, tmp_path, enc, cli):
    text = json.loads((corpus_dir / "ndurner_gpt-oss-rt-run" / "findings-tournament.json").read_text(encoding="utf-8"))["harmony_response_walkthroughs"][1]
    src = tmp_path / "t.txt"
    src.write_text(text, encoding="utf-8")
    ids = tmp_path / "t.json"
    ids.write_text(json.dumps(enc.encode(text, allowed_special="all")), encoding="utf-8")
    whole = cli("parse", str(src))
    assert whole[0] == 0 and '"code": "missing-message"' in whole[1]
    for seed in ("1", "2", "3"):
        assert cli("parse", str(src), "--chunk-seed", seed) == whole
    whole_ids = cli("parse", str(ids))
    assert json.loads(whole_ids[1])["messages"] == json.loads(whole[1])["messages"]
    assert cli("parse", str(ids), "--chunk-seed", "5") == whole_ids


def test_strict_exits_1_on_errors(cli):
    assert cli("parse", "-", "--strict", stdin="<|end|>")[0] == 1
    assert cli("parse", "-", "--strict", stdin="<|start|>user<|message|>x<|end|>")[0] == 0
    assert cli("parse", "-", stdin="<|end|>")[0] == 0


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("[200006, 300000]", "harmony-viz parse: standard input: token 1 is 300000, outside the o200k_harmony vocabulary 0..201087\n"),
        ("[-3]", "harmony-viz parse: standard input: token 0 is -3, outside the o200k_harmony vocabulary 0..201087\n"),
        ('[1, "two"]', "harmony-viz parse: standard input: token 1 is 'two', not an integer id (ids are ints 0..201087)\n"),
    ],
)
def test_bad_ids_exit_2_with_one_line(stdin, message, cli):
    assert cli("parse", "-", stdin=stdin) == (2, "", message)


def test_binary_and_missing_files_exit_2(tmp_path, cli):
    binary = tmp_path / "x.bin"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    assert cli("parse", str(binary)) == (2, "", f"harmony-viz parse: {binary}: not UTF-8 text (byte 0)\n")
    assert cli("parse", str(tmp_path / "nope.txt")) == (2, "", f"harmony-viz parse: {tmp_path / 'nope.txt'}: no such file\n")


@pytest.mark.parametrize("output", ["chat", "chat-stream", "responses", "responses-stream"])
def test_projection_outputs_print_what_projections_return(output, cli):
    projections = pytest.importorskip("harmony_viz.projections")
    from harmony_viz.scanner import Scanner

    text = "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi<|return|>"
    rc, out, err = cli("parse", "-", "--role", "assistant", "--output", output, stdin=text)
    assert (rc, err) == (0, "read standard input as Harmony text\n")
    scanner = Scanner(role="assistant")
    ids = encode(text)  # a projection scans the ids: its usage counts tokens
    expected = projections.project_for_cli(output, [scanner.feed(ids), scanner.flush()], legacy_vllm=False)
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines == (expected if output.endswith("-stream") else [expected])
