"""Conversation → Harmony tokens, identical to openai-harmony 0.0.8 (see ``RenderOptions`` for the fixes).

>>> from harmony_viz.render import Conversation, Message, render_text
>>> render_text(Conversation.from_messages([Message.from_role_and_content("user", "Hi")]))
'<|start|>user<|message|>Hi<|end|>'
"""

from __future__ import annotations

from harmony_viz.render._chat import conversation_from_chat
from harmony_viz.render._conversation import Conversation, Message
from harmony_viz.render._errors import RenderError
from harmony_viz.render._json import parse_json_text
from harmony_viz.render._model import (
    Author,
    ChannelConfig,
    Content,
    DeveloperContent,
    ReasoningEffort,
    Role,
    SystemContent,
    TextContent,
    ToolDescription,
    ToolNamespaceConfig,
)
from harmony_viz.render._options import RenderOptions
from harmony_viz.render._render import render_conversation, render_conversation_for_completion, render_conversation_for_training, render_message, render_text
from harmony_viz.render._schema_ts import schema_to_typescript

__all__ = [
    "Author",
    "ChannelConfig",
    "Content",
    "Conversation",
    "DeveloperContent",
    "Message",
    "ReasoningEffort",
    "RenderError",
    "RenderOptions",
    "Role",
    "SystemContent",
    "TextContent",
    "ToolDescription",
    "ToolNamespaceConfig",
    "conversation_from_chat",
    "parse_json_text",
    "render_conversation",
    "render_conversation_for_completion",
    "render_conversation_for_training",
    "render_message",
    "render_text",
    "schema_to_typescript",
]
