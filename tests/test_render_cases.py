"""Hand-picked render cases: each reference quirk pinned (and its fix), errors, JSON, golden files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import openai_harmony as oh
import pytest
from test_render_helpers import assert_same_tokens, to_reference, token_diff

from harmony_viz.render import (
    Author,
    ChannelConfig,
    Conversation,
    DeveloperContent,
    Message,
    RenderError,
    RenderOptions,
    Role,
    SystemContent,
    ToolDescription,
    ToolNamespaceConfig,
    render_conversation,
    render_conversation_for_completion,
    render_conversation_for_training,
    render_text,
    schema_to_typescript,
)

GOLDEN = Path(__file__).parent / "golden"


def _msg(role: str, text: str, channel: str | None = None) -> Message:
    m = Message.from_role_and_content(role, text)
    return m.with_channel(channel) if channel else m


def _dev(*tools: ToolDescription) -> Message:
    return Message.from_role_and_content(Role.DEVELOPER, DeveloperContent().with_function_tools(list(tools)))


def _same_as_reference(conv: Conversation, enc, ref_enc, **kw) -> list[int]:
    ours = render_conversation(conv, **kw)
    assert_same_tokens(ours, ref_enc.render_conversation(to_reference(conv)), enc)
    return ours


def _tool_text(parameters: dict, enc, ref_enc) -> str:
    """The text of a developer message declaring one tool ``f`` with ``parameters``, rendered as the reference does."""
    return enc.decode(_same_as_reference(Conversation.from_messages([_dev(ToolDescription("f", "d", parameters))]), enc, ref_enc))


# ---------------------------------------------------------------- quirks, default vs fix

MULTILINE = {"type": "object", "properties": {"q": {"type": "string", "description": "First line.\nSecond line."}}}
EXAMPLES = {"type": "object", "properties": {"n": {"type": "number", "examples": [1, 2.5]}, "s": {"type": "string", "examples": ["x", 3]}}}

# A quirk of the reference's TypeScript (ours keeps it by default, rendering as the reference does) and the option
# that fixes it: (schema, text of the reference's render, the option, the fixed TypeScript).
QUIRKS_AND_FIXES = {
    "a multi-line description has only its first line commented": (
        MULTILINE, "// First line.\nSecond line.\nq?: string,\n", {"comment_every_line": True}, "{\n// First line.\n// Second line.\nq?: string,\n}"),
    "non-string examples leave a bare heading": (
        EXAMPLES, '// Examples:\nn?: number,\n// Examples:\n// - "x"\ns?: string,\n', {"show_all_examples": True},
        '{\n// Examples:\n// - 1\n// - 2.5\nn?: number,\n// Examples:\n// - "x"\n// - 3\ns?: string,\n}'),
}


@pytest.mark.parametrize("name", sorted(QUIRKS_AND_FIXES))
def test_a_quirk_of_the_reference_and_the_option_that_fixes_it(name, enc, reference_encoding):
    schema, quirk, option, fixed = QUIRKS_AND_FIXES[name]
    assert quirk in _tool_text(schema, enc, reference_encoding)
    assert schema_to_typescript(schema, options=RenderOptions(**option)) == fixed


def test_oneof_variant_description_fix_joins_lines():
    schema = {"type": "object", "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "number", "description": "a\nb"}]}}}
    assert schema_to_typescript(schema) == "{\nv?:\n | string\n | number // a\nb\n,\n}"
    fixed = schema_to_typescript(schema, options=RenderOptions(comment_every_line=True))
    assert fixed == "{\nv?:\n | string\n | number // a b\n,\n}"


def _two_turns() -> Conversation:
    return Conversation.from_messages(
        [
            _msg("user", "Q1"),
            _msg("assistant", "think1", "analysis"),
            _msg("assistant", "A1", "final"),
            _msg("user", "Q2"),
            _msg("assistant", "think2", "analysis"),
            _msg("assistant", "A2", "final"),
        ]
    )


def test_analysis_dropped_only_before_first_final(enc, reference_encoding):
    text = enc.decode(_same_as_reference(_two_turns(), enc, reference_encoding))
    assert "think1" not in text and "think2" in text


def test_analysis_kept_while_a_turn_is_reasoning(enc, reference_encoding):
    conv = Conversation.from_messages([*_two_turns().messages[:4], _msg("assistant", "think2", "analysis")])
    text = enc.decode(_same_as_reference(conv, enc, reference_encoding))
    assert "think1" in text and "think2" in text


def test_drop_analysis_before_last_final_fix(enc):
    fix = RenderOptions(drop_analysis_before_last_final=True)
    assert "think1" not in render_text(_two_turns(), options=fix)
    assert "think2" not in render_text(_two_turns(), options=fix)
    ongoing = Conversation.from_messages([*_two_turns().messages[:4], _msg("assistant", "think2", "analysis")])
    text = render_text(ongoing, options=fix)
    assert "think1" not in text and "think2" in text


def test_drop_analysis_off_keeps_everything(enc, reference_encoding):
    ours = render_conversation(_two_turns(), options=RenderOptions(drop_analysis=False))
    theirs = reference_encoding.render_conversation(to_reference(_two_turns()), oh.RenderConversationConfig(auto_drop_analysis=False))
    assert_same_tokens(ours, theirs, enc)
    assert "think1" in enc.decode(ours)


def test_recipient_all_is_not_written_but_still_ends_in_call(enc, reference_encoding):
    conv = Conversation.from_messages([_msg("assistant", "hi", "commentary").with_recipient("all")])
    assert enc.decode(_same_as_reference(conv, enc, reference_encoding)) == "<|start|>assistant<|channel|>commentary<|message|>hi<|call|>"


def test_constrain_content_type_uses_the_special_token(enc, reference_encoding):
    conv = Conversation.from_messages(
        [_msg("assistant", "{}", "commentary").with_recipient("functions.f").with_content_type("<|constrain|>json")]
    )
    ids = _same_as_reference(conv, enc, reference_encoding)
    assert 200003 in ids
    assert enc.decode(ids) == "<|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json<|message|>{}<|call|>"


def test_routing_line_only_with_declared_functions(enc, reference_encoding):
    system = Message.from_role_and_content(Role.SYSTEM, SystemContent())
    with_fn = Conversation.from_messages([system, _dev(ToolDescription("f", "d"))])
    assert "'functions'." in enc.decode(_same_as_reference(with_fn, enc, reference_encoding))
    empty = Conversation.from_messages([system, _dev()])
    assert "'functions'." not in enc.decode(_same_as_reference(empty, enc, reference_encoding))
    in_system = Conversation.from_messages(
        [Message.from_role_and_content(Role.SYSTEM, SystemContent().with_tools(ToolNamespaceConfig("functions", None, (ToolDescription("f", "d"),))))]
    )
    assert "'functions'." not in enc.decode(_same_as_reference(in_system, enc, reference_encoding))


def test_no_parameter_function_and_empty_schema(enc, reference_encoding):
    conv = Conversation.from_messages([_dev(ToolDescription("ping", "Ping."), ToolDescription("any_arg", "x", {}))])
    text = enc.decode(_same_as_reference(conv, enc, reference_encoding))
    assert "type ping = () => any;\n" in text and "type any_arg = (_: any) => any;\n" in text


def test_string_default_is_not_escaped_but_other_values_are_json():
    schema = {"type": "object", "properties": {"s": {"type": "string", "default": 'a"b'}, "l": {"type": "array", "default": ["é", 1e20]}}}
    assert schema_to_typescript(schema) == '{\ns?: string, // default: "a"b"\nl?: Array<any>, // default: ["é",1e20]\n}'


def test_training_ends_final_with_return(enc, reference_encoding):
    ours = render_conversation_for_training(_two_turns())
    assert_same_tokens(ours, reference_encoding.render_conversation_for_training(to_reference(_two_turns())), enc)
    assert ours[-1] == 200002


def test_completion_for_another_role(enc, reference_encoding):
    conv = Conversation.from_messages([_msg("user", "hi")])
    ours = render_conversation_for_completion(conv, "user")
    assert_same_tokens(ours, reference_encoding.render_conversation_for_completion(to_reference(conv), oh.Role.USER), enc)
    assert enc.decode(ours).endswith("<|start|>user")


# ---------------------------------------------------------------- errors


def test_tool_message_without_name_raises():
    conv = Conversation.from_messages([_msg("user", "x"), Message.from_role_and_content(Role.TOOL, "result")])
    with pytest.raises(RenderError, match=r"^messages\[1\]\.name: a tool message needs an author name"):
        render_conversation(conv)


def test_system_content_outside_system_message_raises():
    conv = Conversation.from_messages([Message.from_role_and_content(Role.USER, SystemContent())])
    with pytest.raises(RenderError, match=r"^messages\[0\]\.content\[0\]: system content may only appear in a system message, not in a user message$"):
        render_conversation(conv)


def test_lone_surrogate_is_refused_like_the_reference(reference_encoding):
    conv = Conversation.from_json('{"messages": [{"role": "user", "content": "a\\ud800b"}]}')
    with pytest.raises(ValueError, match="hex escape"):
        reference_encoding.render_conversation(to_reference(conv))
    with pytest.raises(RenderError, match=r"^messages\[0\]: text holds a lone surrogate '\\ud800'"):
        render_conversation(conv)


def test_unknown_role_names_the_path_and_the_known_roles():
    with pytest.raises(RenderError) as info:
        Conversation.from_json('{"messages": [{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}]}')
    assert str(info.value) == "messages[1].role: unknown role 'bot'; expected one of user, assistant, system, developer, tool"


def test_invalid_json_names_line_and_column():
    with pytest.raises(RenderError) as info:
        Conversation.from_json('{"messages": [\n  {"role": "user",]}')
    assert str(info.value) == "input: invalid JSON at line 2 column 19: Expecting property name enclosed in double quotes"


def test_parameters_that_are_not_a_schema_object():
    doc = {"messages": [{"role": "developer", "content": [{"type": "developer_content", "tools": {"functions": {"name": "functions", "tools": [{"name": "f", "description": "", "parameters": [1]}]}}}]}]}
    with pytest.raises(RenderError, match=r"^messages\[0\]\.content\[0\]\.tools\.functions\.tools\[0\]\.parameters: expected a JSON Schema object or null, got an array"):
        Conversation.from_json(doc)


def test_nan_is_refused():
    with pytest.raises(RenderError, match=r"parameters\.default: nan is not a JSON number"):
        Conversation.from_json({"messages": [{"role": "developer", "content": [{"type": "developer_content", "tools": {"functions": {"name": "functions", "tools": [{"name": "f", "description": "", "parameters": {"default": float("nan")}}]}}}]}]})


def test_strict_schemas_names_what_would_be_dropped():
    schema = {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}}
    assert schema_to_typescript(schema) == "{\na?: any,\n}"
    with pytest.raises(RenderError, match=r"^parameters\.properties\.a\.anyOf: this keyword cannot be shown"):
        schema_to_typescript(schema, options=RenderOptions(strict_schemas=True))
    conv = Conversation.from_messages([_dev(ToolDescription("f", "d", {"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}}}))])
    with pytest.raises(RenderError, match=r"^messages\[0\]\.content\[0\]\.tools\.functions\.tools\[0\]\.parameters\.properties\.n\.enum: only string enums"):
        render_conversation(conv, options=RenderOptions(strict_schemas=True))


# ---------------------------------------------------------------- model and JSON


def test_builtin_namespaces_match_reference():
    for ours, theirs in ((ToolNamespaceConfig.browser(), oh.ToolNamespaceConfig.browser()), (ToolNamespaceConfig.python(), oh.ToolNamespaceConfig.python())):
        assert ours.name == theirs.name and ours.description == theirs.description
        assert [(t.name, t.description, t.parameters) for t in ours.tools] == [(t.name, t.description, t.parameters) for t in theirs.tools]


def test_json_round_trip_with_reference_fluent_api(enc, reference_encoding):
    ref = oh.Conversation.from_messages(
        [
            oh.Message.from_role_and_content(oh.Role.SYSTEM, oh.SystemContent.new().with_browser_tool().with_reasoning_effort(oh.ReasoningEffort.HIGH)),
            oh.Message.from_role_and_content(oh.Role.DEVELOPER, oh.DeveloperContent.new().with_instructions("Be brief.")),
            oh.Message.from_author_and_content(oh.Author.new(oh.Role.TOOL, "browser.search"), "r").with_recipient("assistant").with_channel("commentary"),
        ]
    )
    ours = Conversation.from_json(ref.to_json())
    assert ours.to_json() == ref.to_json()
    assert ours.messages[0].content[0] == SystemContent(reasoning_effort=SystemContent().reasoning_effort.HIGH, tools={"browser": ToolNamespaceConfig.browser()})
    assert_same_tokens(render_conversation(ours), reference_encoding.render_conversation(ref), enc)


def test_missing_system_fields_read_as_none_like_the_rust_renderer(enc, reference_encoding):
    doc = json.dumps({"messages": [{"role": "system", "content": [{"type": "system_content"}]}]})
    conv = Conversation.from_json(doc)
    assert conv.messages[0].content[0] == SystemContent(None, None, None, None, None, None)
    raw = reference_encoding._inner.render_conversation(conversation_json=doc, config={"auto_drop_analysis": True})
    assert_same_tokens(render_conversation(conv), raw, enc)
    assert enc.decode(raw) == "<|start|>system<|message|><|end|>"


def test_rust_shape_and_nested_author_are_read():
    conv = Conversation.from_json({"messages": [{"author": {"role": "tool", "name": "functions.f"}, "content": "ok"}]})
    assert conv.messages[0] == Message(Author(Role.TOOL, "functions.f"), (Message.from_role_and_content("user", "ok").content[0],))


def test_builders_return_new_objects():
    m = _msg("assistant", "x")
    assert m.with_channel("final").channel == "final" and m.channel is None
    s = SystemContent()
    assert s.with_python_tool().tools == {"python": ToolNamespaceConfig.python()} and s.tools is None
    assert ChannelConfig.require_channels(["a"]) == ChannelConfig(("a",), True)


def test_render_text_is_the_decoded_tokens(enc):
    conv = _two_turns()
    assert render_text(conv) == enc.decode(render_conversation(conv))
    assert render_text(conv, for_completion=True).endswith("<|start|>assistant")


def test_token_diff_shows_decoded_tokens(enc):
    out = token_diff([200006, 1428, 200008], [200006, 173781, 200008], enc)
    assert "differ at index 1" in out and "1428 'user'" in out and "173781 'assistant'" in out


# ---------------------------------------------------------------- golden files


def _golden_cases() -> dict[str, tuple[Conversation, str]]:
    weather = ToolDescription(
        "get_weather",
        "Gets the current weather.\nUse it for one city at a time.",
        {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
            },
            "required": ["location"],
        },
    )
    schema = {
        "type": "object",
        "description": "Search options.",
        "properties": {
            "query": {"type": "string", "title": "Query", "description": "What to look for.\nSecond line stays bare.", "examples": ["cats", 3]},
            "limit": {"type": "integer", "default": 10, "nullable": True},
            "mode": {"oneOf": [{"type": "string", "enum": ["fast", "deep"], "description": "Speed."}, {"type": "number", "default": 1.5}], "description": "How.", "default": "fast"},
            "tags": {"type": "array", "items": {"type": ["string", "null"]}},
            "filters": {"type": "object", "properties": {"after": {"type": "string"}, "flags": {"type": "array"}}, "required": ["after"]},
        },
        "required": ["query"],
    }
    system = SystemContent().with_conversation_start_date("2025-08-05")
    tool_round = Conversation.from_messages(
        [
            Message.from_role_and_content(Role.SYSTEM, system),
            Message.from_role_and_content(Role.DEVELOPER, DeveloperContent().with_instructions("Answer in one line.").with_function_tools([weather])),
            _msg("user", "Weather in Tokyo?"),
            _msg("assistant", "Need to call get_weather.", "analysis"),
            _msg("assistant", '{"location": "Tokyo"}', "commentary").with_recipient("functions.get_weather").with_content_type("<|constrain|>json"),
            Message.from_author_and_content(Author(Role.TOOL, "functions.get_weather"), '{"temp": 21}').with_channel("commentary").with_recipient("assistant"),
            _msg("assistant", "Got it.", "analysis"),
            _msg("assistant", "21 °C in Tokyo.", "final"),
        ]
    )
    builtins = Conversation.from_messages(
        [Message.from_role_and_content(Role.SYSTEM, system.with_browser_tool().with_python_tool()), _msg("user", "Search for harmony.")]
    )
    schemas = Conversation.from_messages([_dev(ToolDescription("search", "Searches.", schema), ToolDescription("ping", "No arguments."))])
    return {
        "tool_round_training": (tool_round, "training"),
        "builtin_tools_completion": (builtins, "completion"),
        "schema_features": (schemas, "conversation"),
        "analysis_drop_quirk": (_two_turns(), "conversation"),
    }


@pytest.mark.parametrize("name", sorted(_golden_cases()))
def test_golden(name, enc, reference_encoding):
    conv, mode = _golden_cases()[name]
    ref_conv = to_reference(conv)
    if mode == "training":
        ours, theirs = render_conversation_for_training(conv), reference_encoding.render_conversation_for_training(ref_conv)
    elif mode == "completion":
        ours = render_conversation_for_completion(conv)
        theirs = reference_encoding.render_conversation_for_completion(ref_conv, oh.Role.ASSISTANT)
    else:
        ours, theirs = render_conversation(conv), reference_encoding.render_conversation(ref_conv)
    path = GOLDEN / f"render_{name}.txt"
    if os.environ.get("HARMONY_VIZ_REGEN_GOLDEN"):
        # Golden text comes from the reference (the oracle), never from the code under test.
        path.write_text(reference_encoding.decode(theirs), encoding="utf-8")
    assert_same_tokens(ours, theirs, enc)
    golden = path.read_text(encoding="utf-8")
    if enc.decode(ours) != golden:
        raise AssertionError(f"{path.name} differs:\n" + token_diff(ours, enc.encode(golden, allowed_special="all"), enc))
