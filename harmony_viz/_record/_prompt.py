"""Prompts and tool results as tokens, always through our renderer.

The prompt is system (effort, date) + developer (instructions, function tools) + user,
rendered for completion (it ends in ``<|start|>assistant``). A tool result is rendered as
the tool's message followed by ``<|start|>assistant``, and appended to the token stream
as it stands, so the model's own tokens (analysis before a call included) are kept
exactly as generated.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable

from harmony_viz._record._tools import Tool, ToolResult
from harmony_viz.render import Author, Conversation, DeveloperContent, Message, Role, SystemContent, ToolDescription, render_conversation_for_completion


def today() -> str:
    """Today's date (UTC) as the system message writes it, ``YYYY-MM-DD``."""
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


def build_conversation(
    prompt: str,
    *,
    effort: str = "medium",
    date: str | None = None,
    instructions: str | None = None,
    tools: Iterable[Tool] = (),
) -> Conversation:
    """The conversation a recording starts from: system, developer (when needed), user."""
    system = SystemContent.new().with_reasoning_effort(effort).with_conversation_start_date(date or today())
    messages = [Message.from_role_and_content(Role.SYSTEM, system)]
    described = [ToolDescription.new(t.name, t.description, dict(t.parameters)) for t in tools]
    if instructions or described:
        developer = DeveloperContent.new()
        if instructions:
            developer = developer.with_instructions(instructions)
        if described:
            developer = developer.with_function_tools(described)
        messages.append(Message.from_role_and_content(Role.DEVELOPER, developer))
    messages.append(Message.from_role_and_content(Role.USER, prompt))
    return Conversation.from_messages(messages)


def render_prompt(conversation: Conversation) -> list[int]:
    """Prompt tokens: the conversation rendered for the assistant's completion."""
    return render_conversation_for_completion(conversation, Role.ASSISTANT)


def tool_message(recipient: str, result: ToolResult) -> Message:
    """The tool's reply, addressed back to the assistant on the commentary channel."""
    return (
        Message.from_author_and_content(Author.new(Role.TOOL, recipient), result.content)
        .with_recipient("assistant")
        .with_channel("commentary")
    )


def render_tool_turn(recipient: str, result: ToolResult) -> list[int]:
    """Tokens the harness appends after ``<|call|>``: the tool message, then ``<|start|>assistant``."""
    return render_conversation_for_completion(Conversation.from_messages([tool_message(recipient, result)]), Role.ASSISTANT)
