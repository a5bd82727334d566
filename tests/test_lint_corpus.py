"""The rules on real gpt-oss transcripts from ../shared/corpus, each with a clean control."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harmony_viz._lint import lint

TOOLS = [{"type": "function", "function": {"name": "report_back_to_reception", "parameters": {"type": "object", "properties": {"msg": {"type": "string"}}, "required": ["msg"]}}}]


def _run(corpus_dir: Path, name: str) -> dict:
    return json.loads((corpus_dir / "ndurner_gpt-oss-rt-run" / "finding5_runs" / f"{name}.json").read_text())


def aldehir_turns(path: Path) -> list[str]:
    """Each turn's raw prompt + completion; the notebook joined messages with blank lines for display."""
    blocks = re.findall(r"### Turn \d+\n\n```\n(.*?)\n```", path.read_text(), re.S)
    return [re.sub(r"(<\|(?:end|call|return)\|>)\n\n(?=<\|start\|>)", r"\1", b) for b in blocks]


@pytest.mark.parametrize("name", ["cyberthreat-17", "cyberthreat-58", "cyberthreat-72", "cyberthreat-73"])
def test_undeclared_report_back_to_reception(corpus_dir, name):
    run = _run(corpus_dir, name)
    text = run["output_text"]
    (d,) = [d for d in lint(text) if d.code == "undeclared-tool"]
    assert d.severity == "error"
    assert d.message == "call to undeclared tool 'report_back_to_reception': the prompt declares no function tools (a developer message with 'namespace functions { … }')"
    assert text[d.start : d.end] == "<|start|>assistant<|channel|>commentary to=report_back_to_reception <|constrain|>json<|message|>"
    # declared (as the user message describes it), the call still lacks the namespace
    (d,) = [d for d in lint(text, tools=TOOLS) if d.code == "undeclared-tool"]
    assert d.message == "call to 'report_back_to_reception': the declared tool is functions.report_back_to_reception; write to=functions.report_back_to_reception"
    # the server stripped <|call|>
    assert [d.message for d in lint(run["completion_text"], role="assistant") if d.code == "stop-token"] == [
        "the completion's last message (1) should end in <|call|>; the stream ends without a stop token (stripped by the server, or cut off at the token limit)"
    ]


@pytest.mark.parametrize("name", ["cyberthreat-24", "cyberthreat-29", "cyberthreat-33"])
def test_analysis_text_on_bare_commentary(corpus_dir, name):
    completion = _run(corpus_dir, name)["completion_text"]
    (d,) = [d for d in lint(completion, role="assistant") if d.code == "reasoning-on-commentary"]
    assert d.severity == "warning"
    body = completion[d.start : d.end]
    assert body.startswith(("We must refuse", "The user wants"))
    assert completion[d.end :].startswith("<|end|><|start|>assistant<|channel|>final<|message|>")


@pytest.mark.parametrize("name", ["helpful-1", "helpful-47", "helpful-53", "cyberthreat-1"])
def test_clean_refusals_only_lack_the_stripped_stop_token(corpus_dir, name):
    completion = _run(corpus_dir, name)["completion_text"]
    # the scanner's eos-in-message (info) beside the rule's stop-token: lint reports what parse does too
    assert [d.code for d in lint(completion, role="assistant")] == ["stop-token", "eos-in-message"]


def test_chain_of_thought_dropped_between_calls(corpus_dir):
    turns = aldehir_turns(corpus_dir / "aldehir_tool_calling" / "cities_10_cot_false_trial-2.md")
    # turn 2's prompt: the first call and its result, with the analysis before the call dropped
    diags = lint(turns[1])
    # llama.cpp rendered the history through the gpt-oss chat template, which writes `json`
    # without <|constrain|> on every call
    assert [(d.code, d.severity) for d in diags] == [("constrain-missing", "warning"), ("dropped-analysis", "warning")]
    assert turns[1][diags[1].start : diags[1].end] == "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>"
    assert (diags[0].start, diags[0].end) == (diags[1].start, diags[1].end)
    # one more dropped analysis per completed call
    assert [len([d for d in lint(t) if d.code == "dropped-analysis"]) for t in turns] == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("trial", ["cities_15_cot_true_trial-0.md", "cities_3_cot_true_trial-1.md", "cities_1_cot_true_trial-18.md"])
def test_chain_of_thought_kept_is_clean(corpus_dir, trial):
    for k, turn in enumerate(aldehir_turns(corpus_dir / "aldehir_tool_calling" / trial)):
        # the only finding: the template's `json` without <|constrain|>, once per call in the history
        diags = lint(turn)
        assert [d.code for d in diags] == ["constrain-missing"] * turn.count(" json<|message|>"), f"turn {k + 1}"
        assert all(turn[d.start : d.end].endswith("<|channel|>commentary json<|message|>") for d in diags)


def test_no_errors_on_the_well_formed_rag_transcripts(corpus_dir):
    walkthroughs = json.loads((corpus_dir / "ndurner_gpt-oss-rt-run" / "findings-rag.json").read_text())["harmony_response_walkthroughs"]
    assert len(walkthroughs) == 80
    codes = set()
    for text in walkthroughs:
        diags = lint(text)
        assert [d for d in diags if d.severity == "error"] == []
        codes.update(d.code for d in diags)
    assert codes == {"stop-token", "eos-in-message"}  # vLLM stripped <|return|>; nothing else


def test_announcement_heuristic_is_quiet_on_every_real_final(corpus_dir):
    texts = json.loads((corpus_dir / "ndurner_gpt-oss-rt-run" / "findings-tournament.json").read_text())["harmony_response_walkthroughs"]
    texts += json.loads((corpus_dir / "ndurner_gpt-oss-rt-run" / "findings-rag.json").read_text())["harmony_response_walkthroughs"]
    texts += [json.loads(p.read_text())["output_text"] for p in sorted((corpus_dir / "ndurner_gpt-oss-rt-run" / "finding5_runs").glob("*.json"))]
    assert len(texts) > 100
    assert [d for text in texts for d in lint(text) if d.code == "announced-no-call"] == []


def corpus_transcripts(corpus_dir: Path) -> list[tuple[str, str]]:
    """(name, text) of every transcript in the corpus (see its INDEX.md): walkthroughs, runs, trial turns, notebook outputs."""
    rt = corpus_dir / "ndurner_gpt-oss-rt-run"
    out: list[tuple[str, str]] = []
    for file in ("findings-tournament.json", "findings-rag.json"):
        for k, text in enumerate(json.loads((rt / file).read_text())["harmony_response_walkthroughs"]):
            out.append((f"{file}[{k}]", text))
    for path in sorted((rt / "finding5_runs").glob("*.json")):
        out.append((path.name, json.loads(path.read_text())["output_text"]))
    for path in sorted((corpus_dir / "aldehir_tool_calling").glob("*.md")):
        out.extend((f"{path.name} turn {k}", turn) for k, turn in enumerate(aldehir_turns(path)))
    for path in (corpus_dir / "unsloth_notebook_outputs" / "unsloth_gpt-oss_outputs.jsonl", corpus_dir / "openai_gpt-oss_rft_notebook" / "rft_outputs.jsonl"):
        for k, line in enumerate(path.read_text().splitlines()):
            out.append((f"{path.name}[{k}]", json.loads(line)["output_text"]))
    return out


def test_every_transcript_reads_its_declared_tools(corpus_dir):
    """Issue 25: no transcript's namespaces are unreadable, and no call to a tool its prompt declares is 'undeclared'."""
    from harmony_viz._lint import declared_tools

    transcripts = corpus_transcripts(corpus_dir)
    assert len(transcripts) > 100
    bad = []
    for name, text in transcripts:
        declared = {t.recipient for t in declared_tools(text)}
        for d in lint(text):
            called = re.search(r"'([^']+)'", d.message)
            if d.code == "tools-unreadable" or (d.code == "undeclared-tool" and called and called.group(1) in declared):
                bad.append((name, d.code, d.message))
    assert bad == []
