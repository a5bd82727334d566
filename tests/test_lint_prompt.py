"""Prompt checks, on conversations rendered by openai-harmony (the oracle) and variations of them."""

from __future__ import annotations

import pytest

from harmony_viz._lint import declared_tools, lint, lint_prompt

oh = pytest.importorskip("openai_harmony")

WEATHER = {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}
ROUTING = "Calls to these tools must go to the commentary channel: 'functions'."


def _render(reference_encoding, *messages, system=None, tools=True) -> str:
    system = system or oh.SystemContent.new().with_conversation_start_date("2025-06-28")
    convo = [oh.Message.from_role_and_content(oh.Role.SYSTEM, system)]
    if tools:
        dev = oh.DeveloperContent.new().with_function_tools([oh.ToolDescription.new("get_weather", "Gets the weather.", parameters=WEATHER)])
        convo.append(oh.Message.from_role_and_content(oh.Role.DEVELOPER, dev))
    convo.extend(messages)
    conv = oh.Conversation.from_messages(convo)
    return reference_encoding.decode_utf8(reference_encoding.render_conversation_for_completion(conv, oh.Role.ASSISTANT))


def _user(text: str):
    return oh.Message.from_role_and_content(oh.Role.USER, text)


def _assistant(text: str, channel: str, recipient: str | None = None):
    m = oh.Message.from_role_and_content(oh.Role.ASSISTANT, text).with_channel(channel)
    return m.with_recipient(recipient).with_content_type("<|constrain|>json") if recipient else m


def _codes(diags):
    return [(d.code, d.severity) for d in diags]


def test_reference_prompt_is_clean(reference_encoding):
    text = _render(reference_encoding, _user("Weather in Paris?"))
    assert lint_prompt(text) == []
    assert lint(text) == []


def test_declared_tools_from_a_rendered_prompt(reference_encoding, enc):
    text = _render(reference_encoding, _user("hi"), system=oh.SystemContent.new().with_browser_tool())
    tools = declared_tools(text)
    assert [t.recipient for t in tools] == ["browser.search", "browser.open", "browser.find", "functions.get_weather"]
    assert text[tools[-1].start : tools[-1].end] == "// Gets the weather.\ntype get_weather = (_: {\nlocation: string,\n}) => any;"
    ids = enc.encode(text, allowed_special="all")
    by_ids = declared_tools(ids)
    assert [t.parameters for t in by_ids] == [t.parameters for t in tools]
    assert "type get_weather" in enc.decode(ids[by_ids[-1].start : by_ids[-1].end])


def test_commentary_missing_from_the_channel_list(reference_encoding):
    system = oh.SystemContent.new().with_required_channels(["analysis", "final"])
    text = _render(reference_encoding, _user("hi"), system=system)
    (d,) = [d for d in lint_prompt(text) if d.code == "channels-missing"]
    assert d.message.startswith("the system message's channel list lacks commentary (without commentary there are no preambles and no function calls")
    assert text[d.start : d.end] == "# Valid channels: analysis, final. Channel must be included for every message."


def test_routing_line_missing_and_unused(reference_encoding):
    text = _render(reference_encoding, _user("hi")).replace("\n" + ROUTING, "")
    assert _codes(lint_prompt(text)) == [("routing-line-missing", "warning")]
    no_tools = _render(reference_encoding, _user("hi"), tools=False).replace(
        "Channel must be included for every message.", "Channel must be included for every message.\n" + ROUTING
    )
    assert _codes(lint_prompt(no_tools)) == [("routing-line-unused", "info")]


def test_function_tools_declared_in_the_wrong_message(reference_encoding):
    good = _render(reference_encoding, _user("hi"))
    block = good[good.index("namespace functions {") : good.index("} // namespace functions") + len("} // namespace functions")]
    in_user = _render(reference_encoding, _user("Use these:\n" + block), tools=False)
    d = [d for d in lint_prompt(in_user) if d.code == "tools-unexpected-message"]
    assert [x.message for x in d] == ["a tool namespace is declared in a user message (message 1); the model only trusts tools from the system (builtins) and developer (functions) messages"]
    assert in_user[d[0].start : d[0].end] == "namespace functions {"


@pytest.mark.parametrize(
    ("effort_line", "expected"),
    [
        ("Reasoning: high", []),
        ("Reasoning: Medium", [("reasoning-malformed", "reasoning effort 'Medium' is not one of low, medium, high (lower case, as trained)")]),
        ("Reasoning: max", [("reasoning-malformed", "reasoning effort 'max' is not one of low, medium, high (lower case, as trained)")]),
        ("", [("reasoning-missing", "the system message has no 'Reasoning: low|medium|high' line (the model falls back to its own default)")]),
    ],
)
def test_reasoning_effort(reference_encoding, effort_line, expected):
    text = _render(reference_encoding, _user("hi")).replace("Reasoning: medium", effort_line)
    assert [(d.code, d.message) for d in lint_prompt(text)] == expected


@pytest.mark.parametrize(("date", "ok"), [("2025-06-28", True), ("28/06/2025", False), ("2025-6-28", False), ("2025-02-30", False)])
def test_date_format(reference_encoding, date, ok):
    system = oh.SystemContent.new().with_conversation_start_date(date)
    text = _render(reference_encoding, _user("hi"), system=system)
    diags = lint_prompt(text)
    if ok:
        assert diags == []
    else:
        (d,) = diags
        assert (d.code, d.message) == ("date-malformed", f"current date {date!r} is not YYYY-MM-DD (e.g. 2025-06-28)")
        assert text[d.start : d.end] == f"Current date: {date}"


def test_analysis_of_a_finished_turn_kept_by_the_reference(reference_encoding):
    """openai-harmony drops analysis only before the first final (PR #96): the second turn's stays."""
    text = _render(
        reference_encoding,
        _user("q1"),
        _assistant("think1", "analysis"),
        _assistant("a1", "final"),
        _user("q2"),
        _assistant("think2", "analysis"),
        _assistant("a2", "final"),
        _user("q3"),
    )
    assert "think1" not in text and "think2" in text
    (d,) = lint_prompt(text)
    assert (d.code, d.severity) == ("stale-analysis", "info")
    assert text[d.start : d.end] == "<|start|>assistant<|channel|>analysis<|message|>think2<|end|>"


def test_analysis_of_a_pending_tool_call_is_not_stale(reference_encoding):
    text = _render(
        reference_encoding,
        _user("weather?"),
        _assistant("need the tool", "analysis"),
        _assistant('{"location": "Paris"}', "commentary", "functions.get_weather"),
        oh.Message.from_author_and_content(oh.Author.new(oh.Role.TOOL, "functions.get_weather"), '{"temp": 20}').with_channel("commentary").with_recipient("assistant"),
    )
    assert lint(text) == []


def test_return_in_history(reference_encoding):
    text = _render(reference_encoding, _user("q1"), _assistant("a1", "final"), _user("q2")).replace("a1<|end|>", "a1<|return|>")
    (d,) = lint_prompt(text)
    assert d.code == "return-in-history"
    assert text[d.start : d.end] == "<|return|>"


def test_no_system_message():
    assert _codes(lint_prompt("<|start|>user<|message|>hi<|end|><|start|>assistant")) == [("system-missing", "warning")]


def test_unreadable_tool_declaration(reference_encoding):
    rendered = _render(reference_encoding, _user("hi"))
    # a type name TypeScript lacks is read as a named type (real prompts write `pid: integer`)
    assert lint_prompt(rendered.replace("location: string,", "location: Date,")) == []
    # a namespace body from which no declaration can be recovered is reported, with where
    text = rendered.replace("type get_weather = (_: {\nlocation: string,\n}) => any;", "function f() {}")
    (d,) = [d for d in lint_prompt(text) if d.code == "tools-unreadable"]
    assert d.severity == "warning"
    assert "line " in d.message and "column " in d.message
