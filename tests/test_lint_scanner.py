"""lint reports what parse reports (the scanner's diagnostics) beside its own rules, each once; --select / --ignore pick codes."""

from __future__ import annotations

import json
import re

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
    # the one finding of parse that lint leaves out: a prompt's open <|start|>assistant, with the prompt checks on
    assert "eos-in-header" not in [d.code for d in lint(prompt)]
    # a header that really breaks off is still reported
    assert [d.severity for d in lint(prompt + "<|channel|>fin") if d.code == "eos-in-header"] == ["error"]
    # and with the prompt checks off, the scanner's own
    assert [d.severity for d in lint(prompt, check_prompt=False) if d.code == "eos-in-header"] == ["error"]


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


def _spans(diags) -> set[tuple[str, int, int]]:
    return {(d.code, d.start, d.end) for d in diags}


def _awaiting(text: str, d) -> bool:
    """The prompt's closing ``<|start|>assistant``, which lint's prompt checks do not count as an open header."""
    return d.code == "eos-in-header" and d.end == len(text) and text[d.start : d.end] == "<|start|>assistant"


def _holds(text, role=None) -> None:
    """lint ⊇ parse on ``text``: every (code, span) the scanner reports, and each once."""
    parsed = _spans(d for d in scan(text, role=role).diagnostics if not (role is None and _awaiting(text, d)))
    linted = [(d.code, d.start, d.end) for d in lint(text, role=role)]
    assert parsed <= set(linted), (text[:200], parsed - set(linted))
    assert len(linted) == len(set(linted)), text[:200]


def test_lint_holds_everything_parse_finds_on_every_corpus_transcript(corpus_dir):
    """Every transcript of ../shared/corpus (ndurner, aldehir, unsloth, the rft notebook), whole and split as the server saw it."""
    from test_scanner_corpus import completions, transcripts

    texts = transcripts(corpus_dir)
    assert len(texts) >= 150
    for text in texts.values():
        _holds(text)
    for prompt, completion in completions(corpus_dir).values():
        _holds(prompt)  # ends in <|start|>assistant, no finding of a prompt
        _holds(completion, role="assistant")


def test_lint_cli_holds_everything_parse_finds_on_every_corpus_file(corpus_dir, capsys):
    """The commands themselves, on every corpus file and every run in it: lint's JSON holds parse's."""
    from harmony_viz.inputs import read_path

    files = sorted(p for p in corpus_dir.rglob("*") if p.suffix in (".json", ".jsonl", ".md") and p.name not in ("INDEX.md", "reasoning_stats.md", "files_manifest.json", "malformed_catalog.jsonl"))
    assert len(files) >= 20
    runs = 0
    for path in files:
        for n in range(len(read_path(path).runs())):
            _, parsed, _ = _cli(capsys, "parse", str(path), "--run", str(n))
            code, linted, err = _cli(capsys, "lint", str(path), "--run", str(n))
            assert code == 0 and parsed["unit"] == linted["unit"]
            spans = [(d["code"], d["start"], d["end"]) for d in linted["diagnostics"]]
            assert {(d["code"], d["start"], d["end"]) for d in parsed["diagnostics"]} <= set(spans), (path.name, n)
            assert len(spans) == len(set(spans))
            for d in parsed["diagnostics"]:  # and for people, on stderr, as PATH:LINE:COL: severity code message
                assert re.search(rf"^{re.escape(str(path))}:\d+:\d+: (?:error|warning|info) {re.escape(d['code'])} ", err, re.M), (path.name, n, d["code"])
            runs += 1
    assert runs >= 150


# Rows of malformed_catalog.jsonl whose "observed" quotes no markup (or not all of it): streams
# built from the description, one or more per row.
_DESCRIBED = {
    "llamacpp-27720": ["<|start|>assistant<|channel|>??<|message|>x<|end|>", "<|start|>assistant<|channel|>commentary 2?<|message|>x<|end|>",
                       "<|start|>assistant<|channel|>commentary?commentary?<|message|>x<|end|><|start|>assistant<|channel|>analysis<|message|>y<|end|>",
                       "<|start|>assistant<|channel|>Sure, here it is<|message|>x<|end|>"],
    "harmony-38": ["<|start|>assistant<|channel|>––commentary<|message|>Hi<|end|>"],
    "harmony-60": ["Hello<|start|>assistant<|channel|>final<|message|>Hi<|return|>",
                   "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>response<|message|>{}<|call|>"],
    "harmony-pr97": ["<|start|>assistant<|channel|>commentary<|channel|>commentary<|message|>Hi<|end|>",
                     "<|start|>assistant<|channel|>analysis<|channel|>analysis<|channel|>final<|message|>Hi<|return|>"],
    "harmony-pr114": ["<|start|>assistant<|channel|>bash<|channel|>commentary<|message|>ls<|end|>", "<|start|>final<|message|>Hi<|return|>",
                      "<|start|>assistant<|channel|>analysis<|constrain|>commentary<|message|>x<|end|>"],
    "vllm-51977": ['<|start|>assistant<|channel|>commentary to=functions.web-browsing <|constrain|>json<|message|>{"q": "x"}<|call|>'],
    "vllm-pr23167": ["<|start|>system<|message|># Valid channels: analysis, final.<|end|><|start|>user<|message|>run it<|end|>"
                     "<|start|>assistant<|channel|>commentary<|message|><code_interpreter>print(1)</code_interpreter><|end|>"],
    "macprovider-743": ['analysisWe need to answer "What is 2+2? Answer in one word." ... And nothing else.assistantfinalfour'],
    "llamacpp-25321": ['{"answer": 4}', "<|start|>assistant<|message|>{\"answer\": 4}<|return|>"],
    "cloudflare-574": ['<|start|>assistant<|channel|>final<|message|>{"name": "get_weather", "arguments": {"city": "Paris"}}<|return|>'],
    "llamacpp-pr15158": ["<|start|>assistant<|channel|>commentary to=functions.shelljson<|message|>{}<|call|>"],
    "repo_browser-hallucination": ["<|start|>assistant<|channel|>commentary to=container.exec<|message|>{}<|call|>"],
}
_QUOTED = re.compile(r"'([^']*<\|[^']*)'")
_ERROR_PREFIX = re.compile(r"^(?:Unknown role: |unexpected tokens remaining in message header: )")


def _catalog_streams(corpus_dir) -> dict[str, list[str]]:
    """The malformed streams of malformed_catalog.jsonl, by row: each markup it quotes, and the streams _DESCRIBED builds."""
    out: dict[str, list[str]] = {}
    for line in (corpus_dir / "malformed_catalog.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        observed = row["observed"]
        # the markup quoted in it; or, quoting none, the markup it is (less a closing remark in brackets)
        quoted = [_ERROR_PREFIX.sub("", q) for q in _QUOTED.findall(observed)] or ([re.sub(r"\s+\([^()]*\)$", "", observed)] if "<|" in observed else [])
        # a quote that begins after <|start|> is also read as the message it belongs to
        quoted += ["<|start|>assistant" + q for q in quoted if q.startswith(("<|channel|>", " to="))]
        quoted += ["<|start|>" + q for q in quoted if q.startswith("assistant")]
        out[row["id"]] = quoted + _DESCRIBED.get(row["id"], [])
    return out


def test_lint_holds_everything_parse_finds_on_the_malformed_catalog(corpus_dir):
    streams = _catalog_streams(corpus_dir)
    assert len(streams) >= 17 and all(streams.values()), [k for k, v in streams.items() if not v]
    assert set(_DESCRIBED) <= set(streams)  # no stale rows
    found = 0
    for row, texts in streams.items():
        for text in texts:
            for role in (None, "assistant"):
                _holds(text, role)
                found += bool(scan(text, role=role).diagnostics)
    assert found >= 40  # the streams are malformed: the scanner has plenty to say


def test_lint_holds_everything_parse_finds_on_hand_made_malformed_streams():
    streams = [SPACED, TOOL_CALL_SPACED, "<|start|>assistant<|channel|>analysis<|message|>think<|channel|>final<|message|>Hi<|return|>",
               "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1", "<|start|>assistant<|message|>no channel<|end|>",
               "<|start|>assistant<|channel|>final<|message|>Hi<|end|><|end|>", "<|start|>Assistant<|channel|>final<|message|>Hi<|return|>"]
    for text in streams:
        assert scan(text).diagnostics, text
        _holds(text)
