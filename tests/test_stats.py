"""Frames of token and character counts, checked against openai-harmony on the real transcripts."""

from __future__ import annotations

import json
import math
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from harmony_viz.data import sample_path, sample_paths
from harmony_viz.runs import Run, RunUsage, load_runs, run_usage
from harmony_viz.stats import MESSAGE_COLUMNS, analyze_runs, diagnostics_frame, messages_frame, runs_frame

KIND_OF_CHANNEL = {"analysis": "reasoning", "final": "final"}


@pytest.fixture(scope="module")
def bundled() -> list[RunUsage]:
    """Every bundled run, scanned once."""
    return analyze_runs(sample_paths(), progress=False)


@pytest.fixture(scope="module")
def rag(bundled) -> list[RunUsage]:
    """The 80 RAG findings (gpt-oss-20b, medium effort, analysis then final)."""
    return [u for u in bundled if u.run.metadata.source == "findings-rag"]


def reference_sizes(enc, ids: list[int], prompt_len: int) -> tuple[Counter, Counter, Counter]:
    """(span tokens, body tokens, body chars) of assistant messages per channel, inside the completion, by openai-harmony."""
    import openai_harmony as oh

    stops = set(enc.stop_tokens())
    parser = oh.StreamableParser(enc, None)
    span, body, chars = Counter(), Counter(), Counter()
    start = 0

    def close(end: int) -> None:
        message = parser.messages[-1]
        if message.author.role == oh.Role.ASSISTANT and end > prompt_len:
            span[message.channel] += end - max(start, prompt_len)
            chars[message.channel] += sum(len(c.text) for c in message.content)

    # Properties are read only where the state changes: each read crosses into Rust.
    state, who = parser.state, None
    for i, token in enumerate(ids):
        if state == oh.StreamState.EXPECT_START:
            start = i
        elif state == oh.StreamState.CONTENT and token not in stops and i >= prompt_len and who[0] == oh.Role.ASSISTANT:
            body[who[1]] += 1
        parser.process(token)
        new_state = parser.state
        if new_state == oh.StreamState.CONTENT and state != oh.StreamState.CONTENT:
            who = (parser.current_role, parser.current_channel)
        state = new_state
        if token in stops:
            close(i + 1)
    before = len(parser.messages)
    parser.process_eos()
    if len(parser.messages) > before:
        close(len(ids))
    return span, body, chars


def by_kind(counter: Counter) -> dict[str, int]:
    return {KIND_OF_CHANNEL[channel]: n for channel, n in counter.items()}


# ---- the "done when" figure ---------------------------------------------------------------------


def test_rag_reasoning_share_is_near_nine_tenths_of_characters(rag):
    frame = runs_frame(rag)
    assert len(frame) == 80 and frame["reasoning_share_chars"].notna().all()
    chars, tokens = frame["reasoning_share_chars"].median(), frame["reasoning_share"].median()
    # ../shared/corpus/reasoning_stats.md measured 0.89 on this set; tokens come out a little lower.
    assert 0.85 <= chars <= 0.93, chars
    assert 0.82 <= tokens <= 0.93, tokens
    print(f"RAG median reasoning share: {chars:.3f} of characters, {tokens:.3f} of tokens")


def test_rag_counts_equal_openai_harmony_per_run(rag, reference_encoding):
    for u in rag:
        ids = reference_encoding.encode(u.run.text, allowed_special="all")
        span, body, chars = reference_sizes(reference_encoding, ids, 0)
        tokens = u.output_tokens_by_kind()
        assert {k: tokens[k] for k in ("reasoning", "final")} == by_kind(span), u.run.id
        assert {k: u.output_chars_by_kind()[k] for k in ("reasoning", "final")} == by_kind(chars), u.run.id
        content = Counter()
        for m in u.messages:
            if m.output:
                content[m.kind] += m.content_tokens
        assert dict(content) == by_kind(body), u.run.id
        row = u.to_json()
        assert row["reasoning_share_chars"] == chars["analysis"] / (chars["analysis"] + chars["final"])


@pytest.mark.parametrize("name", ["finding5_runs/helpful-1.json", "finding5_runs/helpful-47.json"])
def test_prompt_completion_counts_only_the_completion(name, reference_encoding):
    (run,) = load_runs(sample_path(name))
    u = run_usage(run)
    span, body, _ = reference_sizes(reference_encoding, [*run.prompt_token_ids, *run.completion_token_ids], len(run.prompt_token_ids))
    tokens = u.output_tokens_by_kind()
    assert {k: v for k, v in tokens.items() if v} == by_kind(span)
    # A clean completion is all assistant messages: their spans add up to its length.
    assert sum(tokens.values()) == len(run.completion_token_ids) == u.completion_tokens
    assert u.prompt_tokens == len(run.prompt_token_ids)


def test_tool_calling_turns_count_each_call(bundled):
    turns = [u for u in bundled if u.run.metadata.source and u.run.metadata.source.startswith("tool-calling")]
    assert turns
    from harmony_viz.tokens import encoding

    total_calls = 0
    for u in turns:
        completion = encoding().decode(list(u.run.completion_token_ids))
        # Count headers addressed to the tool (the analysis text may mention the recipient too).
        headers = re.findall(r"<\|start\|>(.*?)<\|message\|>", completion)
        calls = [m for m in u.messages if m.output and m.kind == "tool_call"]
        assert len(calls) == sum("to=functions.get_weather" in h for h in headers), u.run.id
        total_calls += len(calls)
        assert all(m.recipient == "functions.get_weather" for m in calls)
        assert sum(m.tokens for m in u.messages if m.output) == u.completion_tokens, u.run.id
    assert total_calls >= 10


# ---- frames ---------------------------------------------------------------------------------------


def test_runs_frame_has_one_row_per_run_in_input_order(bundled):
    frame = runs_frame(bundled)
    assert frame["run"].tolist() == [u.run.id for u in bundled]
    for column in ("output_tokens", "reasoning_tokens", "preamble_tokens", "tool_call_tokens", "final_tokens", "reasoning_share",
                   "preamble_share", "tool_call_share", "diagnostics", "reasoning_effort", "source", "model"):  # fmt: skip
        assert column in frame.columns, column
    kinds = frame[["reasoning_tokens", "preamble_tokens", "tool_call_tokens", "final_tokens", "tool_result_tokens", "other_tokens"]]
    assert (kinds.sum(axis=1) == frame["output_tokens"]).all()
    denominator = frame[["reasoning_tokens", "preamble_tokens", "tool_call_tokens", "final_tokens"]].sum(axis=1)
    expected = frame["reasoning_tokens"] / denominator
    assert ((frame["reasoning_share"] - expected).abs() < 1e-12).all()
    assert set(frame.loc[frame["source"] == "tool-calling cot=false", "cot"]) == {False}


def test_reasoning_share_is_null_when_nothing_counts(tmp_path):
    runs = [
        Run(id="user-only", text="<|start|>user<|message|>Hello<|end|>"),
        Run(id="empty", text=""),
        Run(id="answer", text="<|start|>assistant<|channel|>final<|message|>Hi there<|return|>"),
    ]
    frame = runs_frame(runs)
    assert frame["reasoning_share"].isna().tolist() == [True, True, False]
    assert frame.loc[2, "reasoning_share"] == 0.0 and frame.loc[2, "final_tokens"] > 0
    assert [u.to_json()["reasoning_share"] for u in analyze_runs(runs)] == [None, None, 0.0]
    assert json.loads(json.dumps([u.to_json() for u in analyze_runs(runs)]))[0]["reasoning_share"] is None


def test_messages_frame_rows_and_columns(rag):
    frame = messages_frame(rag[:3])
    assert tuple(frame.columns) == MESSAGE_COLUMNS
    first = frame[frame["run"] == "findings-rag#0"]
    assert first["role"].tolist() == ["system", "developer", "user", "assistant", "assistant"]
    assert first["kind"].tolist()[-2:] == ["reasoning", "final"]
    assert first["output"].tolist() == [False, False, False, True, True]
    text = rag[0].run.text
    final_body = text.rsplit("<|channel|>final<|message|>", 1)[1]
    assert first["chars"].iloc[-1] == len(final_body)


def test_malformed_tournament_transcripts_load_with_their_diagnostics(bundled):
    tournament = [u for u in bundled if u.run.metadata.source == "findings-tournament"]
    assert len(tournament) == 22
    raw = json.loads(sample_path("findings-tournament.json").read_text())["harmony_response_walkthroughs"]
    # "final <|constrain|>{...}" with no <|message|>: the scanner reports it, the run still counts.
    broken = [i for i, text in enumerate(raw) if "<|constrain|>{" in text]
    assert broken
    for i in broken:
        codes = {d.code for d in tournament[i].diagnostics}
        assert "missing-message" in codes, (i, codes)
        assert tournament[i].to_json()["errors"] >= 1 and tournament[i].to_json()["output_tokens"] > 0
    frame = diagnostics_frame(tournament)
    assert set(frame["where"]) == {"text"} and len(frame) == sum(len(u.diagnostics) for u in tournament)


def test_messages_frame_carries_message_diagnostics(bundled):
    tournament = [u for u in bundled if u.run.metadata.source == "findings-tournament"]
    frame = messages_frame(tournament)
    flagged = frame[frame["diagnostic_codes"].str.contains("missing-message")]
    assert len(flagged) >= 1 and (flagged["diagnostics"] >= 1).all()
    assert (frame["diagnostics"] == frame["diagnostic_codes"].map(lambda s: len(s.split(",")) if s else 0)).all()


def test_load_diagnostics_show_in_the_frames(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text('{oops\n{"id": "fine", "text": "<|start|>assistant<|channel|>final<|message|>ok<|end|>"}\n')
    usages = analyze_runs(path)
    frame = runs_frame(usages)
    assert frame["run"].tolist() == ["mixed#line-1", "fine"]
    assert frame["diagnostics"].tolist() == [1, 0] and frame.loc[0, "diagnostic_codes"] == "load.bad-json"
    assert math.isnan(frame.loc[0, "reasoning_share"])
    diagnostics = diagnostics_frame(usages)
    assert diagnostics[["run", "code", "where"]].values.tolist() == [["mixed#line-1", "load.bad-json", "load"]]


def test_completion_diagnostics_are_told_apart_from_prompt_ones():
    (run,) = load_runs(sample_path("finding5_runs/cyberthreat-17.json"))
    frame = diagnostics_frame([run])
    where = dict(zip(frame["code"], frame["where"]))
    # The history has assistant turns with no channel (prompt); the stripped <|call|> is in the completion.
    assert where["missing-channel"] == "prompt" and where["call-cut-off"] == "completion"


def test_analyze_accepts_paths_runs_and_usages_and_keeps_order(rag):
    path = sample_path("finding5_runs/helpful-47.json")
    mixed = analyze_runs([rag[1], path, rag[0].run])
    assert [u.run.id for u in mixed] == ["findings-rag#1", "helpful-47", "findings-rag#0"]
    assert mixed[0] is rag[1]
    with pytest.raises(TypeError, match="cannot read runs from a int; pass paths, Run or RunUsage objects"):
        analyze_runs([3])


def test_statistics_median_matches_the_frame(rag):
    rows = [u.to_json() for u in rag]
    assert statistics.median(r["reasoning_share"] for r in rows) == runs_frame(rag)["reasoning_share"].median()


# ---- light imports ----------------------------------------------------------------------------------


def test_runs_stats_and_charts_import_without_pandas_or_plotly():
    code = (
        "import sys, harmony_viz, harmony_viz.runs, harmony_viz.stats, harmony_viz.charts, harmony_viz.data\n"
        "harmony_viz.load_runs, harmony_viz.runs_frame, harmony_viz.token_shares\n"
        "print(sorted(m for m in ('pandas', 'plotly', 'tqdm') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parent)
    assert out.stdout.strip() == "[]"


def test_progress_bars_go_to_stderr_when_asked(capsys):
    usages = analyze_runs(sample_path("findings-rag.json"), progress=True)
    err = capsys.readouterr().err
    assert len(usages) == 80 and "scanning runs" in err and "80/80" in err
    analyze_runs(sample_path("findings-rag.json"), progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("module", ["harmony_viz.runs", "harmony_viz.stats", "harmony_viz.charts", "harmony_viz.data"])
def test_docstring_examples_show_real_output(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_every_corpus_file_loads_and_scans_without_raising(corpus_dir):
    paths = sorted(p for p in corpus_dir.rglob("*") if p.is_file())
    runs = load_runs(paths, progress=False)
    usages = analyze_runs(runs, progress=False)
    frame = runs_frame(usages)
    assert len(frame) == len(runs) >= len(paths)
    by_path = {u.run.metadata.extra.get("path") for u in usages}
    assert {str(p) for p in paths} <= by_path  # every file gave at least one run
    zipped = next(u for u in usages if u.run.metadata.extra["path"].endswith(".zip"))
    assert [d.code for d in zipped.diagnostics] == ["load.not-utf8"]
