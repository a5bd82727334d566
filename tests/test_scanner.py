"""Named cases for the scanner, each built from a real failure or a documented quirk.

The source of each case is in its docstring (malformed_catalog.jsonl ids, REFERENCES.md's
bug zoo). Text input spells control tokens out; token input is built with the real encoding.
"""

from __future__ import annotations

import json

import pytest

from harmony_viz.findings import Finding, Span
from harmony_viz.scanner import ContentDelta, Diagnostic, MessageEnd, MessageStart, Scanner, Snapshot, ToolCallEnd, ToolCallStart, event_to_json, scan


def codes(result) -> dict[str, str]:
    """code -> severity of every diagnostic (each code once)."""
    return {d.code: d.severity for d in result.diagnostics}


def only(result, cls):
    found = [e for e in result.events if type(e) is cls]
    assert len(found) == 1, found
    return found[0]


# --------------------------------------------------------------- well-formed streams


def test_simple_completion_events_and_token_spans(enc):
    text = "<|start|>assistant<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi there<|return|>"
    tokens = enc.encode(text, allowed_special="all")
    result = scan(tokens)
    starts = [e for e in result.events if type(e) is MessageStart]
    ends = [e for e in result.events if type(e) is MessageEnd]
    assert [(s.kind, s.channel) for s in starts] == [("reasoning", "analysis"), ("final", "final")]
    # Header span: from <|start|> to just after <|message|>; the end span is the stop token.
    assert tokens[starts[0].start] == 200006 and tokens[starts[0].end - 1] == 200008
    assert [tokens[e.start] for e in ends] == [200007, 200002] and all(e.end == e.start + 1 for e in ends)
    deltas = [e for e in result.events if type(e) is ContentDelta]
    assert enc.decode(tokens[deltas[1].start : deltas[1].end]) == "Hi there"
    assert result.diagnostics == []


def test_text_spans_are_character_offsets():
    text = "<|start|>user<|message|>Hello<|end|>"
    result = scan(text)
    start, delta, end = result.events
    assert (start.start, start.end) == (0, text.index("Hello"))
    assert text[delta.start : delta.end] == "Hello"
    assert text[end.start : end.end] == "<|end|>"


def test_empty_stream_is_valid():
    for source, role in (("", None), ([], None), ("", "assistant"), ([], "assistant")):
        result = scan(source, role=role)
        assert result.events == [] and result.messages == [] and result.diagnostics == []


def test_completion_role_assistant_opens_in_a_header(enc):
    tokens = enc.encode("<|channel|>final<|message|>4<|return|>", allowed_special="all")
    result = scan(tokens, role="assistant")
    (m,) = result.messages
    assert (m.role, m.channel, m.text, m.kind, m.start) == ("assistant", "final", "4", "final", 0)
    assert result.diagnostics == []


def test_final_only_reply_is_not_reasoning():
    """vllm#23694 / #22403: a positional parse put a final-only reply into reasoning."""
    result = scan("<|channel|>final<|message|>Paris.<|return|>", role="assistant")
    assert [(m.kind, m.text) for m in result.messages] == [("final", "Paris.")]


def test_preamble_is_visible_not_reasoning():
    """vllm#24170, PR #29972, seed 001: commentary with no recipient is a preamble shown to users."""
    result = scan("<|start|>assistant<|channel|>commentary<|message|>I'll search for the weather in SF.<|end|>")
    assert result.messages[0].kind == "preamble" and result.diagnostics == []


def test_structured_final_is_not_a_recipient(reference_encoding, enc):
    """openai/harmony #144: `final <|constrain|>json` is structured output, not a call to `<|constrain|>json`."""
    text = '<|start|>assistant<|channel|>final <|constrain|>json<|message|>{"a": 1}<|return|>'
    ours = scan(text).messages[0]
    assert (ours.channel, ours.recipient, ours.content_type, ours.kind) == ("final", None, "<|constrain|>json", "final")
    ref = reference_encoding.parse_messages_from_completion_tokens(enc.encode(text, allowed_special="all"), None)[0]
    assert ref.recipient == "<|constrain|>json"  # the reference's bug this case pins


@pytest.mark.parametrize(
    "header",
    [
        "assistant to=functions.get_weather<|channel|>commentary <|constrain|>json",  # llama.cpp PR #15181
        "assistant<|channel|>commentary to=functions.get_weather <|constrain|>json",
        "assistant<|channel|>commentary to=functions.get_weather json",  # llama.cpp PR #15158, bare json
    ],
)
def test_recipient_in_either_header_section(header, enc, reference_encoding):
    text = f'<|start|>{header}<|message|>{{"location":"Lima"}}<|call|>'
    result = scan(text)
    ref = reference_encoding.parse_messages_from_completion_tokens(enc.encode(text, allowed_special="all"), None)
    assert [m.to_json() for m in result.messages] == [json.loads(m.to_json()) for m in ref]
    start, end = only(result, ToolCallStart), only(result, ToolCallEnd)
    assert (start.name, start.namespace, start.recipient) == ("get_weather", "functions", "functions.get_weather")
    assert (end.arguments, end.parsed, end.error) == ('{"location":"Lima"}', {"location": "Lima"}, None)
    assert start.call_id == end.call_id
    assert result.diagnostics == []


def test_recipient_with_hyphen_after_channel():
    """vllm#51977: `to=functions.web-browsing` after the channel raised in openai-harmony's caller."""
    result = scan('<|start|>assistant<|channel|>commentary to=functions.web-browsing <|constrain|>json<|message|>{"q":"x"}<|call|>')
    assert result.messages[0].recipient == "functions.web-browsing"
    assert only(result, ToolCallStart).name == "web-browsing"
    assert result.diagnostics == []


def test_builtin_tools_keep_their_namespace():
    """ollama#11991: builtin-style recipients are not `functions.` calls."""
    result = scan('<|start|>assistant<|channel|>analysis to=browser.search code<|message|>{"query":"x"}<|call|>'
                  "<|start|>assistant<|channel|>analysis to=python code<|message|>print(1)<|call|>")
    starts = [e for e in result.events if type(e) is ToolCallStart]
    assert [(s.name, s.namespace) for s in starts] == [("browser.search", "browser"), ("python", None)]
    ends = [e for e in result.events if type(e) is ToolCallEnd]
    assert ends[1].arguments == "print(1)" and ends[1].parsed is None and ends[1].error is None
    assert result.diagnostics == []


def test_tool_result_message_kinds():
    result = scan('<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>"51F"<|end|>'
                  "<|start|>tool<|message|>x<|end|><|start|>developer<|message|>d<|end|>")
    assert [(m.role, m.name, m.kind) for m in result.messages] == [
        ("tool", "functions.get_weather", "tool_result"),
        ("tool", "tool", "tool_result"),
        ("developer", None, "other"),
    ]
    assert result.diagnostics == []


def test_to_json_omits_absent_fields_never_empty_strings():
    m = scan("<|start|>user<|message|>Hi<|end|>").messages[0]
    assert m.to_json() == {"role": "user", "name": None, "content": [{"type": "text", "text": "Hi"}]}


# ----------------------------------------------------------------- malformed headers


def test_junk_and_doubled_channel_header():
    """llama.cpp#27720: `<|channel|>commentary to=assistant<|channel|>commentary?` then a well-formed turn."""
    text = ("<|start|>assistant<|channel|>commentary to=assistant<|channel|>commentary?<|end|>"
            "<|start|>assistant<|channel|>analysis<|message|>The user wants X.<|end|>")
    result = scan(text)
    assert codes(result) == {"missing-message": "error", "duplicate-channel": "error"}
    assert result.messages[-1].to_json() == {"role": "assistant", "name": None, "content": [{"type": "text", "text": "The user wants X."}], "channel": "analysis"}


@pytest.mark.parametrize(("value", "channel"), [("??", None), ("commentary?commentary?", "commentary"), ("––commentary", "commentary"), ("", None)])
def test_bad_channel_values(value, channel):
    """llama.cpp#27720 (`??`, `commentary?`), openai/harmony#38 (`––commentary`), and an empty channel."""
    result = scan(f"<|start|>assistant<|channel|>{value}<|message|>text<|end|>")
    (bad,) = [d for d in result.diagnostics if d.code == "bad-channel"]
    assert bad.severity == "error"
    assert repr(value[:40]) in bad.message or (not value and "no channel name" in bad.message)
    (m,) = result.messages
    assert (m.channel, m.text) == (channel, "text")


# Reported headers that break one message, and what the scanner reads back: the stream, the role it is scanned
# as (None: the stream opens its own messages), every code it gets with its severity, fields of the one message.
ONE_MESSAGE_REPAIRS = {
    # openai/harmony PR #97: extra <|channel|> markers in deep multi-turn conversations
    "harmony-pr97-channel-marker-twice": ("<|start|>assistant<|channel|>analysis<|channel|>analysis<|message|>x<|end|>", None,
                                          {"duplicate-channel": "error"}, {"channel": "analysis"}),
    # openai/harmony#60: '<|constrain|>response' is kept; vllm#22284: too many header tokens, ignored
    "harmony-60-header-junk": ("<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>response extra words<|message|>{}<|call|>",
                               None, {"header-junk": "error"}, {"content_type": "<|constrain|>response"}),
    # ndurner tournament: `final <|constrain|>{"msg":...}<|end|>` with no <|message|>; vllm PR #45213: the body is recovered
    "ndurner-stop-before-message": ('<|start|>assistant<|channel|>final <|constrain|>{"msg":"I will report."}<|end|>', None,
                                    {"missing-message": "error"}, {"channel": "final", "text": '{"msg":"I will report."}', "terminator": "<|end|>"}),
    # vllm PR #45213 / #45736: `<|channel|>final` with no <|message|> gave content null; its text is kept
    "vllm-45213-final-without-message": ("<|channel|>final The answer is 4.<|return|>", "assistant", {"missing-message": "error"},
                                         {"text": "The answer is 4."}),
}


@pytest.mark.parametrize("report", sorted(ONE_MESSAGE_REPAIRS))
def test_a_reported_header_break_reads_back_as_one_repaired_message(report):
    text, role, expected, fields = ONE_MESSAGE_REPAIRS[report]
    result = scan(text, role=role)
    assert codes(result) == expected
    (m,) = result.messages
    assert {name: getattr(m, name) for name in fields} == fields


def test_channel_word_as_role():
    """openai/harmony PR #114: 'Unknown role: final' (3 of 500 SWE-bench runs)."""
    result = scan("<|start|>final<|message|>Done.<|end|>")
    assert codes(result)["bad-role"] == "error"
    assert (result.messages[0].role, result.messages[0].channel, result.messages[0].kind) == ("assistant", "final", "final")


def test_control_tokens_spelled_as_text_in_token_stream(enc):
    """openai/harmony PR #114: 'Unknown role: assistant<|channel|>commentary' — <|channel|> as plain tokens."""
    tokens = enc.encode("<|start|>", allowed_special="all") + enc.encode("assistant<|channel|>commentary", disallowed_special=()) + enc.encode("<|message|>Plan.<|end|>", allowed_special="all")
    assert 200005 not in tokens
    result = scan(tokens)
    assert codes(result) == {"control-token-as-text": "warning"}
    assert (result.messages[0].channel, result.messages[0].text) == ("commentary", "Plan.")


def test_recipient_glued_to_body_in_header():
    """ndurner tournament: `commentary to=functions.report_back_to_reception>msg=...<|end|>`."""
    result = scan("<|start|>assistant<|channel|>commentary to=functions.report_back_to_reception>msg=User asked.<|end|>")
    c = codes(result)
    assert c["missing-message"] == "error" and c["call-ended-by-end"] == "warning"
    end = only(result, ToolCallEnd)
    assert end.name == "report_back_to_reception" and end.arguments == ">msg=User asked."
    assert end.error is not None  # the raw block is kept, not silently {}


def test_end_of_stream_inside_header_makes_no_message():
    """A header cut off with no body (issue 13, item 3): no message, an error with the header's span."""
    for text in ("<|start|>assistant<|channel|>analy", "<|start|>assistant", "<|start|>assistant<|channel|>"):
        result = scan(text)
        assert codes(result) == {"eos-in-header": "error"}, text
        assert result.messages == []
        (diag,) = result.diagnostics
        assert (diag.start, diag.end) == (0, len(text))


def test_start_right_at_end():
    result = scan("<|start|>user<|message|>Hi<|end|><|start|>")
    assert codes(result) == {"eos-in-header": "error"}
    assert len(result.messages) == 1


# ----------------------------------------------------------------- between messages


def test_missing_end_before_next_start():
    """lm-deluge sample: `…We reassure them.<|start|>assistant<|channel|>final…` (no <|end|>)."""
    result = scan("<|start|>assistant<|channel|>analysis<|message|>We reassure them.<|start|>assistant<|channel|>final<|message|>I'm ChatGPT<|return|>")
    assert codes(result) == {"missing-end": "error"}
    assert [(m.channel, m.text, m.terminator) for m in result.messages] == [("analysis", "We reassure them.", "<|start|>"), ("final", "I'm ChatGPT", "<|return|>")]
    first_end = [e for e in result.events if type(e) is MessageEnd][0]
    assert first_end.start == first_end.end  # implied: an empty span


def test_start_written_as_plain_word():
    """unsloth#5162: a quantised model writes the word `assistant` instead of <|start|>."""
    result = scan("<|start|>assistant<|channel|>analysis<|message|>Think.<|end|>assistant<|channel|>final<|message|>Hi<|return|>")
    assert codes(result) == {"missing-start": "error"}
    assert [(m.role, m.channel, m.text) for m in result.messages] == [("assistant", "analysis", "Think."), ("assistant", "final", "Hi")]


def test_text_outside_any_message():
    """openai/harmony#60: 'Unexpected token 12606 while expecting start token 200006'."""
    result = scan("<|start|>user<|message|>Hi<|end|>Hello there<|start|>assistant<|channel|>final<|message|>Yo<|return|>")
    assert codes(result) == {"text-outside-message": "error"}
    assert [m.text for m in result.messages] == ["Hi", "Hello there", "Yo"]


def test_header_without_start_after_end():
    """anyclaude-local: `<|end|>` then straight into `<|channel|>` (dropped <|start|>assistant)."""
    result = scan("<|channel|>analysis<|message|>Think.<|end|><|channel|>final<|message|>Done<|return|>", role="assistant")
    assert codes(result) == {"missing-start": "error"}
    assert [(m.channel, m.text) for m in result.messages] == [("analysis", "Think."), ("final", "Done")]


def test_stop_token_where_start_expected():
    """vllm#50690: `<|return|>` again after a short answer with ignore_eos."""
    result = scan("<|channel|>final<|message|>Hi<|return|><|return|>", role="assistant")
    assert codes(result) == {"unexpected-stop": "error"}
    assert len(result.messages) == 1


def test_bare_content_with_no_header():
    """llama.cpp#25321: final content with no channel markup at all."""
    result = scan('{"answer": 4}', role="assistant")
    assert codes(result)["eos-in-header"] == "error"
    assert [(m.kind, m.text) for m in result.messages] == [("final", '{"answer": 4}')]


def test_stripped_control_tokens_recovered_in_completion():
    """macprovider-743 / sglang#9244: 'analysisWe need … And nothing else.assistantfinalfour'."""
    text = 'analysisWe need to answer "What is 2+2? Answer in one word." And nothing else.assistantfinalfour'
    result = scan(text, role="assistant")
    assert codes(result)["control-tokens-stripped"] == "error"
    assert [(m.channel, m.kind, m.text) for m in result.messages] == [
        ("analysis", "reasoning", 'We need to answer "What is 2+2? Answer in one word." And nothing else.'),
        ("final", "final", "four"),
    ]


def test_stripped_control_tokens_in_full_transcript(enc):
    tokens = enc.encode("analysisThe user greets.assistantfinalHello!", disallowed_special=())
    result = scan(tokens)
    assert codes(result)["control-tokens-stripped"] == "error"
    assert [m.text for m in result.messages] == ["The user greets.", "Hello!"]


# ----------------------------------------------------------------------- tool calls


def test_tool_call_cut_off_with_complete_json():
    """mlx-openai-server PR #156: the model omits <|call|> at end of stream."""
    result = scan('<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Denver"}', role="assistant")
    assert codes(result) == {"call-cut-off": "warning"}
    end = only(result, ToolCallEnd)
    assert end.parsed == {"city": "Denver"} and end.error is None and (end.start, end.end) == (end.start, end.start)


def test_tool_call_cut_off_mid_arguments():
    """vllm#37937 / #36849: a streamed tool call hits max_tokens."""
    result = scan('<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Ber', role="assistant")
    assert codes(result) == {"call-incomplete": "error"}
    end = only(result, ToolCallEnd)
    assert end.arguments == '{"city": "Ber'
    assert end.parsed == {"city": "Ber"} and end.error.startswith("Unterminated string")


def test_tool_call_ended_by_return():
    """sglang PR #10576: a tool call ended with <|return|>."""
    result = scan('<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|return|>')
    assert codes(result) == {"call-ended-by-return": "error"}
    assert only(result, ToolCallEnd).parsed == {}


def test_tool_call_ended_by_end():
    result = scan('<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a":1}<|end|>')
    assert codes(result) == {"call-ended-by-end": "warning"}


def test_invalid_arguments_are_kept_raw_with_error():
    """ollama#11704: malformed streamed call ('invalid character c')."""
    result = scan('<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1, c}<|call|>')
    end = only(result, ToolCallEnd)
    assert end.arguments == '{"a": 1, c}' and end.error is not None and end.parsed != {}


def test_long_nested_arguments_verbatim(enc):
    """lmstudio-bug-tracker#942: long nested JSON arguments, 'Unexpected end of content'."""
    args = json.dumps({"rows": [{"id": i, "tags": ["a", "b", {"deep": [i, i * 2]}], "note": "ünïcødé ✓"} for i in range(300)]})
    tokens = enc.encode(f"<|start|>assistant<|channel|>commentary to=functions.store <|constrain|>json<|message|>{args}<|call|>", allowed_special="all")
    scanner = Scanner()
    events = [e for t in tokens for e in scanner.feed([t])] + scanner.flush()
    (end,) = [e for e in events if type(e) is ToolCallEnd]
    assert end.arguments == args and end.parsed == json.loads(args) and end.error is None


def test_call_on_analysis_and_bare_recipient_warnings():
    """vllm-mlx PR #562 (call on analysis), finding5 runs (recipient without namespace)."""
    result = scan("<|start|>assistant<|channel|>analysis to=functions.edit code<|message|>x<|call|>"
                  '<|start|>assistant<|channel|>commentary to=report_back_to_reception <|constrain|>json<|message|>{"msg":"m"}<|call|>')
    c = codes(result)
    assert c == {"call-on-analysis": "warning", "recipient-without-namespace": "warning"}
    assert result.messages[1].recipient == "report_back_to_reception"  # as written


def test_fabricated_tool_result_in_completion():
    """OMP: `<|start|>functions.` in a completion after <|call|> is a fabricated tool result."""
    tail = '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>"sunny"<|end|>'
    completion = '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"X"}<|call|>' + tail
    result = scan(completion, role="assistant")
    assert codes(result) == {"continues-after-call": "error"}
    assert [m.kind for m in result.messages] == ["tool_call", "tool_result"]
    # In a full transcript the same tool result is normal.
    full = scan("<|start|>assistant" + completion)
    assert full.diagnostics == []


def test_missing_channel_and_recipient_assistant_warnings():
    result = scan("<|start|>assistant<|message|>I am ChatGPT.<|end|><|start|>assistant<|channel|>commentary to=assistant<|message|>hm<|end|>")
    assert codes(result) == {"missing-channel": "warning", "recipient-is-assistant": "warning"}
    # A lone commentary header the assistant addressed to itself is reasoning, not a preamble (issue 13).
    assert [m.kind for m in result.messages] == ["final", "reasoning"]
    assert [m.channel for m in result.messages] == [None, "commentary"]  # the parse keeps what was written


def test_reserved_token_is_read_as_text():
    result = scan([200006, 173781, 200005, 17196, 200008, 200000, 200007])
    assert codes(result) == {"reserved-token": "warning"}
    assert result.messages[0].text == "<|reserved_200000|>"


def test_control_token_inside_body():
    result = scan("<|start|>user<|message|>see <|message|> here<|end|>")
    assert codes(result) == {"control-in-body": "error"}
    assert result.messages[0].text == "see <|message|> here"


# ------------------------------------------------------------------ snapshot, misuse


def test_snapshot_follows_the_state(enc):
    s = Scanner()
    assert s.snapshot() == Snapshot("outside", "", "", -1, None, None, None, None, None, 0, 0, 0)
    s.feed("<|start|>assistant<|channel|>comm")
    snap = s.snapshot()
    assert (snap.state, snap.pending_header, snap.position) == ("header", "assistant<|channel|>comm", 33)
    s.feed("entary to=functions.f<|message|>{")
    snap = s.snapshot()
    assert (snap.state, snap.message, snap.role, snap.recipient, snap.channel, snap.messages) == ("body", 0, "assistant", "functions.f", "commentary", 1)
    s.feed('"a": 1}<|ca')
    assert s.snapshot().held_back == "<|ca"
    s.feed("ll|>")
    snap = s.snapshot()
    assert (snap.state, snap.held_back, snap.message, snap.diagnostics) == ("outside", "", -1, 0)


def test_snapshot_header_preview_is_bounded():
    s = Scanner(role="assistant")
    for _ in range(2000):
        s.feed("word ")
    assert len(s.snapshot().pending_header) == 256


def test_ids_outside_vocabulary_raise_with_the_fix():
    with pytest.raises(ValueError, match=r"token 1 is 300000, outside the o200k_harmony vocabulary 0\.\.201087"):
        Scanner().feed([200006, 300000])
    with pytest.raises(ValueError, match="token 0 is -1, outside"):
        Scanner().feed([-1])


def test_mixing_text_and_ids_is_refused():
    s = Scanner()
    s.feed("<|start|>")
    with pytest.raises(ValueError, match="this Scanner was fed text; feed token ids to a new Scanner"):
        s.feed([200006])


def test_unknown_role_argument_names_the_choices():
    with pytest.raises(ValueError, match="role 'bot' is not one of system, developer, user, assistant, tool"):
        Scanner(role="bot")


def test_diagnostic_json_shape():
    d = scan("<|end|>").diagnostics[0]
    assert d == Diagnostic("unexpected-stop", "error", "<|end|> where a message start was expected; ignored", Span(0, 7))
    assert isinstance(d, Finding) and (d.start, d.end) == (0, 7)  # the shared finding shape: code, severity, message, where
    assert event_to_json(d) == {"type": "diagnostic", **d.to_json()}
    assert d.to_json() == {"code": "unexpected-stop", "severity": "error", "message": "<|end|> where a message start was expected; ignored", "start": 0, "end": 7}


def test_import_is_light():
    import subprocess
    import sys

    code = "import harmony_viz.scanner, sys; print(sorted(m for m in ('pandas','plotly','torch','anywidget','openai_harmony','json_repair') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_numpy_ids_are_accepted():
    import numpy as np
    ids = np.array([200006, 173781, 200005, 17196, 200008, 12194, 200007], dtype=np.int64)
    (m,) = scan(ids).messages
    assert (m.channel, m.text, m.end) == ("final", "Hi", 7)
    with pytest.raises(ValueError, match="token 1 is 'x', not an integer id"):
        Scanner().feed([200006, "x"])


# One stream per diagnostic code (text unless a list of ids), with the role it is scanned under.
CODE_EXAMPLES = {
    "after-endoftext": ("<|start|>assistant<|channel|>final<|message|>x<|return|><|endoftext|>more", None),
    "bad-channel": ("<|start|>assistant<|channel|>??<|message|>x<|end|>", None),
    "bad-role": ("<|start|>final<|message|>x<|end|>", None),
    "call-cut-off": ('<|channel|>commentary to=functions.f json<|message|>{"a":1}', "assistant"),
    "call-ended-by-end": ("<|start|>assistant<|channel|>commentary to=functions.f<|message|>{}<|end|>", None),
    "call-ended-by-return": ("<|start|>assistant<|channel|>commentary to=functions.f<|message|>{}<|return|>", None),
    "call-incomplete": ('<|channel|>commentary to=functions.f json<|message|>{"a":', "assistant"),
    "call-on-analysis": ("<|start|>assistant<|channel|>analysis to=functions.f<|message|>{}<|call|>", None),
    "channel-without-token": ("analysis<|message|>x<|end|>", "assistant"),
    "call-without-recipient": ("<|start|>assistant<|channel|>commentary<|message|>x<|call|>", None),
    "continues-after-call": ("<|channel|>commentary to=functions.f<|message|>{}<|call|>more", "assistant"),
    "control-in-body": ("<|start|>user<|message|>a<|constrain|>b<|end|>", None),
    "control-token-as-text": ([200006, 173781, 27, 91, 21453, 91, 29, 17196, 200008, 12194, 200007], None),
    "control-tokens-stripped": ("analysisHm.assistantfinalOk.", None),
    "duplicate-channel": ("<|start|>assistant<|channel|>final<|channel|>final<|message|>x<|end|>", None),
    "empty-header": ("<|start|>assistant<|channel|>final<|message|>x<|return|>", "assistant"),
    "eos-in-header": ("<|start|>assistant<|channel|>final", None),
    "eos-in-message": ("<|start|>assistant<|channel|>final<|message|>x", None),
    "header-junk": ("<|start|>assistant<|channel|>final junk<|message|>x<|end|>", None),
    "missing-channel": ("<|start|>assistant<|message|>x<|end|>", None),
    "missing-end": ("<|start|>user<|message|>a<|start|>user<|message|>b<|end|>", None),
    "missing-message": ("<|start|>assistant<|channel|>final x<|end|>", None),
    "missing-start": ("<|start|>user<|message|>a<|end|>assistant<|channel|>final<|message|>b<|end|>", None),
    "padding": ([200006, 173781, 200005, 17196, 200008, 87, 200002, 199999, 199999], None),
    "recipient-is-assistant": ("<|start|>assistant<|channel|>commentary to=assistant<|message|>x<|end|>", None),
    "recipient-format": ("<|start|>assistant<|channel|>commentary to = functions.f<|message|>{}<|call|>", None),
    "recipient-without-namespace": ("<|start|>assistant<|channel|>commentary to=report<|message|>{}<|call|>", None),
    "reserved-token": ([200006, 1428, 200008, 200000, 200007], None),
    "text-outside-message": ("<|start|>user<|message|>a<|end|>stray", None),
    "unexpected-stop": ("<|end|>", None),
    "unknown-role": ("<|start|>victim<|message|>x<|end|>", None),
    "whitespace-outside-message": ("<|start|>user<|message|>a<|end|>\n\n", None),
}


def test_every_diagnostic_code_is_documented_and_reachable(enc):
    from harmony_viz.scanner import DIAGNOSTIC_CODES

    assert set(CODE_EXAMPLES) == set(DIAGNOSTIC_CODES)
    for code, (source, role) in CODE_EXAMPLES.items():
        found = {d.code: d.severity for d in scan(source, role=role).diagnostics}
        assert code in found, (code, found)
        assert found[code] == DIAGNOSTIC_CODES[code][0]
        assert 0 <= min(d.start for d in scan(source, role=role).diagnostics)


def test_call_without_stop_running_into_a_new_header():
    """anyclaude-local: `to=functions.Read code<|message|>{…}commentary<|message|>We need to read file.<|channel|>`."""
    completion = '<|channel|>commentary to=functions.Read code<|message|>{"file_path":"/path/to/README.md"}commentary<|message|>We need to read file.<|channel|>'
    result = scan(completion, role="assistant")
    c = codes(result)
    assert c["control-in-body"] == "error" and c["missing-end"] == "error" and c["eos-in-header"] == "error"
    end = only(result, ToolCallEnd)
    assert end.arguments == '{"file_path":"/path/to/README.md"}commentary<|message|>We need to read file.'
    assert end.error is not None and end.parsed["file_path"] == "/path/to/README.md"


def test_a_channel_in_the_body_is_the_terminator_of_the_message_it_ends(enc):
    """anyclaude-local (`…We need to read file.<|channel|>`), openai/harmony PR #97 (extra <|channel|> markers):
    the message is ended by the <|channel|> the diagnostic names, in the events, the messages, the replay's
    card data and the API view, not by a <|start|> that is not there."""
    from harmony_viz._replay import ApiViews
    from harmony_viz.projections import Projector
    from harmony_viz.trace import Trace

    text = "<|start|>assistant<|channel|>analysis<|message|>think<|channel|>final<|message|>Hi<|return|>"
    result = scan(text)
    (missing,) = [d for d in result.diagnostics if d.code == "missing-end"]
    assert text[missing.start : missing.end] == "<|channel|>"
    ends = [e for e in result.events if type(e) is MessageEnd]
    assert [e.terminator for e in ends] == ["<|channel|>", "<|return|>"]
    assert ends[0].start == ends[0].end == missing.start  # implied: an empty span where the <|channel|> begins
    assert [m.terminator for m in result.messages] == ["<|channel|>", "<|return|>"]
    # a <|start|> still ends a message as before
    assert [m.terminator for m in scan(text.replace("think<|channel|>", "think<|start|>assistant<|channel|>")).messages] == ["<|start|>", "<|return|>"]
    # the real stream: the call's message is cut by the <|channel|> in its body
    real = scan('<|channel|>commentary to=functions.Read code<|message|>{"file_path":"/path/to/README.md"}commentary<|message|>We need to read file.<|channel|>', role="assistant")
    assert real.messages[0].terminator == "<|channel|>"
    # the replay: the card is drawn from the trace's messages (js/src/replay/panels/conversation.ts: "ended " + terminator)
    ids = enc.encode(text, allowed_special="all")
    for chunking in ("token", "every:4"):
        trace = Trace.build(ids, chunking)
        assert [m.terminator for m in trace.headers] == ["<|channel|>", "<|return|>"]
        assert [m.terminator for m in trace.messages] == ["<|channel|>", "<|return|>"]
        views = ApiViews(trace).at(trace.n_steps - 1)
        assert "error" not in views and views["views"]["chat"]["choices"][0]["finish_reason"] == "stop"
    # the API view's turn: each message keeps the token that ended it
    projector = Projector(unit="tokens")
    projector.add(scan(ids).events)
    projector.finish()
    assert [m.terminator for m in projector.turn.messages] == ["<|channel|>", "<|return|>"]
