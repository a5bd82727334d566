"""Lints: the dialect's rules for model output, and checks on the prompt itself.

A stream can be well-formed Harmony and still break the rules gpt-oss was trained on (a
call to an undeclared tool, arguments that miss the schema, reasoning on a user-visible
channel), or come from a prompt that makes the model fail (no ``commentary`` channel, the
analysis of a pending tool call dropped). ``lint`` reports both as scanner-shaped
Diagnostics, with spans pointing at the tokens responsible.

>>> from harmony_viz._lint import lint
>>> text = ("<|start|>assistant<|channel|>commentary to=functions.get_wether"
...         '<|message|>{"city": "Paris"}<|call|>')
>>> tools = [{"type": "function", "function": {"name": "get_weather",
...          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
>>> [(d.code, d.severity) for d in lint(text, tools=tools)]
[('undeclared-tool', 'error')]
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from typing import Any

from harmony_viz._lint._codes import CODES
from harmony_viz._lint._tools import DeclaredTool, ToolParseError, tools_from_json
from harmony_viz._lint._typescript import TypeScriptProblem, read_typescript, tools_from_typescript
from harmony_viz._lint._view import build_views
from harmony_viz.scanner import Diagnostic

__all__ = [
    "CODES",
    "DeclaredTool",
    "ToolParseError",
    "TypeScriptProblem",
    "build_views",
    "declared_tools",
    "lint",
    "lint_messages",
    "lint_prompt",
    "read_typescript",
    "select",
    "tools_from_json",
    "tools_from_typescript",
]

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}

Tools = Sequence[DeclaredTool] | Sequence[Mapping[str, Any]] | Mapping[str, Any] | str


def _views(source: Any, role: str | None) -> list[Any]:
    """Message views of ``source``: a ScanResult, or anything :func:`harmony_viz.inputs.read` reads (text, ids, a path, a run…)."""
    return _scan_views(source, role)[0]


def _scan_views(source: Any, role: str | None) -> tuple[list[Any], tuple[Diagnostic, ...], Any, str | None]:
    """The message views of ``source``, the scanner's own diagnostics of it, the text or ids scanned (None for a ScanResult),
    and the input's kind when it was a request (``chat``) or a conversation, else None."""
    if hasattr(source, "events") and hasattr(source, "messages"):
        # Already scanned: spans count characters when every piece is as long as its text.
        deltas = [e for e in source.events if type(e).__name__ == "ContentDelta"]
        unit = "chars" if deltas and all(e.end - e.start == len(e.text) for e in deltas) else "tokens"
        return build_views(source, unit=unit), tuple(source.diagnostics), None, None
    from harmony_viz.inputs import read
    from harmony_viz.scanner import scan

    found = read(source)
    if found.kind in ("conversation", "chat"):
        ids = prompt_ids(found)
        result = scan(ids)  # all prompt: no role, whatever ``role`` says
        return build_views(result, unit="tokens"), tuple(result.diagnostics), ids, found.kind
    from harmony_viz.inputs import Stream

    # Text is scanned as text: no vocabulary (only token ids need it).
    stream = Stream((), text=found.value) if found.kind == "text" else found.stream()
    result = scan(stream.source, role=role or stream.role)
    return build_views(result, unit="chars" if stream.text is not None else "tokens"), tuple(result.diagnostics), stream.source, None


def prompt_ids(found: Any) -> list[int]:
    """A request or conversation (an ``inputs.Input``) as the prompt a server feeds the model: rendered for completion, ending in ``<|start|>assistant``.

    A request is all prompt: its last assistant message is history, and the model's turn is the one it hands over to.
    """
    from harmony_viz.inputs import InputError
    from harmony_viz.render import RenderError, Role, render_conversation_for_completion

    try:
        return list(render_conversation_for_completion(found.conversation(), Role.ASSISTANT))
    except RenderError as exc:
        raise InputError(f"{found.name}: {exc}") from None


def _coerce_tools(tools: Tools | None) -> list[DeclaredTool] | None:
    if tools is None:
        return None
    if isinstance(tools, str):
        return tools_from_typescript(tools)
    if isinstance(tools, Mapping):
        return tools_from_json(tools)
    items = list(tools)
    if all(isinstance(t, DeclaredTool) for t in items):
        return items  # type: ignore[return-value]
    return tools_from_json(items)


def declared_tools(source: Any, *, role: str | None = None) -> list[DeclaredTool]:
    """The tools a rendered prompt declares (system builtins and developer functions).

    ``source`` is Harmony text, token ids or a ``ScanResult``. Spans point into it.
    Never raises on prompt text: a declaration that cannot be read is skipped (lint reports it as
    ``tools-unreadable``, with its line and column) and the others are still read.
    """
    found: list[DeclaredTool] = []
    for view in _views(source, role):
        if view.role in ("system", "developer"):
            found.extend(DeclaredTool(t.namespace, t.name, t.description, t.parameters, *view.span_of(t.start, t.end)) for t in tools_from_typescript(view.text))
    return found


def lint(source: Any, *, role: str | None = None, tools: Tools | None = None, check_prompt: bool | None = None, scanner: bool = True) -> list[Diagnostic]:
    """Diagnostics for a Harmony stream: the output rules, and prompt checks on its prompt part.

    ``source`` is Harmony text, token ids, a ``ScanResult``, or a path or run (anything
    :func:`harmony_viz.inputs.read` reads; a string naming a file is that file). ``role="assistant"`` says
    the stream is a bare completion (it starts after ``<|start|>assistant``): every message
    is model output, and prompt checks are skipped unless ``check_prompt=True``. ``tools`` (an
    OpenAI ``tools`` array, a request or conversation JSON, rendered TypeScript, or
    DeclaredTools) overrides the tools the prompt declares; with neither, calls are only
    checked for form. The scanner's own diagnostics come too (as ruff reports syntax errors
    beside its rules): everything ``parse`` reports, each code and span once; ``scanner=False``
    leaves them out. One is left out as no finding: with the prompt checks on, a prompt that ends
    in ``<|start|>assistant`` (the open header its completion continues) has no ``eos-in-header``.
    Such a prompt hands over to the model, so none of it is a completion: no ``stop-token`` on its
    last message, which is history. A request or conversation (JSON, a dict, a path) is linted as the
    prompt a server feeds the model: rendered for completion, its spans counting that prompt's tokens.
    Sorted by position, then severity.
    """
    views, scanned, stream_source, request = _scan_views(source, role)
    if request:
        role = None  # a request is all prompt, whatever role was given: nothing in it is a bare completion
    return _lint_views(views, scanned, stream_source, role=role, tools=tools, check_prompt=check_prompt, scanner=scanner, request=request)


def lint_messages(messages: Sequence[Any], *, role: str | None = None, tools: Tools | None = None,
                  scanned: Sequence[Diagnostic] = (), ids: Sequence[int] | None = None) -> list[Diagnostic]:
    """``lint(ids, role=role, tools=tools, scanner=False)`` on the stream whose whole scan gave ``messages`` (token spans).

    The replay reads them from its trace (``Trace.scanned_messages``) instead of scanning the stream again. ``scanned``
    (that scan's diagnostics) and ``ids`` (the stream) tell a prompt that hands over at ``<|start|>assistant``, which has
    no completion; they are not reported.
    """
    # ids are only read where a diagnostic ends the stream: a token array (a trace's) serves as it is, no list made
    return _lint_views(list(messages), tuple(scanned), ids, role=role, tools=tools, check_prompt=None, scanner=False)


def _lint_views(views: list[Any], scanned: Sequence[Diagnostic], stream_source: Any, *, role: str | None, tools: Tools | None,
                check_prompt: bool | None, scanner: bool, request: str | None = None) -> list[Diagnostic]:
    from harmony_viz._lint._output import check_output
    from harmony_viz._lint._prompt import check_prompt as prompt_checks
    from harmony_viz._lint._prompt import prompt_tools

    declared = _coerce_tools(tools)
    run_prompt_checks = check_prompt if check_prompt is not None else role is None
    # A prompt that ends in <|start|>assistant hands over to the model: none of it is a completion (no stop-token),
    # and that open header is no eos-in-header. A request (JSON) is read as such a prompt.
    awaiting = run_prompt_checks and any(_awaiting_completion(d, stream_source) for d in scanned)
    prompt_only = awaiting and role is None
    out: list[Diagnostic] = []
    from_prompt = None  # the prompt's tools and the problems reading them, when they are the ones checked against
    if declared is None and any(v.role in ("system", "developer") for v in views):
        from_prompt = prompt_tools(views)
        declared = from_prompt[0]
        if not run_prompt_checks:
            out.extend(from_prompt[1])  # otherwise the prompt checks report them
    out.extend(check_output(views, declared, tools_from_prompt=from_prompt is not None, completion=role is not None, hands_over=prompt_only))
    if run_prompt_checks:
        out.extend(prompt_checks(views, request=request, declared=from_prompt))
    if scanner:
        out = _beside([d for d in scanned if not (awaiting and _awaiting_completion(d, stream_source))], out)
    return _sorted(_once(out))


def lint_prompt(source: Any, *, role: str | None = None) -> list[Diagnostic]:
    """Only the prompt checks, for a rendered conversation or a prompt token stream."""
    from harmony_viz._lint._prompt import check_prompt

    views, _scanned, _source, request = _scan_views(source, role)
    return _sorted(check_prompt(views, request=request))


def _beside(scanned: Sequence[Diagnostic], linted: list[Diagnostic]) -> list[Diagnostic]:
    """The scanner's diagnostics and the lints', a lint that repeats a scanner's code on an overlapping span left out (the scanner's wins)."""
    by_code: dict[str, list[tuple[int, int]]] = {}
    for d in scanned:
        by_code.setdefault(d.code, []).append((d.start, d.end))
    for spans in by_code.values():
        spans.sort()

    def repeated(d: Diagnostic) -> bool:
        spans = by_code.get(d.code)
        if not spans:
            return False
        # The scanner's spans of one code do not nest, so the last one starting at or before d's end decides.
        i = bisect_right(spans, (d.end, d.end)) - 1
        return i >= 0 and (spans[i] == (d.start, d.end) or (spans[i][0] < d.end and spans[i][1] > d.start))

    return [*scanned, *(d for d in linted if not repeated(d))]


def _once(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Each finding once: the first of those that repeat one's code, span and message (the scanner's come first).

    Two rules may say different things of one span (a value of the wrong type and not in the enum): both stay.
    """
    seen: set[tuple[str, int, int, str]] = set()
    out = []
    for d in diags:
        key = (d.code, d.start, d.end, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _awaiting_completion(d: Diagnostic, source: Any) -> bool:
    """A prompt ends in ``<|start|>assistant`` to let the model write: that open header is no error of the prompt."""
    if d.code != "eos-in-header" or source is None:
        return False
    if isinstance(source, str):
        return d.end == len(source) and source[d.start : d.end] == "<|start|>assistant"
    from harmony_viz.tokens import encoding

    return d.end == len(source) and list(source[d.start : d.end]) == encoding().encode("<|start|>assistant", allowed_special="all")


def select(diags: Sequence[Diagnostic], *, select: Sequence[str] = (), ignore: Sequence[str] = ()) -> list[Diagnostic]:
    """Keep the diagnostics whose code starts with one of ``select`` (all when empty), then drop those starting with one of ``ignore``.

    >>> found = lint("<|start|>assistant<|channel|> final<|message|>Hi<|return|>")
    >>> [d.code for d in select(found, select=["bad-"])], [d.code for d in select(found, ignore=["bad"])] == [d.code for d in found if d.code != "bad-channel"]
    (['bad-channel'], True)
    """
    return [d for d in diags if (not select or d.code.startswith(tuple(select))) and not d.code.startswith(tuple(ignore))]


def _sorted(diags: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diags, key=lambda d: (d.start, d.end, _SEVERITY_ORDER[d.severity], d.code))
