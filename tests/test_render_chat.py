"""Chat Completions request → Harmony conversation, checked against conversations written out by hand."""

from __future__ import annotations

import pytest
from test_render_helpers import assert_same_tokens, to_reference

from harmony_viz.render import (
    Author,
    Conversation,
    DeveloperContent,
    Message,
    ReasoningEffort,
    RenderError,
    Role,
    SystemContent,
    ToolDescription,
    conversation_from_chat,
    render_conversation,
)

WEATHER_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

REQUEST = {
    "model": "gpt-oss-20b",
    "reasoning_effort": "high",
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather now.", "parameters": WEATHER_SCHEMA}}],
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Weather in "}, {"type": "text", "text": "Oslo?"}]},
        {
            "role": "assistant",
            "reasoning_content": "Call the tool.",
            "content": "Checking.",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"temp": 3}'},
        {"role": "assistant", "content": "3 °C.", "reasoning": "Answer now."},
    ],
}


def _expected() -> Conversation:
    tool = ToolDescription("get_weather", "Weather now.", WEATHER_SCHEMA)
    return Conversation.from_messages(
        [
            Message.from_role_and_content(Role.SYSTEM, SystemContent(reasoning_effort=ReasoningEffort.HIGH)),
            Message.from_role_and_content(Role.DEVELOPER, DeveloperContent(instructions="Be brief.").with_function_tools([tool])),
            Message.from_role_and_content(Role.USER, "Weather in Oslo?"),
            Message.from_role_and_content(Role.ASSISTANT, "Call the tool.").with_channel("analysis"),
            Message.from_role_and_content(Role.ASSISTANT, "Checking.").with_channel("commentary"),
            Message.from_role_and_content(Role.ASSISTANT, '{"city":"Oslo"}')
            .with_channel("commentary")
            .with_recipient("functions.get_weather")
            .with_content_type("<|constrain|>json"),
            Message.from_author_and_content(Author(Role.TOOL, "functions.get_weather"), '{"temp": 3}')
            .with_channel("commentary")
            .with_recipient("assistant"),
            Message.from_role_and_content(Role.ASSISTANT, "Answer now.").with_channel("analysis"),
            Message.from_role_and_content(Role.ASSISTANT, "3 °C.").with_channel("final"),
        ]
    )


def test_request_maps_like_a_gpt_oss_server(enc, reference_encoding):
    conv = conversation_from_chat(REQUEST)
    assert conv == _expected()
    assert_same_tokens(render_conversation(conv), reference_encoding.render_conversation(to_reference(_expected())), enc)


def test_minimal_request_has_only_system_and_user():
    conv = conversation_from_chat({"messages": [{"role": "user", "content": "Hi"}]})
    assert conv == Conversation.from_messages(
        [Message.from_role_and_content(Role.SYSTEM, SystemContent()), Message.from_role_and_content(Role.USER, "Hi")]
    )


def test_start_date_and_later_system_message():
    conv = conversation_from_chat(
        {"messages": [{"role": "user", "content": "a"}, {"role": "developer", "content": "Now be formal."}]},
        conversation_start_date="2025-08-05",
    )
    assert conv.messages[0].content[0].conversation_start_date == "2025-08-05"
    assert conv.messages[2] == Message.from_role_and_content(Role.DEVELOPER, DeveloperContent(instructions="Now be formal."))


def test_parsed_arguments_are_written_as_json():
    req = {"messages": [{"role": "assistant", "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": {"a": 1}}}]}]}
    assert conversation_from_chat(req).messages[-1].content[0].text == '{"a": 1}'


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ({"messages": [{"role": "robot", "content": "x"}]}, "messages[0].role: unknown role 'robot'; expected one of system, developer, user, assistant, tool"),
        ({"messages": [{"role": "tool", "tool_call_id": "nope", "content": "x"}]}, "messages[0].tool_call_id: no assistant tool call has id 'nope'; a tool result must answer an earlier tool_calls entry"),
        ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}]}, "messages[0].content[0]: only text parts can be rendered, got 'image_url'; Harmony has no image or audio input"),
        ({"messages": [], "tools": [{"type": "web_search"}]}, "tools[0].type: only function tools can be declared, got 'web_search'"),
        ({"messages": [], "reasoning_effort": "max"}, "reasoning_effort: unknown reasoning effort 'max'; expected low, medium or high"),
        ({"model": "m"}, "messages: missing or not an array; a Chat Completions request has messages: [...]"),
    ],
)
def test_bad_requests_name_the_field(request_, message):
    with pytest.raises(RenderError) as info:
        conversation_from_chat(request_)
    assert str(info.value) == message
