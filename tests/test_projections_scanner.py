"""Projections end to end on the real scanner: seed 001, corpus transcripts, the parse CLI.

The scanner's events must project exactly like the reference-built events of
``test_projections`` (openai-harmony's StreamableParser), whatever the chunking.
"""

from __future__ import annotations

import json
import re

import pytest
from test_projections import ANALYSIS, CALL_ARGS, PREAMBLE, SEED_001, encode, ntok, reference_steps  # noqa: E402

from harmony_viz.cli import main
from harmony_viz.projections import chat_completion, project_for_cli, response, usage
from harmony_viz.scanner import Scanner, assemble


def scan_steps(source, role="assistant", size=None):
    s = Scanner(role=role)
    if size is None:
        steps = [s.feed(source)]
    else:
        steps = [s.feed(source[i : i + size]) for i in range(0, len(source), size)]
    steps.append(s.flush())
    return steps


def flat(steps):
    return [e for step in steps for e in step]


@pytest.mark.parametrize("source", ["text", "tokens", "chars-of-7", "one-token-a-step"])
def test_seed_001_through_the_scanner(source):
    if source == "text":
        steps = scan_steps(SEED_001)
    elif source == "chars-of-7":
        steps = scan_steps(SEED_001, size=7)
    elif source == "tokens":
        steps = scan_steps(encode(SEED_001))
    else:
        steps = scan_steps(encode(SEED_001), size=1)
    fixed = chat_completion(flat(steps))["choices"][0]
    assert fixed["message"]["content"] == PREAMBLE
    assert fixed["message"]["reasoning_content"] == ANALYSIS
    assert fixed["message"]["tool_calls"][0]["function"] == {"name": "web_search", "arguments": CALL_ARGS}
    assert fixed["finish_reason"] == "tool_calls"
    legacy = chat_completion(flat(steps), legacy_vllm=True)["choices"][0]["message"]
    assert legacy["content"] == PREAMBLE + "\n" + CALL_ARGS
    assert [i["type"] for i in response(flat(steps))["output"]] == ["reasoning", "message", "function_call"]
    assert [i["type"] for i in response(flat(steps), legacy_vllm=True)["output"]] == ["reasoning", "reasoning", "function_call"]
    u, old = usage(flat(steps)), usage(flat(steps), legacy_vllm=True)
    assert u.reasoning_tokens == ntok(ANALYSIS)
    assert old.reasoning_tokens == ntok(ANALYSIS) + ntok(PREAMBLE) + ntok(CALL_ARGS)
    assert u.output_tokens == len(encode(SEED_001))
    chunks = project_for_cli("chat-stream", steps)
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == PREAMBLE


def _comparable(obj):
    """The API objects without usage (span units differ between the two event sources)."""
    obj = dict(obj)
    obj.pop("usage", None)
    return obj


def _aldehir_turns(corpus_dir):
    for path in sorted((corpus_dir / "aldehir_tool_calling").glob("cities_*.md")):
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"^```\n(.*?)\n```$", text, re.M | re.S):
            if block.startswith("<|start|>"):
                yield re.sub(r"(<\|(?:end|call|return)\|>)\s+(?=<\|start\|>)", r"\1", block.strip())


def test_scanner_and_reference_project_alike_on_real_transcripts(corpus_dir):
    texts = list(_aldehir_turns(corpus_dir))
    for line in (corpus_dir / "openai_gpt-oss_rft_notebook" / "rft_outputs.jsonl").open():
        texts.append(json.loads(line)["output_text"].rstrip("\n"))
    assert len(texts) >= 10
    for text in texts:
        tokens = encode(text)
        ref = reference_steps(tokens, role=None)
        for steps in (scan_steps(tokens, role=None), scan_steps(text, role=None, size=64)):
            for legacy in (False, True):
                for output in ("chat", "responses"):
                    got = project_for_cli(output, steps, legacy_vllm=legacy)
                    want = project_for_cli(output, ref, legacy_vllm=legacy)
                    assert _comparable(got) == _comparable(want), (output, legacy, text[-200:])
        assert usage(flat(scan_steps(tokens, role=None))).reasoning_tokens == usage(flat(ref)).reasoning_tokens


def test_parse_cli_prints_the_projections(capsys, tmp_path):
    f = tmp_path / "seed001.txt"
    f.write_text(SEED_001, encoding="utf-8")
    assert main(["parse", str(f), "--role", "assistant", "--output", "chat"]) == 0
    chat = json.loads(capsys.readouterr().out)
    assert chat["choices"][0]["message"]["content"] == PREAMBLE
    assert main(["parse", str(f), "--role", "assistant", "--output", "responses", "--legacy-vllm"]) == 0
    resp = json.loads(capsys.readouterr().out)
    assert [i["type"] for i in resp["output"]] == ["reasoning", "reasoning", "function_call"]
    assert resp["usage"]["output_tokens_details"]["reasoning_tokens"] == ntok(ANALYSIS) + ntok(PREAMBLE) + ntok(CALL_ARGS)
    assert main(["parse", str(f), "--role", "assistant", "--output", "responses-stream"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[-1]["type"] == "response.completed"
    assert "".join(e["delta"] for e in lines if e["type"] == "response.output_text.delta") == PREAMBLE


def _malformed_corpus(corpus_dir):
    """Real ndurner walkthroughs (several malformed: openai-harmony raises on 11) and finding-5 runs."""
    base = corpus_dir / "ndurner_gpt-oss-rt-run"
    for name in ("findings-tournament.json", "findings-rag.json"):
        yield from json.loads((base / name).read_text(encoding="utf-8"))["harmony_response_walkthroughs"][:25]
    for path in sorted((base / "finding5_runs").glob("*.json")):
        yield json.loads(path.read_text(encoding="utf-8"))["output_text"]


def _stream_text(chunks, key):
    return "".join(c["choices"][0]["delta"].get(key) or "" for c in chunks if c["choices"])


def test_projections_hold_their_invariants_on_malformed_real_streams(corpus_dir):

    seen = 0
    for text in _malformed_corpus(corpus_dir):
        steps = scan_steps(text, role=None, size=97)
        events = flat(steps)
        for legacy in (False, True):
            chat = project_for_cli("chat", steps, legacy_vllm=legacy)
            json.dumps(chat)
            message = chat["choices"][0]["message"]
            chunks = project_for_cli("chat-stream", steps, legacy_vllm=legacy)
            assert _stream_text(chunks, "content") == (message["content"] or "")
            assert (_stream_text(chunks, "reasoning_content") or None) == message["reasoning_content"]
            resp = project_for_cli("responses", steps, legacy_vllm=legacy)
            assert project_for_cli("responses-stream", steps, legacy_vllm=legacy)[-1]["response"] == resp
            args = {e.message: e.arguments for e in events if type(e).__name__ == "ToolCallEnd"}
            for call in message["tool_calls"] or []:
                assert call["function"]["arguments"] in args.values()
            finish = chat["choices"][0]["finish_reason"]
            cut_off = any(type(e).__name__ == "MessageEnd" and e.terminator == "eos" for e in events) or any(
                type(e).__name__ == "Diagnostic" and e.code == "eos-in-header" for e in events)
            assert finish == ("length" if cut_off and events and _ends_in_eos(events) else "tool_calls" if message["tool_calls"] else "stop"), finish
        # Content is exactly the visible text of the last assistant turn, worked out from the parsed messages.
        turn = []
        for m in assemble(events).messages:
            turn = turn + [m] if m.role == "assistant" else []
        visible = [m.text for m in turn if m.kind in ("final", "preamble") and m.text]
        assert (chat_completion(events)["choices"][0]["message"]["content"] or "") == "\n".join(visible)
        seen += 1
    assert seen >= 40


def _ends_in_eos(events) -> bool:
    """The stream's last message (or header) was cut off by the end of the stream."""
    for e in reversed(events):
        name = type(e).__name__
        if name == "MessageEnd":
            return e.terminator == "eos"
        if name == "Diagnostic" and e.code == "eos-in-header":
            return True
    return False
