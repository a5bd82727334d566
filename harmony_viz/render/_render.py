"""Conversation → Harmony token ids, token for token what openai-harmony 0.0.8 produces.

Each header piece is encoded on its own (role, ``:name``, `` to=recipient``, channel, content
type), as the reference does; encoding the joined text can merge tokens across the pieces.

>>> from harmony_viz.render import Message, Conversation, render_conversation
>>> render_conversation(Conversation.from_messages([Message.from_role_and_content("user", "Hi")]))
[200006, 1428, 200008, 12194, 200007]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from harmony_viz import tokens as _tok
from harmony_viz.findings import with_article
from harmony_viz.render._conversation import Conversation, Message
from harmony_viz.render._errors import RenderError
from harmony_viz.render._model import DeveloperContent, Role, SystemContent, TextContent
from harmony_viz.render._options import RenderOptions
from harmony_viz.render._sections import developer_text, system_text

__all__ = [
    "render_conversation",
    "render_conversation_for_completion",
    "render_conversation_for_training",
    "render_message",
    "render_text",
]

_CONSTRAIN_LITERAL = "<|constrain|>"


def _messages(conv: Conversation | Iterable[Message]) -> tuple[Message, ...]:
    msgs = conv.messages if isinstance(conv, Conversation) else tuple(conv)
    for i, m in enumerate(msgs):
        if not isinstance(m, Message):
            raise RenderError(f"messages[{i}]", f"expected a Message, got {type(m).__name__}")
    return msgs


def _has_function_tools(msgs: Sequence[Message]) -> bool:
    # The reference looks at the dict key "functions", not at the namespace's name.
    for m in msgs:
        for c in m.content:
            if isinstance(c, DeveloperContent) and c.tools and "functions" in c.tools and c.tools["functions"].tools:
                return True
    return False


def _kept(msgs: Sequence[Message], options: RenderOptions) -> list[tuple[int, Message]]:
    """The messages that are rendered, with their indexes (for error paths)."""
    indexed = list(enumerate(msgs))
    if not options.drop_analysis:
        return indexed
    if options.drop_analysis_before_last_final:
        last_final = max(
            (i for i, m in indexed if m.author.role is Role.ASSISTANT and m.channel == "final"), default=-1
        )
        return [(i, m) for i, m in indexed if not (i < last_final and m.channel == "analysis")]
    # Reference: only if the last assistant message is final, and only analysis before the
    # first message (of any role) on the final channel.
    last_assistant = next((m for m in reversed(msgs) if m.author.role is Role.ASSISTANT), None)
    if last_assistant is None or last_assistant.channel != "final":
        return indexed
    first_final = next((i for i, m in indexed if m.channel == "final"), None)
    if first_final is None:
        return indexed
    return [(i, m) for i, m in indexed if not (i < first_final and m.channel == "analysis")]


def render_message(
    msg: Message,
    *,
    conversation_has_function_tools: bool = False,
    options: RenderOptions | None = None,
    path: str = "message",
) -> list[int]:
    """One message as tokens; ``conversation_has_function_tools`` adds the routing line to system content."""
    options = options or RenderOptions()
    encode = _tok.encoding().encode_ordinary

    def text(s: str) -> list[int]:
        if not s.isascii():
            try:
                s.encode("utf-8")
            except UnicodeEncodeError as exc:
                # tiktoken would quietly substitute U+FFFD; the reference refuses such text.
                raise RenderError(path, f"text holds a lone surrogate {s[exc.start]!r}, which UTF-8 cannot carry; fix the source text") from None
        return encode(s)

    out = [_tok.START]
    if msg.author.role is Role.TOOL:
        if msg.author.name is None:
            raise RenderError(
                f"{path}.name", "a tool message needs an author name, the tool that answers (e.g. 'functions.get_weather')"
            )
        out += text(msg.author.name)
    else:
        out += text(msg.author.role.value)
        if msg.author.name is not None:
            out += text(f":{msg.author.name}")
    # "all" is the default audience, so the reference leaves it out of the header.
    if msg.recipient is not None and msg.recipient != "all":
        out += text(f" to={msg.recipient}")
    if msg.channel is not None:
        out.append(_tok.CHANNEL)
        out += text(msg.channel)
    if msg.content_type is not None:
        if msg.content_type.startswith(_CONSTRAIN_LITERAL):
            rest = msg.content_type[len(_CONSTRAIN_LITERAL) :]
            out += text(" ")
            out.append(_tok.CONSTRAIN)
            if rest:
                out += text(rest)
        else:
            out += text(f" {msg.content_type}")
    out.append(_tok.MESSAGE)
    for j, c in enumerate(msg.content):
        where = f"{path}.content[{j}]"
        if isinstance(c, TextContent):
            out += text(c.text)
        elif isinstance(c, SystemContent):
            if msg.author.role is not Role.SYSTEM:
                raise RenderError(where, f"system content may only appear in a system message, not in {with_article(msg.author.role.value)} message")
            out += text(system_text(c, conversation_has_function_tools, options, where))
        elif isinstance(c, DeveloperContent):
            if msg.author.role is not Role.DEVELOPER:
                raise RenderError(where, f"developer content may only appear in a developer message, not in {with_article(msg.author.role.value)} message")
            out += text(developer_text(c, options, where))
        else:
            raise RenderError(where, f"expected TextContent, SystemContent or DeveloperContent, got {type(c).__name__}")
    # Any recipient on an assistant message makes it a call, even the unprinted "all".
    out.append(_tok.CALL if msg.author.role is Role.ASSISTANT and msg.recipient is not None else _tok.END)
    return out


def render_conversation(conv: Conversation | Iterable[Message], *, options: RenderOptions | None = None) -> list[int]:
    """The conversation as token ids, like ``HarmonyEncoding.render_conversation``."""
    options = options or RenderOptions()
    msgs = _messages(conv)
    has_functions = _has_function_tools(msgs)
    out: list[int] = []
    for i, m in _kept(msgs, options):
        out += render_message(m, conversation_has_function_tools=has_functions, options=options, path=f"messages[{i}]")
    return out


def render_conversation_for_completion(
    conv: Conversation | Iterable[Message],
    role: Role | str = Role.ASSISTANT,
    *,
    options: RenderOptions | None = None,
) -> list[int]:
    """The conversation followed by ``<|start|>`` and ``role``: the prompt for the next turn."""
    next_role = Role.parse(role, "role")
    out = render_conversation(conv, options=options)
    out.append(_tok.START)
    out += _tok.encoding().encode_ordinary(next_role.value)
    return out


def render_conversation_for_training(
    conv: Conversation | Iterable[Message], *, options: RenderOptions | None = None
) -> list[int]:
    """The conversation, with the closing ``<|end|>`` made ``<|return|>`` when it ends in an assistant final."""
    msgs = _messages(conv)
    out = render_conversation(msgs, options=options)
    if msgs and msgs[-1].author.role is Role.ASSISTANT and msgs[-1].channel == "final" and out:
        out[-1] = _tok.RETURN
    return out


def render_text(
    conv: Conversation | Iterable[Message],
    *,
    for_completion: bool = False,
    role: Role | str = Role.ASSISTANT,
    options: RenderOptions | None = None,
) -> str:
    """The rendered conversation as text, control tokens spelled out (``<|start|>user<|message|>…``)."""
    ids = render_conversation_for_completion(conv, role, options=options) if for_completion else render_conversation(conv, options=options)
    return _tok.encoding().decode(ids)
