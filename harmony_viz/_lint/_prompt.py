"""Checks on the prompt itself: system message lines, where tools are declared, and history.

A prompt that drops ``commentary`` from the channel list, forgets the routing line, or
feeds the history back without the analysis of a pending tool call makes a well-behaved
model fail; these checks say so before the model runs.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence

from harmony_viz._lint._codes import diagnostic
from harmony_viz._lint._tools import DeclaredTool
from harmony_viz._lint._typescript import read_typescript
from harmony_viz._lint._view import turns
from harmony_viz.findings import with_article
from harmony_viz.scanner import Diagnostic, Message

CHANNELS = ("analysis", "commentary", "final")
ROUTING_LINE = "Calls to these tools must go to the commentary channel: 'functions'."
_CHANNELS_RE = re.compile(r"^# Valid channels: (.*?)\.(?: Channel must be included for every message\.)?[ \t]*$", re.M)
_REASONING_RE = re.compile(r"^Reasoning:[ \t]*(.*?)[ \t]*$", re.M | re.I)
_DATE_RE = re.compile(r"^Current date:[ \t]*(.*?)[ \t]*$", re.M)
_CUTOFF_RE = re.compile(r"^Knowledge cutoff:[ \t]*(.*?)[ \t]*$", re.M)


def prompt_tools(views: Sequence[Message]) -> tuple[list[DeclaredTool], list[Diagnostic]]:
    """Tools declared in the system and developer messages, and the namespaces that gave none."""
    tools: list[DeclaredTool] = []
    problems: list[Diagnostic] = []
    for view in views:
        if view.role not in ("system", "developer") or "namespace " not in view.text and "## python" not in view.text:
            continue
        found, bad = read_typescript(view.text)
        # A namespace that still gave declarations is read; only one that gave none is unreadable.
        for p in (b for b in bad if not b.recovered):
            problems.append(diagnostic("tools-unreadable", f"namespace {p.namespace} in the {view.role} message (message {view.index}) declares no tool that can be read: line {p.line}, column {p.column}: {p.message}", view.span_of(p.start, p.end)))
        tools.extend(DeclaredTool(t.namespace, t.name, t.description, t.parameters, *view.span_of(t.start, t.end)) for t in found)
    return tools, problems


def check_prompt(views: Sequence[Message], *, request: str | None = None,
                 declared: tuple[list[DeclaredTool], list[Diagnostic]] | None = None) -> list[Diagnostic]:
    """All prompt-check diagnostics for ``views`` (a rendered conversation or a prompt).

    ``request`` is ``"chat"`` or ``"conversation"`` when ``views`` are our rendering of a request or conversation
    (JSON): then what the prompt lacks, the request lacked, and the findings say so. ``declared`` is
    ``prompt_tools(views)`` when the caller has read it already.
    """
    out: list[Diagnostic] = []
    systems = [v for v in views if v.role == "system"]
    tools, problems = declared if declared is not None else prompt_tools(views)
    out.extend(problems)
    # An unreadable declaration still declares tools: judge the routing line by the text.
    functions = [t for t in tools if t.namespace == "functions"] or [v for v in views if v.role == "developer" and "namespace functions {" in v.text]
    if not systems:
        # Only a conversation (user or developer text present) needs a system message; a
        # bare run of assistant messages is output, not a prompt.
        if any(v.role in ("user", "developer") for v in views):
            out.append(diagnostic("system-missing", "the prompt has no system message; the model expects one declaring its channels and reasoning effort", (views[0].start, views[0].start)))
    else:
        out.extend(_system_lines(systems[0], has_functions=bool(functions)))
    out.extend(_tool_placement(views))
    out.extend(_history(views, request=request))
    return out


def _line_span(view: Message, m: re.Match[str] | None) -> tuple[int, int]:
    return view.span_of(m.start(), m.end()) if m else view.body


def _system_lines(system: Message, *, has_functions: bool) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    text = system.text
    m = _CHANNELS_RE.search(text)
    if m is None:
        out.append(diagnostic("channels-missing", "the system message has no '# Valid channels: analysis, commentary, final.' line; without it the model may skip channels", system.body))
    else:
        listed = [c.strip() for c in m.group(1).split(",")]
        missing = [c for c in CHANNELS if c not in listed]
        if missing:
            why = " (without commentary there are no preambles and no function calls — the vLLM bug fixed in seed 001 dropped it when no custom tools were given)" if "commentary" in missing else ""
            out.append(diagnostic("channels-missing", f"the system message's channel list lacks {', '.join(missing)}{why}", _line_span(system, m)))
    routing = text.find(ROUTING_LINE)
    if has_functions and routing < 0:
        out.append(diagnostic("routing-line-missing", f"function tools are declared but the system message lacks {ROUTING_LINE!r}; the model may call them on the wrong channel", system.body))
    elif routing >= 0 and not has_functions:
        out.append(diagnostic("routing-line-unused", "the routing line names 'functions' but no developer message declares function tools", system.span_of(routing, routing + len(ROUTING_LINE))))
    m = _REASONING_RE.search(text)
    if m is None:
        out.append(diagnostic("reasoning-missing", "the system message has no 'Reasoning: low|medium|high' line (the model falls back to its own default)", system.body))
    elif m.group(1) not in ("low", "medium", "high"):
        out.append(diagnostic("reasoning-malformed", f"reasoning effort {m.group(1)!r} is not one of low, medium, high (lower case, as trained)", _line_span(system, m)))
    m = _DATE_RE.search(text)
    if m is not None and not _is_date(m.group(1), "%Y-%m-%d"):
        out.append(diagnostic("date-malformed", f"current date {m.group(1)!r} is not YYYY-MM-DD (e.g. 2025-06-28)", _line_span(system, m)))
    m = _CUTOFF_RE.search(text)
    if m is not None and not _is_date(m.group(1), "%Y-%m"):
        out.append(diagnostic("date-malformed", f"knowledge cutoff {m.group(1)!r} is not YYYY-MM (e.g. 2024-06)", _line_span(system, m)))
    return out


def _is_date(value: str, fmt: str) -> bool:
    try:
        parsed = datetime.datetime.strptime(value, fmt)
    except ValueError:
        return False
    return parsed.strftime(fmt) == value  # strptime accepts 2025-6-1; the model saw 2025-06-01


def _tool_placement(views: Sequence[Message]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for view in views:
        text = view.text
        if "namespace " not in text:
            continue  # what both patterns spell (most messages: they need not look)
        if view.role == "system":
            for m in re.finditer(r"^namespace functions \{", text, re.M):
                out.append(diagnostic("tools-unexpected-message", "function tools are declared in the system message; they belong in the developer message's '# Tools' section", view.span_of(m.start(), m.end())))
        elif view.role not in ("developer",):
            if view.role == "assistant" or view.is_tool_author:
                continue
            for m in re.finditer(r"^namespace \S+ \{", text, re.M):
                out.append(diagnostic("tools-unexpected-message", f"a tool namespace is declared in {with_article(view.role)} message (message {view.index}); the model only trusts tools from the system (builtins) and developer (functions) messages", view.span_of(m.start(), m.end())))
    return out


def _history(views: Sequence[Message], *, request: str | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for view in views[:-1]:
        if view.terminator == "<|return|>":
            out.append(diagnostic("return-in-history", f"message {view.index} ends in <|return|> but more follows; history should store <|end|> (<|return|> only ends a completion)", view.stop))
    groups = turns(views)
    for g, group in enumerate(groups[1:], start=1):
        finals = [v for v in group if v.role == "assistant" and v.channel == "final"]
        # Later messages follow this turn's final: a next turn, or more after the final.
        later = g < len(groups) - 1 or bool(finals and group[-1] is not finals[-1])
        if finals and later:
            last_final = finals[-1].index
            for v in group:
                if v.role == "assistant" and v.channel == "analysis" and v.index < last_final:
                    out.append(diagnostic("stale-analysis", f"analysis message {v.index} belongs to a turn that ended in a final answer; drop it from the history (wasted tokens, and the model was trained without it)", (v.start, v.end)))
    if len(groups) > 1:
        open_turn = groups[-1]
        if not any(v.role == "assistant" and v.channel == "final" for v in open_turn):
            out.extend(_dropped_analysis(open_turn, request=request))
    return out


# Where the analysis of a pending call is missing from: the prompt (text or ids: it may have been dropped on the way,
# or never written), or the request itself (our rendering keeps every reasoning a request gives).
_NO_ANALYSIS = {
    None: ("no analysis comes before it in the prompt", "if the model wrote one, keep it"),
    "chat": ("the request gives no reasoning before it", "send back what the model wrote (reasoning_content on the assistant message)"),
    "conversation": ("the conversation has no analysis message before it", "if the model wrote one, keep it"),
}


def _dropped_analysis(turn: Sequence[Message], *, request: str | None) -> list[Diagnostic]:
    """Calls in a still-open tool-use turn that have a result but no analysis before them.

    The message says what is known: the analysis is absent, not that someone dropped it (a request may never have had one).
    """
    out: list[Diagnostic] = []
    missing, fix = _NO_ANALYSIS.get(request, _NO_ANALYSIS[None])
    for k, view in enumerate(turn):
        if not view.is_call:
            continue
        answered = any(v.is_tool_author for v in turn[k + 1 :])
        # Look back over this step's assistant messages (a preamble, calls made together)
        # for its analysis; a tool result or the user message ends the step.
        kept = False
        for before in reversed(turn[:k]):
            if before.role != "assistant":
                break
            if before.channel == "analysis" and not before.is_call:
                kept = True
                break
        if answered and not kept:
            out.append(diagnostic("dropped-analysis", f"tool call {view.index} ({view.recipient}) is part of a pending tool-use turn, but {missing}; gpt-oss reasons before it calls and needs that analysis back until the turn ends in a final answer: {fix} (in the llama.cpp trials, multi-step calls passed 25/25 with it kept, 3/25 with it dropped)", view.header))
    return out
