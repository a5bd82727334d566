"""Projections a client can trust (issue 13): one visibility rule, a call is always a call, SDK-valid objects.

Cases are our own, written in the spirit of the peers' public test inputs (llama.cpp's GPT-OSS
chat tests, vLLM's harmony and tool-parser tests, OVMS's gpt-oss output parser tests, SGLang's
and Ollama's harmony parsers): the headers real models and servers produce, well and badly.
"""

from __future__ import annotations

import json

import pytest
from test_projections_scanner import scan_steps

from harmony_viz.projections import (
    OUTPUTS,
    SDKValidationError,
    chat_completion,
    chat_completion_chunks,
    project_for_cli,
    response,
    response_events,
    sdk_object,
    usage,
    validate,
)
from harmony_viz.scanner import is_visible, message_kind, scan, visibility

SECRET = "SECRET-plan: the user must not see this"
ANSWER = "The answer is 4."


def steps_of(text, role="assistant", chunk=None):
    return scan_steps(text, role=role, size=chunk)


def events_of(text, role="assistant"):
    return [e for step in steps_of(text, role) for e in step]


def chat_message(text, **kw):
    return chat_completion(events_of(text), **kw)["choices"][0]["message"]


def diag_codes(text, role="assistant"):
    return {d.code: d.severity for d in scan(text, role=role).diagnostics}


FINAL = f"<|start|>assistant<|channel|>final<|message|>{ANSWER}<|return|>"

# Headers whose text must be reasoning, by the diagnostic that names them: name -> the header after
# `<|start|>assistant`, up to <|message|>.
HIDDEN_HEADS = {
    "bad-channel": {
        "leading space": "<|channel|> analysis",
        "glued names": "<|channel|>commentaryanalysis",
        "unknown name": "<|channel|>thinking",
        "misspelt name": "<|channel|>analysys",
        "empty name": "<|channel|>",
        "question marks (llama.cpp#27720)": "<|channel|>commentary?",
        "capitalised Analysis": "<|channel|>Analysis",
    },
    "duplicate-channel": {
        "doubled channel, analysis last": "<|channel|>commentary to=assistant<|channel|>analysis",
        "doubled channel, analysis first": "<|channel|>analysis<|channel|>final",
        "doubled, unknown part": "<|channel|>commentary to=assistant<|channel|>commentary?",
    },
    "recipient-is-assistant": {"lone commentary to=assistant": "<|channel|>commentary to=assistant"},
    "channel-without-token": {
        "channel word without <|channel|>": "analysis",
        "channel word and recipient without <|channel|>": "analysis to=assistant",
    },
}
# Each as a completion: (name, the completion after `<|start|>assistant`, the diagnostic)
HIDDEN_HEADERS = {name: (f"{head}<|message|>{SECRET}<|end|>", code) for code, heads in HIDDEN_HEADS.items() for name, head in heads.items()}


@pytest.mark.parametrize("name", sorted(HIDDEN_HEADERS))
def test_malformed_headers_are_reasoning_never_content_never_dropped(name):
    head, code = HIDDEN_HEADERS[name]
    text = head + FINAL
    msg = chat_message(text)
    assert msg["content"] == ANSWER
    assert msg["reasoning_content"] == SECRET
    assert diag_codes(text)[code] in ("error", "warning")
    # Usage counts it as reasoning; Responses makes it a reasoning item.
    assert usage(events_of(text)).reasoning_tokens > 0
    items = response(events_of(text))["output"]
    assert [i["type"] for i in items] == ["reasoning", "message"]
    assert items[0]["content"][0]["text"] == SECRET


VISIBLE_HEADERS = {
    "final": ("<|channel|>final<|message|>{}<|return|>", set()),
    "preamble": ("<|channel|>commentary<|message|>{}<|end|>", set()),
    "doubled, final last, to=assistant ignored": ("<|channel|>commentary to=assistant<|channel|>final<|message|>{}<|return|>", {"duplicate-channel"}),
    "doubled commentary then commentary": ("<|channel|>commentary<|channel|>commentary<|message|>{}<|end|>", {"duplicate-channel"}),
    "spaced final": ("<|channel|> final<|message|>{}<|return|>", {"bad-channel"}),
    "capitalised Final": ("<|channel|>Final<|message|>{}<|return|>", {"bad-channel"}),
    "no channel at all": ("<|message|>{}<|return|>", {"missing-channel"}),
    "final word without <|channel|>": ("final<|message|>{}<|return|>", {"channel-without-token"}),
}


@pytest.mark.parametrize("name", sorted(VISIBLE_HEADERS))
def test_visible_headers(name):
    template, codes = VISIBLE_HEADERS[name]
    text = template.format(ANSWER)
    msg = chat_message(text)
    assert (msg["content"], msg["reasoning_content"]) == (ANSWER, None)
    assert codes <= set(diag_codes(text))


def test_channel_less_message_keeps_a_null_channel_as_openai_harmony_does():
    result = scan("<|message|>plain answer<|return|>", role="assistant")
    assert result.messages[0].channel is None and result.messages[0].kind == "final"
    assert result.messages[0].to_json().get("channel") is None


def test_well_formed_analysis_and_tool_results_to_assistant_carry_no_diagnostic():
    text = (
        "<|start|>assistant<|channel|>analysis<|message|>Think.<|end|>"
        '<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a":1}<|call|>'
        '<|start|>functions.f to=assistant<|channel|>commentary<|message|>{"ok":true}<|end|>'
        "<|start|>assistant<|channel|>final<|message|>Done<|return|>"
    )
    assert scan(text).diagnostics == []


def test_legacy_vllm_still_reproduces_old_vllm():
    text = (
        "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>commentary<|message|>Checking.<|end|>"
        '<|start|>assistant<|channel|>commentary to=functions.f<|message|>{"a":1}<|call|>'
    )
    legacy = chat_message(text, legacy_vllm=True)
    assert legacy["content"] == 'Checking.\n{"a":1}'  # call JSON leaks, as vLLM did before the fix
    assert legacy["reasoning_content"] == "Think."
    items = response(events_of(text), legacy_vllm=True)["output"]
    assert [i["type"] for i in items] == ["reasoning", "reasoning", "function_call"]


# ------------------------------------------------------------------ headers that lost a token


def test_channel_word_without_token_is_that_channel():
    result = scan("analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi<|return|>", role="assistant")
    assert [(m.channel, m.kind) for m in result.messages] == [("analysis", "reasoning"), ("final", "final")]
    (d,) = [d for d in result.diagnostics if d.code == "channel-without-token"]
    assert d.severity == "error" and (d.start, d.end) == (0, len("analysis"))


def test_channel_word_with_recipient_and_content_type_without_token():
    result = scan('commentary to=functions.f json<|message|>{"a":1}<|call|>', role="assistant")
    (m,) = result.messages
    assert (m.channel, m.recipient, m.content_type, m.kind) == ("commentary", "functions.f", "json", "tool_call")


@pytest.mark.parametrize("role_word", ["exploitr", "victim", "助手"])
def test_unknown_role_is_a_tool_name_with_a_warning_that_names_it(role_word):
    result = scan(f"<|start|>{role_word}<|message|>hello<|end|>")
    (m,) = result.messages
    assert (m.role, m.name) == ("tool", role_word)
    (d,) = result.diagnostics
    assert (d.code, d.severity) == ("unknown-role", "warning") and role_word in d.message


def test_namespaced_tool_role_and_tool_with_recipient_are_not_warned():
    assert scan("<|start|>functions.f to=assistant<|channel|>commentary<|message|>1<|end|>").diagnostics == []
    assert scan("<|start|>lookup to=assistant<|channel|>commentary<|message|>1<|end|>").diagnostics == []


# ------------------------------------------------------------------ a header cut off at the end


@pytest.mark.parametrize("tail", ["<|start|>assistant", "<|start|>assistant<|channel|>", "<|start|>assistant<|channel|>fin", "<|start|>"])
def test_dangling_header_makes_no_message_and_adds_nothing(tail):
    text = "<|channel|>final<|message|>Hi<|end|>" + tail
    result = scan(text, role="assistant")
    assert [m.text for m in result.messages] == ["Hi"]
    (d,) = [d for d in result.diagnostics if d.code == "eos-in-header"]
    assert d.severity == "error" and (d.start, d.end) == (len(text) - len(tail), len(text))
    chat = chat_completion(events_of(text))
    assert chat["choices"][0]["message"]["content"] == "Hi"
    assert chat["choices"][0]["finish_reason"] == "length"  # the stream was cut off (vLLM says length too)
    joined = "".join(c["choices"][0]["delta"].get("content") or "" for c in chat_completion_chunks(steps_of(text, chunk=3)) if c["choices"])
    assert joined == "Hi"


def test_dangling_header_in_token_ids(enc):
    ids = enc.encode("<|channel|>final<|message|>Hi<|end|><|start|>assistant", allowed_special="all")
    result = scan(ids, role="assistant")
    assert [m.text for m in result.messages] == ["Hi"]
    assert any(d.code == "eos-in-header" and (d.start, d.end) == (len(ids) - 2, len(ids)) for d in result.diagnostics)


# ------------------------------------------------------------------ a call is always a call

CALL_CASES = {
    # name: (completion, chat tool name, Responses item type with no tools declared)
    "functions.*": ('<|channel|>commentary to=functions.lookup_order <|constrain|>json<|message|>{"id":7}<|call|>', "lookup_order", "function_call"),
    "bare name": ('<|channel|>commentary to=lookup_order<|message|>{"id":7}<|call|>', "lookup_order", "mcp_call"),
    "dotted non-functions name": ('<|channel|>commentary to=crm.lookup<|message|>{"id":7}<|call|>', "crm.lookup", "mcp_call"),
    "spaced recipient": ('<|channel|>commentary to = functions.lookup_order<|message|>{"id":7}<|call|>', "lookup_order", "function_call"),
    "quoted recipient": ('<|channel|>commentary to="functions.lookup_order"<|message|>{"id":7}<|call|>', "lookup_order", "function_call"),
    "recipient in the role section": ('to=functions.lookup_order<|channel|>commentary json<|message|>{"id":7}<|call|>', "lookup_order", "function_call"),
    "call on a glued channel": ('<|channel|>commentaryanalysis to=functions.lookup_order<|message|>{"id":7}<|call|>', "lookup_order", "function_call"),
    "call on a doubled header": ('<|channel|>analysis<|channel|>commentary to=functions.lookup_order<|message|>{"id":7}<|call|>', "lookup_order", "function_call"),
    "call on analysis": ('<|channel|>analysis to=functions.lookup_order<|message|>{"id":7}<|call|>', "lookup_order", "function_call"),
    "call ended by <|end|>": ('<|channel|>commentary to=functions.lookup_order<|message|>{"id":7}<|end|>', "lookup_order", "function_call"),
}


@pytest.mark.parametrize("name", sorted(CALL_CASES))
def test_a_call_is_always_a_call(name):
    text, chat_name, item_type = CALL_CASES[name]
    chat = chat_completion(events_of(text))
    msg = chat["choices"][0]["message"]
    assert [c["function"]["name"] for c in msg["tool_calls"]] == [chat_name]
    assert msg["tool_calls"][0]["function"]["arguments"] == '{"id":7}'
    assert msg["content"] is None  # a call's JSON never appears in content
    assert chat["choices"][0]["finish_reason"] == "tool_calls"
    assert [i["type"] for i in response(events_of(text))["output"]] == [item_type]
    streamed = chat_completion_chunks(steps_of(text, chunk=2))
    args = "".join(tc["function"].get("arguments", "") for c in streamed if c["choices"] for tc in c["choices"][0]["delta"].get("tool_calls") or [])
    assert args == '{"id":7}'
    assert not any(c["choices"][0]["delta"].get("content") for c in streamed if c["choices"])


def test_spaced_recipient_is_reported_as_written():
    text = CALL_CASES["spaced recipient"][0]
    (d,) = [d for d in scan(text, role="assistant").diagnostics if d.code == "recipient-format"]
    assert "to = functions.lookup_order" in d.message and d.severity == "warning"


@pytest.mark.parametrize("tools", [
    [{"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}],
    [{"type": "function", "name": "lookup_order"}],
    ["lookup_order"],
])
def test_declared_bare_name_is_a_function_call_in_responses(tools):
    text = CALL_CASES["bare name"][0]
    (item,) = response(events_of(text), tools=tools)["output"]
    assert (item["type"], item["name"], item["arguments"]) == ("function_call", "lookup_order", '{"id":7}')
    names = {e["item"]["type"] for e in response_events(steps_of(text), tools=tools) if e["type"] == "response.output_item.added"}
    assert names == {"function_call"}
    # The undeclared dotted name stays MCP, as in vLLM.
    (mcp,) = response(events_of(CALL_CASES["dotted non-functions name"][0]), tools=tools)["output"]
    assert (mcp["type"], mcp["server_label"], mcp["name"]) == ("mcp_call", "crm", "lookup")


def test_declared_tools_are_echoed_in_the_response_object():
    tools = [{"type": "function", "function": {"name": "lookup_order", "description": "find it", "parameters": {"type": "object"}}}]
    obj = response(events_of(CALL_CASES["bare name"][0]), tools=tools)
    assert [(t["type"], t["name"], t["description"]) for t in obj["tools"]] == [("function", "lookup_order", "find it")]
    sdk_object("responses", obj)


def test_call_without_recipient_is_read_by_its_channel():
    text = "<|channel|>commentary<|message|>Let me look.<|call|>"
    msg = chat_message(text)
    assert (msg["content"], msg["tool_calls"]) == ("Let me look.", None)
    assert diag_codes(text)["call-without-recipient"] == "warning"
    assert chat_completion(events_of(text))["choices"][0]["finish_reason"] == "stop"


@pytest.mark.parametrize("recipient", ["browser.search", "python", "container.exec"])
def test_builtin_calls_stay_reasoning_and_finish_is_stop(recipient):
    text = f'<|channel|>analysis to={recipient}<|message|>{{"query":"x"}}<|call|>'
    chat = chat_completion(events_of(text))
    msg = chat["choices"][0]["message"]
    assert (msg["content"], msg["tool_calls"], msg["reasoning_content"]) == (None, None, '{"query":"x"}')
    assert chat["choices"][0]["finish_reason"] == "stop"


def test_mcp_and_function_calls_together():
    text = (
        '<|channel|>commentary to=github.create_issue<|message|>{"t":1}<|call|>'
        '<|start|>assistant<|channel|>commentary to=functions.f<|message|>{"a":2}<|call|>'
    )
    msg = chat_message(text)
    assert [(c["id"], c["function"]["name"]) for c in msg["tool_calls"]] == [("call_0", "github.create_issue"), ("call_1", "f")]
    out = response(events_of(text))["output"]
    assert [(i["type"], i.get("call_id")) for i in out] == [("mcp_call", None), ("function_call", "call_1")]


# ------------------------------------------------------------------ finish_reason is never null


@pytest.mark.parametrize("text,expected", [
    ("", "stop"),
    (FINAL[len("<|start|>assistant"):], "stop"),
    ("<|channel|>final<|message|>Hi", "length"),
    ('<|channel|>commentary to=functions.f<|message|>{"a":', "length"),
    ('<|channel|>commentary to=functions.f<|message|>{"a":1}<|call|><|start|>functions.f to=assistant<|channel|>commentary<|message|>{"ok"', "length"),
    ('<|channel|>commentary to=functions.f<|message|>{"a":1}<|call|>', "tool_calls"),
])
def test_finish_reason(text, expected):
    for steps in (steps_of(text), steps_of(text, chunk=5) if text else steps_of(text)):
        assert project_for_cli("chat", steps)["choices"][0]["finish_reason"] == expected
        final_chunks = [c for c in project_for_cli("chat-stream", steps) if c["choices"] and c["choices"][0]["finish_reason"]]
        assert [c["choices"][0]["finish_reason"] for c in final_chunks] == [expected]


def test_finish_reason_null_only_while_the_stream_is_open():
    from harmony_viz.projections import Projector

    p = Projector()
    p.add(events_of("<|channel|>final<|message|>Hi")[:-2])
    assert p.chat()["choices"][0]["finish_reason"] is None
    assert p.response()["status"] == "in_progress"


# ------------------------------------------------------------------ the reasoning field's name


@pytest.mark.parametrize("field,keys", [("reasoning_content", {"reasoning_content"}), ("reasoning", {"reasoning"}), ("both", {"reasoning_content", "reasoning"})])
def test_reasoning_field(field, keys):
    text = "<|channel|>analysis<|message|>Think.<|end|>" + FINAL
    msg = chat_message(text, reasoning_field=field)
    assert {k for k in ("reasoning_content", "reasoning") if k in msg} == keys
    assert all(msg[k] == "Think." for k in keys)
    chunks = chat_completion_chunks(steps_of(text, chunk=4), reasoning_field=field)
    for key in keys:
        assert "".join(c["choices"][0]["delta"].get(key) or "" for c in chunks if c["choices"]) == "Think."
    other = {"reasoning_content", "reasoning"} - keys
    assert not any(k in c["choices"][0]["delta"] for c in chunks if c["choices"] for k in other)
    validate("chat", chat_completion(events_of(text), reasoning_field=field))
    validate("chat-stream", chunks)


def test_bad_reasoning_field_is_a_clear_error():
    with pytest.raises(ValueError, match="reasoning_field 'thoughts' is not one of"):
        chat_completion([], reasoning_field="thoughts")  # type: ignore[arg-type]


# ------------------------------------------------------------------ the rule itself


def test_one_rule_for_kinds():
    assert message_kind("assistant", None, []) == "final"
    assert message_kind("assistant", None, [" final "]) == "final"
    assert message_kind("assistant", "assistant", ["commentary", "commentary"]) == "preamble"
    assert message_kind("assistant", None, ["final", "analysis"]) == "reasoning"
    assert message_kind("tool", "assistant", ["commentary"]) == "tool_result"
    assert [visibility(k) for k in ("final", "preamble", "reasoning", "tool_call", "tool_result")] == ["visible", "visible", "reasoning", "call", "other"]
    assert not is_visible("no-such-kind") and visibility("no-such-kind") == "reasoning"  # in doubt: reasoning


# ------------------------------------------------------------------ the SDK accepts every object


def test_sdk_rejects_what_it_should():
    chat = chat_completion(events_of(FINAL[len("<|start|>assistant"):]))
    chat["choices"][0]["finish_reason"] = None
    with pytest.raises(SDKValidationError, match="finish_reason"):
        validate("chat", chat)
    resp = response([])
    del resp["tools"]
    with pytest.raises(SDKValidationError, match="tools"):
        validate("responses", resp)
    with pytest.raises(SDKValidationError, match="not one the SDK knows"):
        validate("responses-stream", [{"type": "response.nonsense"}])


def _all_projections(steps):
    for legacy in (False, True):
        for output in OUTPUTS:
            yield output, legacy, project_for_cli(output, steps, legacy_vllm=legacy)


def _named_streams():
    from test_scanner import CODE_EXAMPLES

    out = {f"code:{k}": v for k, v in CODE_EXAMPLES.items()}
    out.update({f"hidden:{k}": (v[0] + FINAL, "assistant") for k, v in HIDDEN_HEADERS.items()})
    out.update({f"call:{k}": (v[0], "assistant") for k, v in CALL_CASES.items()})
    out.update({f"visible:{k}": (v[0].format(ANSWER), "assistant") for k, v in VISIBLE_HEADERS.items()})
    out["browser open"] = ('<|channel|>analysis to=browser.open<|message|>{"id": 3}<|call|>', "assistant")
    out["browser find"] = ('<|channel|>analysis to=browser.find<|message|>{"pattern": "x"}<|call|>', "assistant")
    return out


def _validated(name, steps) -> int:
    """How many objects of every projection of ``steps`` the SDK's types validated; the first that fails fails the test."""
    checked = 0
    for output, legacy, obj in _all_projections(steps):
        try:
            checked += validate(output, obj)
        except SDKValidationError as e:
            pytest.fail(f"{name} ({output}, legacy={legacy}): {e}")
    return checked


def test_every_projection_of_every_named_case_validates():
    checked = 0
    for name, (source, role) in _named_streams().items():
        for chunk in (None, 3):
            checked += _validated(name, steps_of(source, role, chunk=None if isinstance(source, list) else chunk))
    assert checked > 1000


@pytest.mark.slow
def test_every_projection_of_every_corpus_transcript_validates(corpus_dir, enc):
    from test_scanner_corpus import transcripts

    checked = 0
    texts = transcripts(corpus_dir)
    assert len(texts) > 100
    for name, text in texts.items():
        ids = enc.encode(text, allowed_special="all")
        checked += _validated(name, scan_steps(ids, role=None, size=16))
    assert checked > 10_000


def test_cli_parse_tools_and_reasoning_field(tmp_path, capsys):
    from harmony_viz.cli import main

    stream = tmp_path / "s.txt"
    stream.write_text("<|channel|>analysis<|message|>Hm.<|end|><|start|>assistant" + CALL_CASES["bare name"][0], encoding="utf-8")
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"type": "function", "function": {"name": "lookup_order"}}]), encoding="utf-8")
    assert main(["parse", str(stream), "--role", "assistant", "--output", "responses", "--tools", str(tools)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [i["type"] for i in out["output"]] == ["reasoning", "function_call"]
    assert main(["parse", str(stream), "--role", "assistant", "--output", "chat", "--reasoning-field", "reasoning"]) == 0
    msg = json.loads(capsys.readouterr().out)["choices"][0]["message"]
    assert msg["reasoning"] == "Hm." and "reasoning_content" not in msg
    tools.write_text("{nope", encoding="utf-8")
    assert main(["parse", str(stream), "--role", "assistant", "--output", "chat", "--tools", str(tools)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--tools" in err


# ------------------------------------------------------------------ every reader follows the rule

HIDDEN_STREAM = "<|start|>assistant" + HIDDEN_HEADERS["doubled channel, analysis last"][0] + FINAL


def test_widget_api_view_follows_the_rule():
    from harmony_viz import replay

    w = replay(HIDDEN_STREAM, chunking="token")
    w.step = w.n_steps - 1
    views = w.api_view["views"]
    for name in ("chat", "chat (legacy vLLM)"):
        msg = views[name]["choices"][0]["message"]
        assert SECRET not in (msg["content"] or "") and msg["reasoning_content"] == SECRET, name
    assert [i["type"] for i in views["responses"]["output"]] == ["reasoning", "message"]


def test_playground_follows_the_rule():
    from harmony_viz import playground

    w = playground(HIDDEN_STREAM)
    kinds = [(m["channel"], m["kind"]) for m in w._stream["messages"]]
    assert kinds == [("commentary", "reasoning"), ("final", "final")]
    assert "duplicate-channel" in {d["code"] for d in w.diagnostics}


def test_stats_follow_the_rule(tmp_path):
    from harmony_viz.runs import run_from_text, run_usage

    usage_ = run_usage(run_from_text(HIDDEN_STREAM, tmp_path / "hidden.txt"))
    by_kind = usage_.output_tokens_by_kind()
    assert by_kind["reasoning"] > 0 and by_kind["final"] > 0
    assert [m.kind for m in usage_.messages] == ["reasoning", "final"]


def test_lints_follow_the_rule():
    from harmony_viz._lint import lint

    leak = "I will call to=functions.get_weather now."
    shown = lint(f"<|channel|>final<|message|>{leak}<|return|>", role="assistant")
    hidden = lint(f"<|channel|>commentaryanalysis<|message|>{leak}<|end|>" + FINAL, role="assistant")
    assert "call-in-text" in {d.code for d in shown}
    assert "call-in-text" not in {d.code for d in hidden}  # reasoning is not text a user sees
