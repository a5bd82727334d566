"""``harmony-viz conformance`` end to end: real engines, the documented case format, known divergences, the reports CI reads."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from harmony_viz.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "conformance.md"


def _sglang_or_skip() -> None:
    import _server

    if not (ROOT / ".venv-sglang" / "bin" / "python").is_file():
        _server._unavailable("no SGLang parser venv: run scripts/install-sglang-parser.sh")


def _doc_answer_case() -> dict:
    """The answer case of docs/conformance.md, as written there: what someone who read only that page writes."""
    text = DOC.read_text()
    section = text[text.index("## Example: an answer case"):text.index("## Example: a prompt case")]
    block = re.search(r"```json\n(.*?)\n```", section, re.S)
    assert block is not None
    return json.loads(block.group(1))


@pytest.mark.server
def test_a_hand_written_case_fails_then_is_known_then_fixed(gpt_oss_server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    case = _doc_answer_case()
    suite = tmp_path / "mine.jsonl"
    # A preamble beside a call: the reference server drops it, so the case fails through Responses.
    broken = {**case, "id": "mine/preamble-then-call",
              "text": "<|channel|>commentary<|message|>Checking the weather.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary "
                      "<|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
              "request": {"messages": [{"role": "user", "content": "Weather in Paris?"}],
                          "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]}}
    broken.pop("ids", None)
    suite.write_text(json.dumps(broken) + "\n")
    run = ["conformance", "--gpt-oss", gpt_oss_server.url, "--suite", str(suite)]
    known = tmp_path / "known.jsonl"
    assert main([*run, "--write-known", str(known)]) == 1
    out = capsys.readouterr().out
    assert "FAIL mine/preamble-then-call [gpt-oss responses]: preamble-hidden" in out
    entries = [json.loads(x) for x in known.read_text().splitlines()]
    assert {(e["case"], e["api"]) for e in entries} == {("mine/preamble-then-call", "responses"), ("mine/preamble-then-call", "responses-stream")}
    assert main([*run, "--known", str(known)]) == 0
    assert "2 known" in capsys.readouterr().out
    # The engine "fixes" it: the same case id now holds a stream it answers right, and the known entries become fixed.
    suite.write_text(json.dumps({**broken, "text": "<|channel|>final<|message|>Sunny.<|return|>"}) + "\n")
    assert main([*run, "--known", str(known)]) == 1
    assert "FIXED mine/preamble-then-call [gpt-oss responses]" in capsys.readouterr().out
    assert main([*run, "--known", str(known), "--allow-fixed"]) == 0


@pytest.mark.server
def test_reports_load_in_a_standard_junit_reader_and_agree_with_the_json(gpt_oss_server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    import junitparser

    _sglang_or_skip()
    xml, js = tmp_path / "r.xml", tmp_path / "r.json"
    rc = main(["conformance", "--sglang", "--gpt-oss", gpt_oss_server.url, "--select", "header/*", "--select", "prompt/two-step",
               "--junit", str(xml), "--json", str(js)])
    assert rc == 1  # the zoo's headers fail somewhere
    report = json.loads(js.read_text())
    s = report["summary"]
    assert s["total"] == len(report["results"]) == s["passed"] + s["failed"] + s["known"] + s["fixed"] + s["not_served"] + s["errors"]
    assert {e["name"]: e["version"] for e in report["engines"]} == {"sglang": "0.5.23", "gpt-oss": "0.0.9"}
    assert all(r["engine_version"] and r["format"] == 1 and r["case"] for r in report["results"] if r["status"] != "not-served" or r["engine"] == "gpt-oss")
    parsed = junitparser.JUnitXml.fromfile(str(xml))
    cases = [c for suite in (parsed if isinstance(parsed, junitparser.JUnitXml) else [parsed]) for c in suite]
    assert len(cases) == s["total"]
    failures = [c for c in cases if any(isinstance(r, junitparser.Failure) for r in c.result)]
    skipped = [c for c in cases if any(isinstance(r, junitparser.Skipped) for r in c.result)]
    assert len(failures) == s["failed"] + s["fixed"] and len(skipped) == s["known"] + s["not_served"]
    names = {c.name for c in cases}
    assert "leading-space-channel[gpt-oss-responses]" in names and "leading-space-channel[sglang-chat]" in names
    assert {c.classname for c in cases} == {"header", "prompt"}
    failed = next(c for c in failures if c.name == "leading-space-channel[gpt-oss-responses]")
    assert "server-error" in failed.result[0].message and "[error] server-error" in failed.result[0].text


def test_a_case_that_breaks_the_format_is_exit_2_with_its_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = tmp_path / "bad.jsonl"
    suite.write_text(json.dumps(_doc_answer_case()) + "\n" + '{"format": 1, "id": "x/y", "kind": "answer"}\n')
    assert main(["conformance", "--sglang", "--suite", str(suite)]) == 2
    err = capsys.readouterr().err
    assert f"{suite}:2:" in err and len(err.strip().splitlines()) == 1


def test_a_known_file_that_cannot_be_read_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    known = tmp_path / "known.jsonl"
    known.write_text('{"case": "a/b", "engine": "sglang", "api": "chat", "codes": ["text-dropped"]}\nnot json\n')
    assert main(["conformance", "--sglang", "--known", str(known)]) == 2
    assert f"{known}:2: not JSON" in capsys.readouterr().err


def test_an_engine_is_needed_and_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance"]) == 2
    assert "name at least one engine: --vllm URL, --llama-cpp URL, --sglang, --gpt-oss URL" in capsys.readouterr().err
    # An engine that cannot be asked: every result is `error`, said once on stderr, exit 1.
    out = tmp_path / "r.json"
    assert main(["conformance", "--gpt-oss", "http://127.0.0.1:9/v1", "--select", "clean/*", "--json", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("harmony-viz conformance: gpt-oss: could not be asked: ")
    report = json.loads(out.read_text())
    assert report["summary"]["errors"] == report["summary"]["total"] > 0


def _workflow_commands() -> list[list[str]]:
    text = (ROOT / "docs" / "conformance-workflow.yml").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("harmony-viz "):
            out.append(shlex.split(line.split(" > ")[0].rstrip("&").strip())[1:])
    return out


def test_the_ci_workflow_calls_only_commands_and_flags_this_project_ships() -> None:
    commands = _workflow_commands()
    assert [c[0] for c in commands] == ["replay-server", "conformance"]
    parser = build_parser()
    for argv in commands:
        args = parser.parse_args(argv)  # an unknown command or flag exits 2 here
        assert args.func is not None
