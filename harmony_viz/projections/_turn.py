"""The turn being projected: the scanner's message records, and what a projection tracks beside them.

A server's answer is one assistant turn, so the turn keeps only the assistant messages
after the last message from anyone else (system, developer, user, tool). A completion's message
under a word that is no role is the assistant's too (``is_assistants``: reasoning, in doubt). A transcript that
holds a prompt and earlier turns thus projects its last turn; a bare completion projects
whole. The events go through the scanner's own :class:`~harmony_viz.scanner.MessageFold`,
so each message's fields, kind and visibility are the scanner's record, by the one rule.
Reading is incremental (``add`` per step), which is what lets the widget ask for "the API
view as of step k" without re-reading the stream.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from harmony_viz.scanner import END_OF_TEXT_CODES, ContentDelta, Diagnostic, Event, Message, MessageEnd, MessageFold, MessageStart, ToolCallEnd, is_assistants

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


def _of_record(name: str) -> Any:
    return property(lambda self: getattr(self.record, name), doc=f"The scanner record's ``{name}``.")


@dataclass(slots=True)
class TurnMessage:
    """One assistant message of the turn, as far as it has been read (mutable while open).

    ``record`` is the scanner's :class:`~harmony_viz.scanner.Message` (its header fields, kind
    and visibility; its arguments once the call is complete); ``parts`` the fold's live list
    of body pieces. Beside them: the call's target, the sizes a usage counts, how it ended.
    """

    record: Message
    call: CallTarget | None
    header_units: int
    parts: list[str] = field(default_factory=list)
    content_units: int = 0
    terminator: str | None = None
    end_units: int = 0
    function_index: int = -1  # position among the turn's tool calls, for call ids
    _text: str | None = None
    _joined: int = 0
    token_cache: int | None = None  # body tokens when spans are characters (see usage)

    # The header's fields and the call's arguments are the record's own.
    message = _of_record("index")
    channel = _of_record("channel")
    content_type = _of_record("content_type")
    kind = _of_record("kind")
    arguments = _of_record("arguments")
    parsed = _of_record("parsed")

    @property
    def recipient(self) -> str | None:
        """The recipient of a call; None for any other message (``to=assistant`` is no call)."""
        return self.record.recipient if self.record.kind == "tool_call" else None

    @property
    def text(self) -> str:
        # Joined lazily and cached: a projection per step stays linear in the new text.
        if self._text is None or self._joined != len(self.parts):
            self._text, self._joined = "".join(self.parts), len(self.parts)
        return self._text

    @property
    def body(self) -> str:
        """The body as an API shows it: verbatim arguments for calls, else the text."""
        if self.call is not None and self.arguments is not None:
            return self.arguments
        return self.text

    @property
    def is_preamble(self) -> bool:
        return self.record.kind == "preamble"

    @property
    def is_visible(self) -> bool:
        """Text a user may see as the answer: the record's visibility (see ``harmony_viz.scanner.visibility``)."""
        return self.record.visibility == "visible"

    @property
    def is_reasoning(self) -> bool:
        """Chain of thought, or text whose header leaves it in doubt: the record's visibility."""
        return self.record.visibility == "reasoning"

    @property
    def is_tool_call(self) -> bool:
        return self.call is not None and self.call.is_tool_call


class Turn:
    """The assistant turn folded so far; feed it events with ``add``.

    ``declared``: the tool names the request declared (see :func:`declared_names`).
    """

    def __init__(self, declared: frozenset[str] = frozenset()) -> None:
        self.declared = declared
        # The scanner's own fold makes the records; bodies are read whole here, not piece by piece.
        self.fold = MessageFold(spans=False)
        self.messages: list[TurnMessage] = []
        self._by_index: dict[int, TurnMessage] = {}
        self.functions = 0
        self.resets = 0
        # The stream's last message (of any role) or header was cut off by the end of the stream.
        self.ended_by_eos = False
        # Span checks used to tell token spans from character spans (see usage).
        self.span_votes = {"tokens": 0, "chars": 0}
        # Where the turn's first message starts (everything before it is the prompt) and how far
        # the events reach, in the stream's units.
        self.start: int | None = None
        self.seen = 0
        # Where <|endoftext|> ended the stream (None when it did not): nothing from there is output.
        self.stream_end: int | None = None

    def reset(self) -> None:
        self.messages = []
        self._by_index = {}
        self.functions = 0
        self.resets += 1
        self.start = None

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
        fold = self.fold
        for ev in events:
            if ev.end > self.seen:
                self.seen = ev.end
            if type(ev) is ContentDelta:
                msg = self._by_index.get(ev.message)
                if msg is None:
                    fold.add(ev)
                    continue
                # The hot path: msg.parts is the fold's own list for this message (spans=False: a
                # delta is its text), so appending here is the fold's add, one call cheaper.
                msg.parts.append(ev.text)
                if ev.end - ev.start != len(ev.text):
                    self.span_votes["tokens"] += 1
                msg.token_cache = None
                msg.content_units += ev.end - ev.start
                if ev.text:
                    changes.append(("delta", msg, ev.text))
                continue
            if type(ev) is MessageStart and not is_assistants(ev.role, ev.kind):
                # a message from anyone else begins a new turn; the fold need not read it (the turn keeps none of it)
                self.ended_by_eos = False
                self.reset()
                changes.append(("reset", None, ""))  # type: ignore[arg-type]
                continue
            fold.add(ev)
            if isinstance(ev, MessageStart):
                self.ended_by_eos = False
                self._close_open("<|start|>", changes)
                if self.start is None:
                    self.start = ev.start
                record = fold.record(ev.message)
                if record is None:  # cannot happen: the fold has just read this header
                    continue
                call = classify_recipient(record.recipient, self.declared) if record.kind == "tool_call" and record.recipient else None
                msg = TurnMessage(record, call, ev.end - ev.start, fold.pieces(ev.message))
                if call is not None and call.is_tool_call:
                    msg.function_index = self.functions
                    self.functions += 1
                self.messages.append(msg)
                self._by_index[ev.message] = msg
                changes.append(("start", msg, ""))
            elif isinstance(ev, ToolCallEnd):
                msg = self._by_index.get(ev.message)
                if msg is not None:
                    msg.record = fold.record(ev.message) or msg.record  # now with its arguments
                    changes.append(("call", msg, ev.arguments))
            elif isinstance(ev, Diagnostic):
                if ev.code == "eos-in-header":
                    self.ended_by_eos = True
                elif ev.code in END_OF_TEXT_CODES:
                    self.stream_end = ev.start
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
