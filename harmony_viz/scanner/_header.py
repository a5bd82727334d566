"""Reading a message header (the text between ``<|start|>`` and ``<|message|>``).

The header is parsed as a whole once its end is known, from its text with the control
tokens ``<|channel|>`` and ``<|constrain|>`` spelled out. ``salvage`` mode is for headers
that never reached ``<|message|>``: parsing stops at the first thing that cannot be header
syntax, and the rest is returned as the body the model meant to write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harmony_viz.scanner._events import ContentKind
from harmony_viz.scanner._visibility import CHANNELS, message_kind

ROLES = ("system", "developer", "user", "assistant", "tool")
# Bare words accepted as a content type after the channel (llama.cpp PR #15158: `json`).
BARE_CONTENT_TYPES = frozenset(("json", "code", "text"))
# Builtin tools that are addressed without a namespace.
BARE_BUILTINS = frozenset(("python",))

_ITEM = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<chan><\|channel\|>)"
    r"|(?P<con><\|constrain\|>)"
    # A recipient, also written `to = x` or `to="x"`; it is normalised, diagnostics show it as written.
    r"|to\s*=\s*(?P<q>[\"']?)(?P<to>[^\s<>{}\[\]\"'(),;=]*)[\"']?"
    r"|(?P<word>[\w][\w.\-:/]*)"
    r"|(?P<other>.)",
    re.S,
)
_CHANNEL_VALUE = re.compile(r"(?!to\s*=)[^\s<]*")
_SPACE = re.compile(r"[ \t]*")
_TYPE_VALUE = re.compile(r"[\w.\-/+]*")
_KNOWN_CHANNEL = re.compile(r"analysis|commentary|final")

# (code, message, first char, end char) in header-text offsets; the severity is the code's, in DIAGNOSTIC_CODES.
RawDiag = tuple[str, str, int, int]


@dataclass(slots=True)
class Header:
    """Fields read from one header; ``content_at`` is where salvaged body text begins."""

    role: str
    name: str | None
    recipient: str | None
    channel: str | None
    content_type: str | None
    content_at: int | None = None
    diags: list[RawDiag] = field(default_factory=list)
    # Every <|channel|> part as written (the visibility rule reads them all); empty when none.
    channels: tuple[str, ...] = ()
    # A completion's header under a word that is no role: the model's text, in doubt (reasoning).
    role_in_doubt: bool = False

    @property
    def kind(self) -> ContentKind:
        channels = self.channels or ((self.channel,) if self.channel else ())
        return message_kind(self.role, self.recipient, channels, role_in_doubt=self.role_in_doubt)


def parse_header(text: str, role: str | None, *, salvage: bool, completion: bool = False) -> Header:
    """Parse header ``text``; ``role`` is given when the ``<|start|>role`` part was in the prompt.

    ``completion``: the header is in a bare completion, where every header is the model's.
    """
    reader = _Reader(text, role, salvage)
    reader.read()
    return reader.header(completion)


_STOP = -1  # an item reader's answer: the header ends here, the rest is the body (salvage)


class _Reader:
    """One header read item by item: each reader of an item gives the position after it,
    ``_STOP``, or None when the item is no header syntax (junk, or in salvage the body)."""

    __slots__ = ("text", "role", "salvage", "diags", "role_word", "recipient", "channel", "content_type", "channels", "content_at", "junk")

    def __init__(self, text: str, role: str | None, salvage: bool) -> None:
        self.text = text
        self.role = role
        self.salvage = salvage
        self.diags: list[RawDiag] = []
        self.role_word: str | None = None
        self.recipient: str | None = None
        self.channel: str | None = None
        self.content_type: str | None = None
        self.channels: list[str] = []
        self.content_at: int | None = None
        self.junk: list[list[int]] = []

    def read(self) -> None:
        text = self.text
        pos, n = 0, len(text)
        while pos < n:
            m = _ITEM.match(text, pos)
            if m is None:  # unreachable: the last alternative matches any character
                break
            kind = m.lastgroup
            if kind == "ws":
                pos = m.end()
                continue
            if kind == "chan":
                after = self._channel(m)
            elif kind == "con":
                after = self._constrain(m)
            elif kind == "to" and m.group("to"):
                after = self._recipient(m)
            elif kind == "word":
                after = self._word(m)
            else:
                after = None
            if after is None:
                if self.salvage:
                    self.content_at = m.start()
                    break
                if self.junk and self.junk[-1][1] == m.start():
                    self.junk[-1][1] = m.end()
                else:
                    self.junk.append([m.start(), m.end()])
                after = m.end()
            elif after == _STOP:
                break
            pos = after
        for start, end in self.junk:
            self.diags.append(("header-junk", f"unexpected {text[start:end][:40]!r} in the header, ignored", start, end))

    def _channel(self, m: re.Match[str]) -> int:
        """``<|channel|>`` and the name after it."""
        text, diags, channels = self.text, self.diags, self.channels
        spaces = _SPACE.match(text, m.end())
        space_end = spaces.end() if spaces else m.end()
        value_m = _CHANNEL_VALUE.match(text, space_end)
        value = value_m.group() if value_m else ""
        value_end = value_m.end() if value_m else space_end
        if channels:
            diags.append(("duplicate-channel", "a second <|channel|> in one header; the first valid channel is the message's channel, and the message is reasoning unless every part is commentary or final", m.start(), value_end))
        norm = value.lower()
        if norm in CHANNELS:
            channels.append(value)
            if value != norm or space_end > m.end():
                diags.append(("bad-channel", f"channel written as {text[m.end():value_end]!r}; read as {norm!r}", m.start(), value_end))
            self.channel = self.channel or norm
            return value_end
        known = _KNOWN_CHANNEL.search(value)
        if self.salvage and value and value_end == len(text) and any(c.startswith(value) for c in CHANNELS):
            # The stream was cut inside the channel name (`<|channel|>analy`): complete it.
            completed = next(c for c in CHANNELS if c.startswith(value))
            channels.append(completed)
            self.channel = self.channel or completed
            return len(text)
        if self.salvage and known is not None and known.start() == 0:
            # `final{"a": 1}` with no <|message|>: the channel name, then the body.
            channels.append(known.group())
            self.channel = self.channel or known.group()
            return m.end() + known.end()
        channels.append(value)
        if self.salvage and value and known is None:
            self.content_at = value_m.start() if value_m else space_end
            diags.append(("bad-channel", f"channel {value[:40]!r} is not analysis, commentary or final; its text is reasoning", m.start(), value_end))
            return _STOP
        if value:
            fix = f"; its text is reasoning (the name {known.group()!r} is inside it)" if known else "; its text is reasoning"
            diags.append(("bad-channel", f"channel {value[:40]!r} is not analysis, commentary or final{fix}", m.start(), value_end))
        else:
            diags.append(("bad-channel", "<|channel|> with no channel name after it; its text is reasoning", m.start(), value_end))
        if self.channel is None and known is not None:
            self.channel = known.group()
        return value_end

    def _constrain(self, m: re.Match[str]) -> int:
        """``<|constrain|>`` and the content type after it."""
        text = self.text
        type_m = _TYPE_VALUE.match(text, m.end())
        type_value, type_end = (type_m.group(), type_m.end()) if type_m else ("", m.end())
        glued = type_end < len(text) and not text[type_end].isspace() and text[type_end] != "<"
        if self.salvage and glued:
            # `<|constrain|>name":"x"…`: what follows is the body, not a content type.
            self.content_at = m.end()
            return _STOP
        if type_value:
            if self.content_type is None:
                self.content_type = "<|constrain|>" + type_value
            return type_end
        if self.salvage:
            self.content_at = m.end()
            return _STOP
        self.diags.append(("header-junk", "<|constrain|> with no content type after it", m.start(), m.end()))
        return m.end()

    def _recipient(self, m: re.Match[str]) -> int:
        """``to=x`` (also written ``to = x`` or ``to="x"``)."""
        to = m.group("to")
        if m.group() != "to=" + to:
            self.diags.append(("recipient-format", f"recipient written as {m.group()!r}; read as to={to}", m.start(), m.end()))
        if self.recipient is None:
            self.recipient = to
        elif to != self.recipient:
            self.diags.append(("header-junk", f"a second recipient {m.group()!r}; the first, to={self.recipient}, is kept", m.start(), m.end()))
        return m.end()

    def _word(self, m: re.Match[str]) -> int | None:
        """A bare word: the role, a channel name without its token, or a bare content type."""
        word = m.group()
        if self.role is None and self.role_word is None and not self.channels and self.recipient is None and self.content_type is None:
            if not self.salvage or word in ROLES or word in CHANNELS or "." in word:
                self.role_word = word
                return m.end()
        if not self.channels and self.content_type is None and word.lower() in CHANNELS:
            # `analysis<|message|>`: the <|channel|> token was lost, the name is still there.
            self.channels.append(word)
            self.channel = word.lower()
            self.diags.append(("channel-without-token", f"channel name {word!r} written without <|channel|>; read as the channel", m.start(), m.end()))
            return m.end()
        if self.content_type is None and word in BARE_CONTENT_TYPES:
            self.content_type = word
            return m.end()
        return None

    def header(self, completion: bool) -> Header:
        """The fields read, with the role worked out (given, written, or a tool's name)."""
        diags, channels, role_word = self.diags, self.channels, self.role_word
        channel = self.channel
        name: str | None = None
        in_doubt = False
        if self.role is not None:
            final_role = self.role
        elif role_word is None:
            diags.append(("bad-role", "no role after <|start|>; read as assistant", 0, 0))
            final_role = "assistant"
        elif role_word in CHANNELS:
            diags.append(("bad-role", f"{role_word!r} is a channel, not a role; read as an assistant message on {role_word}", 0, len(role_word)))
            final_role = "assistant"
            channel = channel or role_word
            channels.insert(0, role_word)
        elif role_word in ROLES:
            final_role = role_word
            # openai-harmony names a message whose author is "tool" after it.
            name = "tool" if role_word == "tool" else None
        else:
            final_role, name = "tool", role_word
            if "." not in role_word and self.recipient is None:
                in_doubt = completion
                read = "in a completion, where every message is the model's: its text is reasoning (in doubt)" if completion else "read as the name of a tool replying"
                diags.append(("unknown-role", f"{role_word!r} is not a role (system, developer, user, assistant, tool); {read}", 0, len(role_word)))
        return Header(final_role, name, self.recipient, channel, self.content_type, self.content_at, diags, tuple(channels), in_doubt)


def header_warnings(h: Header, end: int) -> list[RawDiag]:
    """Warnings for a header that parsed: suspicious but readable (span: the whole header)."""
    out: list[RawDiag] = []
    if h.role != "assistant":
        return out
    if h.channel is None and not h.channels:
        out.append(("missing-channel", "assistant message without <|channel|>; read as final (history re-rendered by servers looks like this)", 0, end))
    r = h.recipient
    if r is None:
        return out
    if r == "assistant":
        hidden = "; read as reasoning" if h.kind == "reasoning" else "; ignored"
        out.append(("recipient-is-assistant", f"to=assistant on an assistant message: not a tool call{hidden}", 0, end))
        return out
    if "." not in r and r not in BARE_BUILTINS:
        out.append(("recipient-without-namespace", f"recipient {r!r} has no namespace (expected functions.{r} or a builtin)", 0, end))
    if h.channel == "analysis" and r.startswith("functions."):
        out.append(("call-on-analysis", f"function call to {r} on the analysis channel (expected commentary)", 0, end))
    return out


_STRIPPED_START = re.compile(r"\s*(?:assistant)?(analysis|commentary|final)")
_STRIPPED_MARK = re.compile(r"assistant(analysis|commentary|final)")


def split_stripped(text: str) -> list[tuple[str, int, int, int]] | None:
    """Split ``analysis…assistantfinal…`` (control tokens stripped by a server) into messages.

    Returns (channel, header start, body start, body end) per message, or None when the
    text does not look stripped (it must open with a channel name and hold at least one
    ``assistant<channel>`` seam).
    """
    first = _STRIPPED_START.match(text)
    if first is None:
        return None
    marks = [m for m in _STRIPPED_MARK.finditer(text, first.end())]
    if not marks:
        return None
    out = []
    head_start, channel, body_start = 0, first.group(1), first.end()
    for m in marks:
        out.append((channel, head_start, body_start, m.start()))
        head_start, channel, body_start = m.start(), m.group(1), m.end()
    out.append((channel, head_start, body_start, len(text)))
    return out
