"""The turn being projected: scanner events folded into per-message records.

A server's answer is one assistant turn, so the fold keeps only the assistant messages
after the last message from anyone else (system, developer, user, tool). A transcript that
holds a prompt and earlier turns thus projects its last turn; a bare completion projects
whole. Folding is incremental (``add`` per step), which is what lets the widget ask for
"the API view as of step k" without re-reading the stream.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from harmony_viz.scanner import ContentDelta, Diagnostic, Event, MessageEnd, MessageStart, ToolCallEnd, is_visible

CallCategory = Literal["function", "builtin", "mcp"]

# Namespaces a gpt-oss server runs itself; never function calls (vLLM, seed 001).
BUILTIN_NAMESPACES = frozenset({"browser", "python", "container"})


@dataclass(frozen=True, slots=True)
class CallTarget:
    """Where a tool call goes.

    ``category``: ``function`` (``functions.*``, or a name the request declared), ``builtin``
    (browser, python, container: the server runs them) or ``mcp`` (any other name). ``name``
    is the name a Responses item shows, ``server_label`` the MCP server, and ``recipient``
    the recipient as normalised by the scanner.
    """

    category: CallCategory
    name: str
    server_label: str | None = None
    recipient: str = ""

    @property
    def chat_name(self) -> str:
        """The name in a Chat Completions ``tool_calls`` entry: ``functions.`` dropped, other dots kept (as vLLM does)."""
        if self.recipient.startswith("functions."):
            return self.recipient[len("functions.") :]
        return self.recipient or self.name

    @property
    def is_tool_call(self) -> bool:
        """True when Chat Completions shows it in ``tool_calls`` (every call but the builtins)."""
        return self.category != "builtin"


def classify_recipient(recipient: str, declared: frozenset[str] = frozenset()) -> CallTarget:
    """Sort a recipient into function / builtin / MCP call; ``declared`` holds the request's tool names.

    >>> classify_recipient("functions.get_weather")
    CallTarget(category='function', name='get_weather', server_label=None, recipient='functions.get_weather')
    >>> classify_recipient("browser.search").category
    'builtin'
    >>> classify_recipient("github.create_issue")
    CallTarget(category='mcp', name='create_issue', server_label='github', recipient='github.create_issue')
    >>> classify_recipient("lookup_order", frozenset({"lookup_order"})).category
    'function'
    """
    if recipient.startswith("functions."):
        return CallTarget("function", recipient[len("functions.") :], None, recipient)
    head, dot, tail = recipient.partition(".")
    if head in BUILTIN_NAMESPACES:
        return CallTarget("builtin", recipient, None, recipient)
    if recipient in declared:
        return CallTarget("function", recipient, None, recipient)
    if dot:
        return CallTarget("mcp", tail, head, recipient)
    return CallTarget("mcp", recipient, recipient, recipient)


def declared_names(tools: Iterable[object] | None) -> frozenset[str]:
    """Tool names from a ``tools`` list: Chat Completions or Responses tool objects, or plain names.

    >>> sorted(declared_names([{"type": "function", "function": {"name": "a"}}, {"type": "function", "name": "b"}, "c"]))
    ['a', 'b', 'c']
    """
    names: set[str] = set()
    for tool in tools or ():
        if isinstance(tool, str):
            names.add(tool)
        elif isinstance(tool, Mapping):
            fn = tool.get("function")
            name = fn.get("name") if isinstance(fn, Mapping) else tool.get("name")
            if isinstance(name, str) and name:
                names.add(name)
        else:
            name = getattr(tool, "name", None)
            if isinstance(name, str):
                ns = getattr(tool, "namespace", "functions")
                names.add(name if ns in (None, "functions") else f"{ns}.{name}")
    return frozenset(names)


@dataclass(slots=True)
class TurnMessage:
    """One assistant message of the turn, as far as it has been read (mutable while open)."""

    message: int
    channel: str | None
    recipient: str | None
    content_type: str | None
    kind: str
    call: CallTarget | None
    header_units: int
    parts: list[str] = field(default_factory=list)
    content_units: int = 0
    arguments: str | None = None
    parsed: object = None
    terminator: str | None = None
    end_units: int = 0
    function_index: int = -1  # position among the turn's tool calls, for call ids
    _text: str | None = None
    token_cache: int | None = None  # body tokens when spans are characters (see usage)

    @property
    def text(self) -> str:
        # Joined lazily and cached: a projection per step stays linear in the new text.
        if self._text is None:
            self._text = "".join(self.parts)
        return self._text

    @property
    def body(self) -> str:
        """The body as an API shows it: verbatim arguments for calls, else the text."""
        if self.call is not None and self.arguments is not None:
            return self.arguments
        return self.text

    @property
    def is_preamble(self) -> bool:
        return self.call is None and self.kind == "preamble"

    @property
    def is_visible(self) -> bool:
        """Text a user may see as the answer, by the one visibility rule (see ``harmony_viz.scanner.visibility``)."""
        return self.call is None and is_visible(self.kind)

    @property
    def is_reasoning(self) -> bool:
        """Not a call and not visible: chain of thought, or text whose header leaves it in doubt."""
        return self.call is None and not is_visible(self.kind)

    @property
    def is_tool_call(self) -> bool:
        return self.call is not None and self.call.is_tool_call


class Turn:
    """The assistant turn folded so far; feed it events with ``add``.

    ``declared``: the tool names the request declared (see :func:`declared_names`).
    """

    def __init__(self, declared: frozenset[str] = frozenset()) -> None:
        self.declared = declared
        self.messages: list[TurnMessage] = []
        self._by_index: dict[int, TurnMessage] = {}
        self.functions = 0
        self.resets = 0
        # The stream's last message (of any role) or header was cut off by the end of the stream.
        self.ended_by_eos = False
        # Span checks used to tell token spans from character spans (see usage).
        self.span_votes = {"tokens": 0, "chars": 0}

    def reset(self) -> None:
        self.messages = []
        self._by_index = {}
        self.functions = 0
        self.resets += 1

    @property
    def open(self) -> TurnMessage | None:
        if self.messages and self.messages[-1].terminator is None:
            return self.messages[-1]
        return None

    def add(self, events: Iterable[Event]) -> list[tuple[str, TurnMessage, str]]:
        """Fold ``events`` in; return the changes as ``(what, message, text)`` triples.

        ``what`` is ``reset`` (a non-assistant message began a new turn), ``start``,
        ``delta`` (``text`` added), ``call`` (arguments known) or ``end``.
        """
        changes: list[tuple[str, TurnMessage, str]] = []
        for ev in events:
            if type(ev) is ContentDelta:
                msg = self._by_index.get(ev.message)
                if msg is None:
                    continue
                if ev.end - ev.start != len(ev.text):
                    self.span_votes["tokens"] += 1
                msg.parts.append(ev.text)
                msg._text = None
                msg.token_cache = None
                msg.content_units += ev.end - ev.start
                if ev.text:
                    changes.append(("delta", msg, ev.text))
            elif isinstance(ev, MessageStart):
                self.ended_by_eos = False
                if ev.role != "assistant":
                    self.reset()
                    changes.append(("reset", None, ""))  # type: ignore[arg-type]
                    continue
                self._close_open("<|start|>", changes)
                recipient = ev.recipient if ev.kind == "tool_call" else None
                call = classify_recipient(recipient, self.declared) if recipient else None
                msg = TurnMessage(
                    ev.message, ev.channel, recipient, ev.content_type, ev.kind, call, ev.end - ev.start
                )
                if call is not None and call.is_tool_call:
                    msg.function_index = self.functions
                    self.functions += 1
                self.messages.append(msg)
                self._by_index[ev.message] = msg
                changes.append(("start", msg, ""))
            elif isinstance(ev, ToolCallEnd):
                msg = self._by_index.get(ev.message)
                if msg is not None:
                    msg.arguments = ev.arguments
                    msg.parsed = ev.parsed
                    changes.append(("call", msg, ev.arguments))
            elif isinstance(ev, Diagnostic):
                if ev.code == "eos-in-header":
                    self.ended_by_eos = True
            elif isinstance(ev, MessageEnd):
                self.ended_by_eos = ev.terminator == "eos"
                msg = self._by_index.get(ev.message)
                if msg is None or msg.terminator is not None:
                    continue
                msg.terminator = ev.terminator
                msg.end_units = ev.end - ev.start
                if ev.terminator in ("<|end|>", "<|call|>", "<|return|>"):
                    width = ev.end - ev.start
                    if width == 1:
                        self.span_votes["tokens"] += 1
                    elif width == len(ev.terminator):
                        self.span_votes["chars"] += 1
                changes.append(("end", msg, ""))
        return changes

    def finish(self) -> list[tuple[str, TurnMessage, str]]:
        """End of stream: a message still open was cut off."""
        changes: list[tuple[str, TurnMessage, str]] = []
        self._close_open("eos", changes)
        return changes

    def _close_open(self, terminator: str, changes: list[tuple[str, TurnMessage, str]]) -> None:
        msg = self.open
        if msg is not None:
            self.ended_by_eos = terminator == "eos"
            msg.terminator = terminator
            changes.append(("end", msg, ""))

    @property
    def cut_off(self) -> bool:
        """The stream ended inside a message (of any role) or a header: a server says ``length``."""
        return self.ended_by_eos or (bool(self.messages) and self.messages[-1].terminator == "eos")

    @property
    def has_tool_calls(self) -> bool:
        return self.functions > 0
