"""``harmony-viz lint``: exact output and exit codes."""

from __future__ import annotations

import io
import json
import sys

import pytest

from harmony_viz.cli import main

oh = pytest.importorskip("openai_harmony")

CALL = "<|channel|>commentary to=functions.get_wether <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
UNDECLARED = {
    "code": "undeclared-tool",
    "severity": "error",
    "message": "call to undeclared tool 'functions.get_wether'; did you mean functions.get_weather? declared: functions.get_weather",
    "start": 0,
    "end": CALL.index("{"),  # the whole header, up to and including <|message|>
}


@pytest.fixture
def files(tmp_path):
    """A bare completion calling a misspelt tool, and the tools file that declares the right one."""
    (tmp_path / "completion.txt").write_text(CALL)
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "clean.txt").write_text(CALL.replace("get_wether", "get_weather"))
    return tmp_path


def test_lint_prints_diagnostics_and_exits_0(files, capsys):
    assert main(["lint", str(files / "completion.txt"), "--role", "assistant", "--tools", str(files / "tools.json")]) == 0
    out = capsys.readouterr()
    assert out.out == json.dumps({"diagnostics": [UNDECLARED], "unit": "chars"}) + "\n"
    path = files / "completion.txt"
    assert out.err.splitlines() == [
        f"read {path} as Harmony text",
        f"{path}:1:1: error undeclared-tool {UNDECLARED['message']}",
        "  " + CALL,
        "  ^" + "~" * (UNDECLARED["end"] - 1),
    ]


def test_strict_exits_1_on_findings_and_0_when_clean(files, capsys):
    args = ["--role", "assistant", "--tools", str(files / "tools.json"), "--strict"]
    assert main(["lint", str(files / "completion.txt"), *args]) == 1
    assert main(["lint", str(files / "clean.txt"), *args]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == '{"diagnostics": [], "unit": "chars"}'


def test_strict_ignores_info(files, capsys):
    (files / "info.txt").write_text(CALL.replace("get_wether", "get_weather").replace('"Paris"}', '"Paris", "extra": 1}'))
    assert main(["lint", str(files / "info.txt"), "--role", "assistant", "--tools", str(files / "tools.json"), "--strict"]) == 0
    (d,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert (d["code"], d["severity"]) == ("unknown-argument", "info")


def test_stdin_and_token_ids(files, capsys, monkeypatch, enc):
    ids = enc.encode("<|start|>assistant" + CALL, allowed_special="all")
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(ids)))
    assert main(["lint", "-", "--tools", str(files / "tools.json")]) == 0
    (d,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert d["code"] == "undeclared-tool"
    assert enc.decode(ids[d["start"] : d["end"]]) == "<|start|>assistant<|channel|>commentary to=functions.get_wether <|constrain|>json<|message|>"


def test_conversation_json_is_rendered_and_its_tools_used(tmp_path, capsys):
    params = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    conv = oh.Conversation.from_messages(
        [
            oh.Message.from_role_and_content(oh.Role.SYSTEM, oh.SystemContent.new()),
            oh.Message.from_role_and_content(oh.Role.DEVELOPER, oh.DeveloperContent.new().with_function_tools([oh.ToolDescription.new("count", "Counts.", parameters=params)])),
            oh.Message.from_role_and_content(oh.Role.USER, "count to 2.5"),
            oh.Message.from_role_and_content(oh.Role.ASSISTANT, '{"n": 2.5}').with_channel("commentary").with_recipient("functions.count").with_content_type("<|constrain|>json"),
        ]
    )
    path = tmp_path / "conv.json"
    path.write_text(conv.to_json())
    assert main(["lint", str(path)]) == 0
    # the schema from JSON is exact: integer, which the rendered TypeScript would call number
    assert [(d["code"], d["message"]) for d in json.loads(capsys.readouterr().out)["diagnostics"]] == [
        ("schema-violation", "$.n in the call to functions.count: 2.5 is not of type \"integer\"")
    ]


@pytest.mark.parametrize(
    ("argv", "err"),
    [
        (["lint", "nope.txt"], "harmony-viz lint: nope.txt: no such file\n"),
        (["lint", "{f}/completion.txt", "--tools", "{f}/missing.json"], "harmony-viz lint: --tools {f}/missing.json: no such file; expected an OpenAI tools array (JSON)\n"),
        (["lint", "{f}/completion.txt", "--tools", "{f}/completion.txt"], "harmony-viz lint: --tools {f}/completion.txt: not JSON (Expecting value, line 1 column 1); expected an OpenAI tools array\n"),
        (["lint", "{f}/completion.txt", "--tools", "{f}/bad_tools.json"], "harmony-viz lint: --tools {f}/bad_tools.json: tools[0] has no function name; expected {{\"type\": \"function\", \"function\": {{\"name\": …}}}}\n"),
        (["lint", "{f}/floats.json"], "harmony-viz lint: {f}/floats.json: token 0 is 1.5, not an integer id (ids are ints 0..201087)\n"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(files, capsys, argv, err):
    (files / "bad_tools.json").write_text('[{"type": "function"}]')
    (files / "floats.json").write_text("[1.5, 2]")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(files)
        assert main([a.format(f=files) for a in argv]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == err.format(f=files)


SPACED_CALL = "<|start|>assistant<|channel|>commentary to=functions.f json<|message|>{}<|call|><|start|>assistant<|channel|> final<|message|>Hi<|return|>"


def test_the_scanners_finding_is_printed_as_the_rules_are(tmp_path, capsys):
    """Issue 25: parse says bad-channel for `<|channel|> final`; lint says it too, in the same JSON and the same stderr lines."""
    path = tmp_path / "out.txt"
    path.write_text(SPACED_CALL)
    assert main(["parse", str(path)]) == 0
    parsed = capsys.readouterr()
    assert main(["lint", str(path)]) == 0
    linted = capsys.readouterr()
    (bad,) = json.loads(parsed.out)["diagnostics"]
    assert bad["code"] == "bad-channel" and bad["severity"] == "error"
    found = json.loads(linted.out)["diagnostics"]
    assert [d["code"] for d in found] == ["constrain-missing", "bad-channel"] and found[1] == bad
    assert SPACED_CALL[bad["start"] : bad["end"]] == "<|channel|> final"
    col = bad["start"] + 1  # one line of text: the column is the character offset, from 1
    line = f"{path}:1:{col}: error bad-channel {bad['message']}"
    assert line in parsed.err.splitlines() and line in linted.err.splitlines()
    assert f"{path}:1:1: warning constrain-missing " in linted.err


def _docs_lint_examples() -> list[list[str]]:
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "scan-and-lint.md").read_text(encoding="utf-8")
    section = page.split("\n## Lint: the dialect's rules and the prompt's\n", 1)[1].split("\n### ", 1)[0]
    return [line.split("#", 1)[0].split()[3:] for line in section.splitlines() if line.startswith("    harmony-viz lint out.txt ")]


def test_the_docs_lint_flags_do_what_they_say(tmp_path, capsys):
    examples = _docs_lint_examples()
    assert {flag for argv in examples for flag in argv if flag.startswith("--")} == {"--strict", "--select", "--ignore"}
    path = tmp_path / "out.txt"
    path.write_text(SPACED_CALL)
    got = {}
    for argv in examples:
        code = main(["lint", str(path), *argv])
        got[" ".join(argv)] = (code, [d["code"] for d in json.loads(capsys.readouterr().out)["diagnostics"]])
    assert got == {
        "--strict": (1, ["constrain-missing", "bad-channel"]),
        "--select bad-,tools": (0, ["bad-channel"]),
        "--ignore constrain-missing,stale": (0, ["bad-channel"]),
        "--select bad- --ignore bad-role": (0, ["bad-channel"]),
    }
    # --strict on what is left: an error the scanner found fails it; leaving it out passes
    assert main(["lint", str(path), "--strict", "--select", "bad-"]) == 1
    assert main(["lint", str(path), "--strict", "--ignore", "bad-,constrain-"]) == 0
    capsys.readouterr()
    # a name that is no code and starts none is a usage error
    with pytest.raises(SystemExit) as exit_:
        main(["lint", str(path), "--ignore", "bad-,nonsense"])
    assert exit_.value.code == 2 and "'nonsense' is no code" in capsys.readouterr().err


def test_the_python_api_reports_the_scanners_too():
    import harmony_viz as hv

    codes = [d.code for d in hv.lint(SPACED_CALL)]
    assert codes == ["constrain-missing", "bad-channel"]
    assert [d.code for d in hv.lint(SPACED_CALL, scanner=False)] == ["constrain-missing"]
