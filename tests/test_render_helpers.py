"""Helpers shared by the render tests: the reference conversation, and a readable token diff.

Not a test module by itself; ``test_render_*`` files import from it.
"""

from __future__ import annotations

import openai_harmony as oh

from harmony_viz.render import Conversation, DeveloperContent, SystemContent, TextContent, ToolNamespaceConfig


def _ref_namespace(ns: ToolNamespaceConfig) -> oh.ToolNamespaceConfig:
    return oh.ToolNamespaceConfig(
        name=ns.name,
        description=ns.description,
        tools=[oh.ToolDescription.new(t.name, t.description, t.parameters) for t in ns.tools],
    )


def _ref_tools(tools):
    return None if tools is None else {k: _ref_namespace(v) for k, v in tools.items()}


def _ref_content(c):
    if isinstance(c, TextContent):
        return oh.TextContent(text=c.text)
    if isinstance(c, SystemContent):
        cfg = c.channel_config
        return oh.SystemContent(
            model_identity=c.model_identity,
            reasoning_effort=None if c.reasoning_effort is None else oh.ReasoningEffort(c.reasoning_effort.value),
            conversation_start_date=c.conversation_start_date,
            knowledge_cutoff=c.knowledge_cutoff,
            channel_config=None
            if cfg is None
            else oh.ChannelConfig(valid_channels=list(cfg.valid_channels), channel_required=cfg.channel_required),
            tools=_ref_tools(c.tools),
        )
    assert isinstance(c, DeveloperContent)
    return oh.DeveloperContent(instructions=c.instructions, tools=_ref_tools(c.tools))


def to_reference(conv: Conversation) -> oh.Conversation:
    """The same conversation built through openai_harmony's Python API."""
    return oh.Conversation.from_messages(
        [
            oh.Message(
                author=oh.Author(role=oh.Role(m.author.role.value), name=m.author.name),
                content=[_ref_content(c) for c in m.content],
                channel=m.channel,
                recipient=m.recipient,
                content_type=m.content_type,
            )
            for m in conv.messages
        ]
    )


def token_diff(actual: list[int], expected: list[int], enc) -> str:
    """Both token streams side by side, decoded token by token, from the first difference on."""
    first = next((i for i, (a, b) in enumerate(zip(actual, expected)) if a != b), min(len(actual), len(expected)))
    lines = [f"token streams differ at index {first} (actual {len(actual)} tokens, expected {len(expected)})"]
    lines.append(f"{'i':>5}  {'actual':<32} expected")
    for i in range(max(0, first - 3), min(max(len(actual), len(expected)), first + 12)):
        cells = []
        for seq in (actual, expected):
            cells.append(f"{seq[i]} {enc.decode([seq[i]])!r}" if i < len(seq) else "-")
        mark = "!" if i >= len(actual) or i >= len(expected) or actual[i] != expected[i] else " "
        lines.append(f"{i:>5}{mark} {cells[0]:<32} {cells[1]}")
    return "\n".join(lines)


def assert_same_tokens(actual: list[int], expected: list[int], enc) -> None:
    """Fail with a token-by-token decoded diff when the streams differ."""
    if actual != expected:
        raise AssertionError(token_diff(actual, expected, enc))
