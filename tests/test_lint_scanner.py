"""lint reports what parse reports (the scanner's diagnostics) beside its own rules, each once; --select / --ignore pick codes."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from harmony_viz._lint import lint, select
from harmony_viz.cli import main
from harmony_viz.scanner import scan

SPACED = '<|start|>assistant<|channel|> final<|message|>Hi<|return|>'
TOOL_CALL_SPACED = "<|start|>assistant<|channel|>commentary to=functions.f json<|message|>{}<|call|><|start|>assistant<|channel|> final<|message|>Hi<|return|>"


def _cli(capsys, *argv: str) -> tuple[int, dict, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def test_lint_reports_the_scanners_bad_channel(tmp_path, capsys):
    f = tmp_path / "s.txt"
    f.write_text(TOOL_CALL_SPACED)
    code, parsed, _ = _cli(capsys, "parse", str(f))
    code, linted, err = _cli(capsys, "lint", str(f))
    assert code == 0
    parse_codes = {(d["code"], d["start"], d["end"]) for d in parsed["diagnostics"]}
    lint_codes = [(d["code"], d["start"], d["end"]) for d in linted["diagnostics"]]
    assert {c for c, _, _ in parse_codes} == {"bad-channel"}  # parse keeps only the scanner's
    assert parse_codes <= set(lint_codes)
    assert len(lint_codes) == len(set(lint_codes))  # each once
    assert "bad-channel" in err and "constrain-missing" in err


def test_a_finding_both_make_is_reported_once():
    text = "<|start|>assistant<|channel|>analysis to=functions.get_weather<|message|>{}<|call|>"
    scanner = [d.code for d in scan(text).diagnostics]
    linted = [d.code for d in lint(text, role=None)]
    assert "call-on-analysis" in scanner
    assert linted.count("call-on-analysis") == 1
    assert [d.code for d in lint(text, scanner=False)].count("call-on-analysis") == 1


def test_a_prompt_awaiting_the_completion_is_no_error():
    prompt = "<|start|>system<|message|>Reasoning: low<|end|><|start|>user<|message|>hi<|end|><|start|>assistant"
    assert "eos-in-header" in [d.code for d in scan(prompt).diagnostics]
    assert "eos-in-header" not in [d.code for d in lint(prompt)]
    # a header that really breaks off is still reported
    assert "eos-in-header" in [d.code for d in lint(prompt + "<|channel|>fin")]


def test_select_and_ignore_take_codes_and_prefixes(tmp_path, capsys):
    f = tmp_path / "s.txt"
    f.write_text(TOOL_CALL_SPACED)
    _, everything, _ = _cli(capsys, "lint", str(f))
    codes = {d["code"] for d in everything["diagnostics"]}
    assert {"bad-channel", "constrain-missing"} <= codes
    _, picked, err = _cli(capsys, "lint", str(f), "--select", "bad-")
    assert {d["code"] for d in picked["diagnostics"]} == {c for c in codes if c.startswith("bad-")}
    assert "constrain-missing" not in err
    _, rest, _ = _cli(capsys, "lint", str(f), "--ignore", "bad-channel,constrain")
    assert {d["code"] for d in rest["diagnostics"]} == {c for c in codes if c != "bad-channel" and not c.startswith("constrain")}


def test_strict_fails_on_a_scanner_error(tmp_path, capsys):
    f = tmp_path / "s.txt"
    f.write_text(SPACED)
    assert _cli(capsys, "lint", str(f), "--role", "assistant")[0] == 0
    assert _cli(capsys, "lint", str(f), "--strict")[0] == 1
    assert _cli(capsys, "lint", str(f), "--strict", "--ignore", "bad-channel")[0] == 0


def test_an_unknown_code_is_one_line(tmp_path, capsys):
    f = tmp_path / "s.txt"
    f.write_text(SPACED)
    with pytest.raises(SystemExit) as exit_:
        main(["lint", str(f), "--select", "no-such-code"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "'no-such-code' is no code" in err and "Traceback" not in err


def test_select_keeps_order():
    found = lint(SPACED)
    assert select(found) == found
    assert select(found, ignore=[d.code for d in found]) == []


def _corpus_streams() -> list[str]:
    root = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "ndurner_gpt-oss-rt-run"
    texts = []
    for name in ("findings-rag.json", "findings-tournament.json"):
        texts += json.loads((root / name).read_text(encoding="utf-8"))["harmony_response_walkthroughs"]
    texts += [json.loads(p.read_text(encoding="utf-8"))["output_text"] for p in sorted((root / "finding5_runs").glob("*.json"))]
    return texts


def test_lint_holds_everything_parse_finds_on_real_transcripts():
    texts = _corpus_streams()
    assert len(texts) >= 80
    for text in texts:
        parsed = {(d.code, d.start, d.end) for d in scan(text).diagnostics}
        linted = {(d.code, d.start, d.end) for d in lint(text)}
        assert parsed <= linted


def test_lint_holds_everything_parse_finds_on_malformed_streams():
    streams = [SPACED, TOOL_CALL_SPACED, "<|start|>assistant<|channel|>analysis<|message|>think<|channel|>final<|message|>Hi<|return|>",
               "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1", "<|start|>assistant<|message|>no channel<|end|>",
               "<|start|>assistant<|channel|>final<|message|>Hi<|end|><|end|>", "<|start|>Assistant<|channel|>final<|message|>Hi<|return|>"]
    for text in streams:
        parsed = {(d.code, d.start, d.end) for d in scan(text).diagnostics}
        assert parsed, text
        assert parsed <= {(d.code, d.start, d.end) for d in lint(text)}, text
