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

from collections.abc import Mapping, Sequence
from typing import Any

from harmony_viz._lint._codes import CODES
from harmony_viz._lint._tools import DeclaredTool, ToolParseError, tools_from_json
from harmony_viz._lint._typescript import tools_from_typescript
from harmony_viz._lint._view import build_views
from harmony_viz.scanner import Diagnostic

__all__ = [
    "CODES",
    "DeclaredTool",
    "ToolParseError",
    "build_views",
    "declared_tools",
    "lint",
    "lint_prompt",
    "tools_from_json",
    "tools_from_typescript",
]

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}

Tools = Sequence[DeclaredTool] | Sequence[Mapping[str, Any]] | Mapping[str, Any] | str


def _views(source: Any, role: str | None) -> list[Any]:
    """Message views of ``source``: a ScanResult, or anything :func:`harmony_viz.inputs.read` reads (text, ids, a path, a run…)."""
    if hasattr(source, "events") and hasattr(source, "messages"):
        # Already scanned: spans count characters when every piece is as long as its text.
        deltas = [e for e in source.events if type(e).__name__ == "ContentDelta"]
        return build_views(source, unit="chars" if deltas and all(e.end - e.start == len(e.text) for e in deltas) else "tokens")
    from harmony_viz.inputs import read
    from harmony_viz.scanner import scan

    stream = read(source).stream()
    return build_views(scan(stream.source, role=role or stream.role), unit="chars" if stream.text is not None else "tokens")


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
    Raises ToolParseError when a ``namespace … { … }`` block cannot be read.
    """
    found: list[DeclaredTool] = []
    for view in _views(source, role):
        if view.role in ("system", "developer"):
            found.extend(DeclaredTool(t.namespace, t.name, t.description, t.parameters, *view.span_of(t.start, t.end)) for t in tools_from_typescript(view.text))
    return found


def lint(source: Any, *, role: str | None = None, tools: Tools | None = None, check_prompt: bool | None = None) -> list[Diagnostic]:
    """Diagnostics for a Harmony stream: the output rules, and prompt checks on its prompt part.

    ``source`` is Harmony text, token ids, a ``ScanResult``, or a path or run (anything
    :func:`harmony_viz.inputs.read` reads; a string naming a file is that file). ``role="assistant"`` says
    the stream is a bare completion (it starts after ``<|start|>assistant``): every message
    is model output, and prompt checks are skipped unless ``check_prompt=True``. ``tools`` (an
    OpenAI ``tools`` array, a request or conversation JSON, rendered TypeScript, or
    DeclaredTools) overrides the tools the prompt declares; with neither, calls are only
    checked for form. Sorted by position, then severity.
    """
    from harmony_viz._lint._output import check_output
    from harmony_viz._lint._prompt import check_prompt as prompt_checks
    from harmony_viz._lint._prompt import prompt_tools

    views = _views(source, role)
    declared = _coerce_tools(tools)
    run_prompt_checks = check_prompt if check_prompt is not None else role is None
    out: list[Diagnostic] = []
    from_prompt = False
    if declared is None and any(v.role in ("system", "developer") for v in views):
        declared, problems = prompt_tools(views)
        from_prompt = True
        if not run_prompt_checks:
            out.extend(problems)  # otherwise the prompt checks report them
    out.extend(check_output(views, declared, tools_from_prompt=from_prompt, completion=role is not None))
    if run_prompt_checks:
        out.extend(prompt_checks(views))
    return _sorted(out)


def lint_prompt(source: Any, *, role: str | None = None) -> list[Diagnostic]:
    """Only the prompt checks, for a rendered conversation or a prompt token stream."""
    from harmony_viz._lint._prompt import check_prompt

    return _sorted(check_prompt(_views(source, role)))


def _sorted(diags: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diags, key=lambda d: (d.start, d.end, _SEVERITY_ORDER[d.severity], d.code))
