"""The same conversation in two layouts, and the token-level difference between them.

openai-harmony writes an assistant message's recipient in the role section
(``<|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json<|message|>``);
gpt-oss usually writes it after the channel
(``<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>``).
Both parse to the same message. difflib reports the move as whichever piece is shorter to
move, here the channel jumping in front of the recipient:

>>> from harmony_viz.render import Conversation, Message
>>> call = Message.from_role_and_content("assistant", "{}").with_channel("commentary").with_recipient("functions.f")
>>> d = render_diff(Conversation.from_messages([call]))
>>> [(op.tag, op.reference_text, op.model_text) for op in d.ops if op.tag != "equal"]
[('insert', '', '<|channel|>commentary'), ('delete', '<|channel|>commentary', '')]
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from typing import Any, Literal

from harmony_viz._playground._convert import RENDER_OPTIONS, render
from harmony_viz.render import Conversation, DeveloperContent, Message, Role, render_message
from harmony_viz.tokens import CHANNEL, MESSAGE, RETURN, START, encoding

Tag = Literal["equal", "replace", "delete", "insert"]


@dataclass(frozen=True, slots=True)
class DiffOp:
    """One difflib opcode: reference tokens [ref_start, ref_end) became model tokens [model_start, model_end)."""

    tag: Tag
    ref_start: int
    ref_end: int
    model_start: int
    model_end: int
    reference_text: str
    model_text: str

    def to_json(self) -> dict[str, Any]:
        return {"tag": self.tag, "ref": [self.ref_start, self.ref_end], "model": [self.model_start, self.model_end],
                "reference_text": self.reference_text, "model_text": self.model_text}


@dataclass(frozen=True, slots=True)
class RenderDiff:
    """Reference-layout and model-layout tokens of one conversation, and the opcodes between them."""

    reference: tuple[int, ...]
    model: tuple[int, ...]
    ops: tuple[DiffOp, ...]

    @property
    def identical(self) -> bool:
        return self.reference == self.model

    def to_json(self) -> dict[str, Any]:
        return {"reference": list(self.reference), "model": list(self.model), "ops": [op.to_json() for op in self.ops]}


def _has_function_tools(conv: Conversation) -> bool:
    # The renderer adds the routing line to the system message when a developer declares functions.
    return any(isinstance(c, DeveloperContent) and c.tools and "functions" in c.tools and c.tools["functions"].tools
               for m in conv.messages for c in m.content)


def model_layout_message(msg: Message, *, conversation_has_function_tools: bool = False) -> list[int]:
    """One message with its recipient after the channel, as models write it (only assistant messages move)."""
    ref = render_message(msg, conversation_has_function_tools=conversation_has_function_tools, options=RENDER_OPTIONS)
    if msg.author.role is not Role.ASSISTANT or msg.recipient is None or msg.recipient == "all":
        return ref
    # Reuse the renderer for each header piece rather than re-deriving its spelling rules.
    bare = render_message(replace(msg, recipient=None, channel=None, content_type=None, content=()))
    role_piece = bare[1:bare.index(MESSAGE)]
    typed = render_message(replace(msg, recipient=None, channel=None, content=()))
    type_piece = typed[1 + len(role_piece):typed.index(MESSAGE)]
    enc = encoding()
    header = [START, *role_piece]
    if msg.channel is not None:
        header += [CHANNEL, *enc.encode_ordinary(msg.channel)]
    header += enc.encode_ordinary(f" to={msg.recipient}") + type_piece
    return header + ref[ref.index(MESSAGE):]


def render_model_layout(conv: Conversation) -> list[int]:
    """The conversation with every assistant recipient written after the channel."""
    functions = _has_function_tools(conv)
    out: list[int] = []
    for m in conv.messages:
        out += model_layout_message(m, conversation_has_function_tools=functions)
    return out


def render_diff(conversation: Conversation) -> RenderDiff:
    """The conversation as openai-harmony renders it and as models write it, with the token diff (difflib)."""
    reference = render(conversation)
    model = render_model_layout(conversation)
    if reference and reference[-1] == RETURN:
        model[-1] = RETURN  # a finished conversation ends in <|return|> on both sides (see _convert.render)
    enc = encoding()
    matcher = difflib.SequenceMatcher(None, reference, model, autojunk=False)
    ops = tuple(
        DiffOp(tag, i1, i2, j1, j2, enc.decode(reference[i1:i2]), enc.decode(model[j1:j2]))  # type: ignore[arg-type]
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    )
    return RenderDiff(tuple(reference), tuple(model), ops)
