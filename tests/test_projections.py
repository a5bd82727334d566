"""Chat Completions / Responses projections, correct vs legacy vLLM (seed 001).

Events come from a stand-in scanner built on openai-harmony's StreamableParser (the
reference), fed one token at a time, so spans are real token indices and the expected
values come from the reference's parsed messages, not from the code under test.
"""

from __future__ import annotations

import json
import re

import openai_harmony as oh
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harmony_viz.projections import (
    OUTPUTS,
    Projector,
    chat_completion,
    chat_completion_chunks,
    classify_recipient,
    project_for_cli,
    response,
    response_events,
    usage,
)
from harmony_viz.scanner import ContentDelta, MessageEnd, MessageStart, ToolCallEnd, ToolCallStart

# The seed-001 example (vLLM PR "Fix Harmony preamble visibility"): analysis, a preamble,
# then the web_search call, as a completion after `<|start|>assistant`.
ANALYSIS = "User wants SF weather. Search first."
PREAMBLE = "I'll search for the weather in SF."
CALL_ARGS = '{"query": "weather in SF"}'
SEED_001 = (
    f"<|channel|>analysis<|message|>{ANALYSIS}<|end|>"
    f"<|start|>assistant<|channel|>commentary<|message|>{PREAMBLE}<|end|>"
    f"<|start|>assistant to=functions.web_search<|channel|>commentary<|message|>{CALL_ARGS}<|call|>"
)

_REF = None


def ref_encoding():
    global _REF
    if _REF is None:
        _REF = oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
    return _REF


def _kind(role: str, channel: str | None, recipient: str | None) -> str:
    if role != "assistant":
        return "tool_result" if "." in role or role == "tool" else "other"
    if recipient:
        return "tool_call"
    return {"analysis": "reasoning", "commentary": "preamble", "final": "final"}.get(channel or "", "other")


def reference_steps(tokens: list[int], role: str | None = "assistant") -> list[list]:
    """Per-token event lists (plus a flush step) from openai-harmony's StreamableParser."""
    enc = ref_encoding()
    parser = oh.StreamableParser(enc, oh.Role.ASSISTANT if role == "assistant" else None)
    steps: list[list] = []
    msg = -1
    header_start = 0
    current: dict | None = None
    calls = 0
    stops = {200002, 200007, 200012}
    content = oh.StreamState.CONTENT
    state = parser.state
    for i, tok in enumerate(tokens):
        was_content = state == content
        parser.process(tok)
        # Reading parser.state / messages is slow (JSON round trips): only when it can change.
        if was_content and tok not in stops:
            state = content
        else:
            state = parser.state
        step: list = []
        if state == content and not was_content:
            msg += 1
            r = parser.current_role.value if parser.current_role else "assistant"
            rec = parser.current_recipient
            current = {"role": r, "recipient": rec, "kind": _kind(r, parser.current_channel, rec), "text": []}
            step.append(MessageStart(msg, r, None, rec, parser.current_channel, parser.current_content_type, current["kind"], header_start, i + 1))
            if rec and r == "assistant":
                name = rec[len("functions.") :] if rec.startswith("functions.") else rec
                current["call"] = f"call_{calls}"
                calls += 1
                step.append(ToolCallStart(msg, current["call"], name, None if rec.startswith("functions.") else rec.split(".")[0], rec, header_start, i + 1))
        elif state == content:
            delta = parser.last_content_delta or ""
            current["text"].append(delta)
            step.append(ContentDelta(msg, current["kind"], delta, i, i + 1))
        if was_content and state != content:
            if current.get("call"):
                args = "".join(current["text"])
                step.append(ToolCallEnd(msg, current["call"], "", args, None, None, i, i))
            step.append(MessageEnd(msg, enc.decode([tok]), i, i + 1))
            header_start = i + 1
            current = None
        steps.append(step)
    flush: list = []
    if current is not None:
        if current.get("call"):
            flush.append(ToolCallEnd(msg, current["call"], "", "".join(current["text"]), None, "cut off", len(tokens), len(tokens)))
        flush.append(MessageEnd(msg, "eos", len(tokens), len(tokens)))
    steps.append(flush)
    return steps


def encode(text: str) -> list[int]:
    return ref_encoding().encode(text, allowed_special="all")


def events_of(text: str, role: str | None = "assistant") -> list:
    return [e for step in reference_steps(encode(text), role) for e in step]


def reference_turn(tokens: list[int], role: str | None = "assistant") -> list:
    """The reference's messages of the last assistant turn (after the last non-assistant message)."""
    enc = ref_encoding()
    parser = oh.StreamableParser(enc, oh.Role.ASSISTANT if role == "assistant" else None)
    for t in tokens:
        parser.process(t)
    msgs = list(parser.messages)
    turn: list = []
    for m in msgs:
        if m.author.role != oh.Role.ASSISTANT:
            turn = []
        else:
            turn.append(m)
    return turn


def message_of(chat: dict) -> dict:
    return chat["choices"][0]["message"]


def ntok(text: str) -> int:
    return len(encode(text))


# --- Rule 1: Chat Completions, correct vs legacy (seed 001) -------------------------------


def test_seed_001_chat_fixed_shows_preamble_and_keeps_tool_json_out_of_content():
    msg = message_of(chat_completion(events_of(SEED_001)))
    assert msg["content"] == PREAMBLE
    assert msg["reasoning_content"] == ANALYSIS
    assert msg["tool_calls"] == [{"id": "call_0", "type": "function", "function": {"name": "web_search", "arguments": CALL_ARGS}}]


def test_seed_001_chat_legacy_leaks_tool_json_into_content():
    msg = message_of(chat_completion(events_of(SEED_001), legacy_vllm=True))
    assert msg["content"] == PREAMBLE + "\n" + CALL_ARGS
    assert msg["reasoning_content"] == ANALYSIS
    assert msg["tool_calls"][0]["function"]["arguments"] == CALL_ARGS


def test_arguments_are_the_raw_body_verbatim_not_reserialised():
    body = '{ "query" :  "weather in SF",\n "n": 1.50 }'
    text = f"<|channel|>commentary to=functions.web_search <|constrain|>json<|message|>{body}<|call|>"
    chat = chat_completion(events_of(text))
    assert message_of(chat)["tool_calls"][0]["function"]["arguments"] == body
    assert response(events_of(text))["output"][0]["arguments"] == body


@pytest.mark.parametrize(
    ("tail", "reason"),
    [
        ("<|start|>assistant<|channel|>final<|message|>Sunny.<|return|>", "stop"),
        ("<|start|>assistant<|channel|>final<|message|>Sunny.<|end|>", "stop"),
        ("<|start|>assistant<|channel|>final<|message|>Sunny and", "length"),
    ],
)
def test_finish_reason_by_terminator(tail, reason):
    text = f"<|channel|>analysis<|message|>{ANALYSIS}<|end|>" + tail
    chat = chat_completion(events_of(text))
    assert chat["choices"][0]["finish_reason"] == reason
    assert message_of(chat)["content"] == ("Sunny." if reason == "stop" else "Sunny and")


def test_finish_reason_tool_calls_on_call():
    assert chat_completion(events_of(SEED_001))["choices"][0]["finish_reason"] == "tool_calls"


def test_empty_stream_gives_nulls():
    chat = chat_completion([])
    assert message_of(chat) == {"role": "assistant", "content": None, "reasoning_content": None, "tool_calls": None}
    assert chat["choices"][0]["finish_reason"] == "stop"  # never null in a finished object (issue 13)
    assert response([])["output"] == []


def test_final_and_preamble_are_joined_with_newline():
    text = f"<|channel|>commentary<|message|>{PREAMBLE}<|end|><|start|>assistant<|channel|>final<|message|>Done.<|return|>"
    assert message_of(chat_completion(events_of(text)))["content"] == PREAMBLE + "\nDone."


# --- Rule 2: Responses API ----------------------------------------------------------------


def test_seed_001_responses_fixed_preamble_is_a_message():
    out = response(events_of(SEED_001))["output"]
    assert [i["type"] for i in out] == ["reasoning", "message", "function_call"]
    assert out[0]["content"] == [{"type": "reasoning_text", "text": ANALYSIS}]
    assert out[1]["content"][0] == {"type": "output_text", "text": PREAMBLE, "annotations": [], "logprobs": []}
    assert (out[2]["name"], out[2]["arguments"], out[2]["call_id"]) == ("web_search", CALL_ARGS, "call_0")


def test_seed_001_responses_legacy_preamble_is_reasoning():
    out = response(events_of(SEED_001), legacy_vllm=True)["output"]
    assert [i["type"] for i in out] == ["reasoning", "reasoning", "function_call"]
    assert out[1]["content"] == [{"type": "reasoning_text", "text": PREAMBLE}]


def _stream(text: str, legacy: bool) -> list[dict]:
    return response_events(reference_steps(encode(text)), legacy_vllm=legacy)


def test_seed_001_stream_fixed_sends_output_text_deltas_for_the_preamble():
    events = _stream(SEED_001, False)
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta" and e["output_index"] == 1)
    assert text == PREAMBLE
    types = [e["type"] for e in events]
    assert types[:2] == ["response.created", "response.in_progress"] and types[-1] == "response.completed"
    args = "".join(e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta")
    assert args == CALL_ARGS
    done = [e for e in events if e["type"] == "response.function_call_arguments.done"]
    assert done[0]["arguments"] == CALL_ARGS
    reasoning = "".join(e["delta"] for e in events if e["type"] == "response.reasoning_text.delta")
    assert reasoning == ANALYSIS
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


def test_seed_001_stream_legacy_sends_nothing_for_the_preamble():
    events = _stream(SEED_001, True)
    assert not [e for e in events if e.get("output_index") == 1]
    assert not [e for e in events if e["type"] == "response.output_text.delta"]
    final = events[-1]["response"]
    assert [i["type"] for i in final["output"]] == ["reasoning", "reasoning", "function_call"]


def test_builtins_are_never_function_calls_and_other_recipients_are_mcp():
    text = (
        '<|channel|>analysis to=browser.search<|message|>{"query": "sf weather"}<|call|>'
        '<|start|>assistant<|channel|>analysis to=python<|message|>print(1+1)<|call|>'
        '<|start|>assistant to=github.create_issue<|channel|>commentary<|message|>{"title": "x"}<|call|>'
    )
    out = response(events_of(text))["output"]
    assert [i["type"] for i in out] == ["web_search_call", "reasoning", "mcp_call"]
    assert out[0]["action"] == {"type": "search", "query": "sf weather"}
    assert out[1]["content"][0]["text"] == "print(1+1)"
    assert (out[2]["server_label"], out[2]["name"], out[2]["arguments"]) == ("github", "create_issue", '{"title": "x"}')
    # Chat Completions has no MCP items: every non-builtin call is a tool call, dots kept (as vLLM does).
    chat = chat_completion(events_of(text))
    assert [c["function"]["name"] for c in message_of(chat)["tool_calls"]] == ["github.create_issue"]
    assert chat["choices"][0]["finish_reason"] == "tool_calls"


def test_cut_off_response_is_incomplete():
    text = f"<|channel|>analysis<|message|>{ANALYSIS}<|end|><|start|>assistant<|channel|>final<|message|>It is"
    resp = response(events_of(text))
    assert resp["status"] == "incomplete"
    assert resp["incomplete_details"] == {"reason": "max_output_tokens"}
    assert resp["output"][-1]["status"] == "incomplete"
    assert _stream(text, False)[-1]["type"] == "response.incomplete"


def test_classify_recipient():
    assert classify_recipient("functions.get_weather").category == "function"
    assert classify_recipient("container.exec").category == "builtin"
    mcp = classify_recipient("dropbox.search")
    assert (mcp.category, mcp.server_label, mcp.name) == ("mcp", "dropbox", "search")


# --- Rule 3: usage --------------------------------------------------------------------------


def test_seed_001_usage_fixed_counts_only_analysis_as_reasoning():
    u = usage(events_of(SEED_001))
    assert u.unit == "tokens"
    assert u.reasoning_tokens == ntok(ANALYSIS)
    assert u.by_kind["preamble"] == ntok(PREAMBLE)
    assert u.by_kind["tool_call"] == ntok(CALL_ARGS)
    assert u.output_tokens == len(encode(SEED_001))


def test_seed_001_usage_legacy_counts_preamble_as_reasoning():
    u = usage(events_of(SEED_001), legacy_vllm=True)
    # Pre-fix vLLM counted every commentary-channel token, the call body included.
    assert u.reasoning_tokens == ntok(ANALYSIS) + ntok(PREAMBLE) + ntok(CALL_ARGS)


def test_usage_in_api_objects():
    chat = chat_completion(events_of(SEED_001))
    assert chat["usage"]["completion_tokens_details"]["reasoning_tokens"] == ntok(ANALYSIS)
    resp = response(events_of(SEED_001), legacy_vllm=True)
    assert resp["usage"]["output_tokens_details"]["reasoning_tokens"] == ntok(ANALYSIS) + ntok(PREAMBLE) + ntok(CALL_ARGS)
    assert resp["usage"]["output_tokens"] == len(encode(SEED_001))


def test_usage_from_character_spans_encodes_the_text():
    """A scanner fed text reports character spans; usage then counts tokens by encoding."""
    tokens = encode(SEED_001)
    enc = ref_encoding()
    offsets = [0]
    for t in tokens:
        offsets.append(offsets[-1] + len(enc.decode([t])))

    def to_chars(e):
        if isinstance(e, ContentDelta):
            return e._replace(start=offsets[e.start], end=offsets[e.end])
        return type(e)(**{**{f: getattr(e, f) for f in e.__slots__}, "start": offsets[e.start], "end": offsets[e.end]})

    char_events = [to_chars(e) for step in reference_steps(tokens) for e in step]
    u = usage(char_events)
    assert u.unit == "chars"
    assert u.reasoning_tokens == ntok(ANALYSIS)
    assert u.by_kind["preamble"] == ntok(PREAMBLE)


# --- Streaming Chat Completions ---------------------------------------------------------------


def _joined(chunks: list[dict], key: str) -> str | None:
    parts = [c["choices"][0]["delta"].get(key) for c in chunks if c["choices"]]
    parts = [p for p in parts if p is not None]
    return "".join(parts) if parts else None


def test_seed_001_chunks_fixed_and_legacy():
    steps = reference_steps(encode(SEED_001))
    fixed = chat_completion_chunks(steps)
    assert fixed[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert _joined(fixed, "content") == PREAMBLE
    assert fixed[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert fixed[-1]["choices"] == [] and fixed[-1]["usage"]["completion_tokens"] == len(encode(SEED_001))
    assert {c["object"] for c in fixed} == {"chat.completion.chunk"}
    legacy = chat_completion_chunks(steps, legacy_vllm=True)
    assert _joined(legacy, "content") == PREAMBLE + "\n" + CALL_ARGS


def _regroup(steps: list[list], cuts: list[int]) -> list[list]:
    body, flush = steps[:-1], steps[-1]
    out, last = [], 0
    for c in sorted(set(cuts)) + [len(body)]:
        if c > last:
            out.append([e for s in body[last:c] for e in s])
            last = c
    return out + [flush]


MULTI = (
    f"<|channel|>analysis<|message|>{ANALYSIS} Ünïcödé 天气 ok.<|end|>"
    f"<|start|>assistant<|channel|>commentary<|message|>{PREAMBLE}<|end|>"
    f'<|start|>assistant to=functions.web_search<|channel|>commentary <|constrain|>json<|message|>{CALL_ARGS}<|call|>'
    f'<|start|>assistant<|channel|>commentary to=functions.get_time<|message|>{{"tz": "PST"}}<|call|>'
)


@given(cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=30), legacy=st.booleans())
def test_any_chunking_streams_exactly_the_non_stream_fields(cuts, legacy):
    steps = _regroup(reference_steps(encode(MULTI)), cuts)
    whole = message_of(chat_completion([e for s in steps for e in s], legacy_vllm=legacy))
    chunks = chat_completion_chunks(steps, legacy_vllm=legacy)
    assert _joined(chunks, "content") == (whole["content"] or "")
    assert _joined(chunks, "reasoning_content") == whole["reasoning_content"]
    for call in whole["tool_calls"]:
        i = int(call["id"].split("_")[1])
        pieces = [tc for c in chunks if c["choices"] for tc in c["choices"][0]["delta"].get("tool_calls", []) if tc["index"] == i]
        assert "".join(tc["function"]["arguments"] for tc in pieces) == call["function"]["arguments"]
        assert pieces[0]["id"] == call["id"] and pieces[0]["function"]["name"] == call["function"]["name"]
    events = response_events(steps, legacy_vllm=legacy)
    final = response([e for s in steps for e in s], legacy_vllm=legacy)
    assert events[-1]["response"] == final
    for idx, item in enumerate(final["output"]):
        if item["type"] == "message":
            got = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta" and e["output_index"] == idx)
            assert got == item["content"][0]["text"]
        if item["type"] == "function_call":
            got = "".join(e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta" and e["output_index"] == idx)
            assert got == item["arguments"]


# --- Incremental projector, ids, turns, CLI entry ---------------------------------------------


def test_projector_view_as_of_each_step_matches_the_reference_parser():
    tokens = encode(MULTI)
    steps = reference_steps(tokens)
    enc = ref_encoding()
    parser = oh.StreamableParser(enc, oh.Role.ASSISTANT)
    p = Projector()
    for tok, step in zip(tokens, steps):
        parser.process(tok)
        p.add(step)
        visible = [m.content[0].text for m in parser.messages if m.channel in ("final", "commentary") and not m.recipient]
        if parser.state == oh.StreamState.CONTENT and parser.current_channel == "commentary" and not parser.current_recipient:
            visible.append(parser.current_content)
        assert (message_of(p.current("chat"))["content"] or "") == "\n".join(visible)
        assert p.current("chat")["choices"][0]["finish_reason"] is None
        assert p.current("responses")["status"] == "in_progress"
    p.add(steps[-1])
    p.finish()
    assert p.current("chat")["choices"][0]["finish_reason"] == "tool_calls"
    with pytest.raises(RuntimeError, match="new Projector"):
        p.add([])


def test_ids_are_deterministic_and_take_a_prefix():
    ev = events_of(MULTI)
    a, b = chat_completion(ev), chat_completion(ev)
    assert a == b
    assert [c["id"] for c in message_of(a)["tool_calls"]] == ["call_0", "call_1"]
    resp = response(ev, id_prefix="t7_")
    assert [i["id"] for i in resp["output"]] == ["t7_rs_0", "t7_msg_1", "t7_fc_2", "t7_fc_3"]
    assert [i.get("call_id") for i in resp["output"][2:]] == ["t7_call_0", "t7_call_1"]


def test_full_transcript_projects_only_the_last_assistant_turn():
    text = (
        "<|start|>user<|message|>Weather?<|end|>"
        f"<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>{CALL_ARGS}<|call|>"
        '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"sunny": true}<|end|>'
        "<|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>"
    )
    chat = chat_completion(events_of(text, role=None))
    assert message_of(chat) == {"role": "assistant", "content": "It is sunny.", "reasoning_content": None, "tool_calls": None}
    assert chat["choices"][0]["finish_reason"] == "stop"


def test_project_for_cli_shapes():
    steps = reference_steps(encode(SEED_001))
    assert project_for_cli("chat", steps)["object"] == "chat.completion"
    assert project_for_cli("responses", steps, legacy_vllm=True)["output"][1]["type"] == "reasoning"
    assert all(c["object"] == "chat.completion.chunk" for c in project_for_cli("chat-stream", steps))
    assert project_for_cli("responses-stream", steps)[-1]["type"] == "response.completed"
    assert set(OUTPUTS) == {"chat", "chat-stream", "responses", "responses-stream"}
    with pytest.raises(ValueError, match="unknown output 'xml'; expected one of chat, chat-stream"):
        project_for_cli("xml", steps)


# --- Real transcripts ---------------------------------------------------------------------------


def _aldehir_turns(path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"^```\n(.*?)\n```$", text, re.M | re.S) if b.startswith("<|start|>")]
    # The harness joined messages with "\n\n" for display; the model saw them glued.
    return [re.sub(r"(<\|(?:end|call|return)\|>)\s+(?=<\|start\|>)", r"\1", b.strip()) for b in blocks]


def test_real_tool_calling_turns(corpus_dir):
    """aldehir/gpt-oss-tool-calling-notebook: every turn's last assistant turn, against the reference."""
    checked = 0
    for path in sorted((corpus_dir / "aldehir_tool_calling").glob("cities_3_*.md")):
        for turn_text in _aldehir_turns(path):
            tokens = encode(turn_text)
            ref = reference_turn(tokens, role=None)
            steps = reference_steps(tokens, role=None)
            chat = project_for_cli("chat", steps)
            calls = [m for m in ref if m.recipient and m.recipient.startswith("functions.")]
            got = message_of(chat)["tool_calls"] or []
            assert [c["function"]["arguments"] for c in got] == [m.content[0].text for m in calls]
            assert [c["function"]["name"] for c in got] == [m.recipient.split(".", 1)[1] for m in calls]
            visible = [m.content[0].text for m in ref if not m.recipient and m.channel in ("final", "commentary")]
            assert message_of(chat)["content"] == ("\n".join(visible) or None)
            if calls:
                assert chat["choices"][0]["finish_reason"] == "tool_calls"
            checked += 1
    assert checked >= 3


def test_real_truncated_unsloth_outputs_are_cut_off(corpus_dir):
    rows = [json.loads(line) for line in (corpus_dir / "unsloth_notebook_outputs" / "unsloth_gpt-oss_outputs.jsonl").open()]
    row = next(r for r in rows if "truncated" in r["note"] and r["cell_index"] == 9)
    steps = reference_steps(encode(row["output_text"]), role=None)
    resp = project_for_cli("responses", steps)
    assert resp["status"] == "incomplete"
    assert resp["output"] and resp["output"][-1]["type"] == "reasoning"
    assert project_for_cli("chat", steps)["choices"][0]["finish_reason"] == "length"


def test_real_rft_transcripts(corpus_dir):
    rows = [json.loads(line) for line in (corpus_dir / "openai_gpt-oss_rft_notebook" / "rft_outputs.jsonl").open()]
    for row in rows:
        tokens = encode(row["output_text"].rstrip("\n"))  # TextStreamer printed a final newline
        ref = reference_turn(tokens, role=None)
        steps = reference_steps(tokens, role=None)
        chat = project_for_cli("chat", steps)
        finals = [m.content[0].text for m in ref if m.channel == "final"]
        analysis = [m.content[0].text for m in ref if m.channel == "analysis"]
        assert message_of(chat)["content"] == "\n".join(finals)
        assert message_of(chat)["reasoning_content"] == "\n".join(analysis)
        u = usage([e for s in steps for e in s])
        assert u.reasoning_tokens == sum(ntok(t) for t in analysis)


def test_usage_of_a_message_ended_by_a_channel_is_the_same_for_text_and_ids():
    """A message a <|channel|> ends has no stop token of its own: text and token ids count the same tokens."""
    from harmony_viz.projections import usage
    from harmony_viz.scanner import scan
    from harmony_viz.tokens import encoding

    text = "<|start|>assistant<|channel|>analysis<|message|>think<|channel|>final<|message|>Hi<|return|>"
    ids = encoding().encode(text, allowed_special="all")
    by_text, by_ids = usage(scan(text).events), usage(scan(ids).events)
    assert by_text.output_tokens == by_ids.output_tokens == len(ids)
