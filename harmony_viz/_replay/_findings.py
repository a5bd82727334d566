"""Every finding of a replayed stream, for its chips and its Findings panel.

Four lenses report on a stream: the scanner (the trace's own diagnostics), the lints (the
same ``lint`` the CLI runs, its tools from the stream's own prompt or from ``tools=``), and,
for a capture or server-check results, the server lens's discrepancies and the prompt lens's
differences (both from the server tab's data). Each finding is placed on the trace once
here (``harmony_viz.trace.place``: its tokens and the step it shows from), and travels to
the browser as columns of the payload.

Prompt differences are drawn where they refer to the stream: their ``server`` side, which
is the prompt the stream itself holds (a capture's ``prompt_token_ids``, or the server's
prompt a prompt check replays). A difference with nothing on that side (something only our
render has, such as a line the server dropped) is listed in the panel without chips.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harmony_viz.findings import Finding, Span
from harmony_viz.scanner import Diagnostic
from harmony_viz.trace import Placed, Trace, collecting_after, merge, place, scanner_findings


class Lints:
    """The lints of one token stream, run once and kept while only the chunking changes (they do not depend on it)."""

    def __init__(self, tools: Any = None) -> None:
        self.tools = tools
        self._key: tuple[Any, str | None] | None = None
        self._found: tuple[list[Diagnostic], str | None] = ([], None)

    def of(self, trace: Trace) -> tuple[list[Diagnostic], str | None]:
        """``(diagnostics, error)``: the lint rules' findings on the trace's tokens (the scanner's are the trace's own), or why there are none."""
        key = (trace.token_key(), trace.role)
        if key != self._key:
            self._key, self._found = key, run_lints(trace, role=trace.role, tools=self.tools)
        return self._found


@collecting_after
def run_lints(ids: list[int] | Trace, *, role: str | None, tools: Any) -> tuple[list[Diagnostic], str | None]:
    """``lint(ids, scanner=False)``; a failure of a rule becomes the panel's note, not the replay's end (bad ``tools`` still raise).

    Given a token trace of the stream, the lints read the messages its whole scan gives from
    the trace (``Trace.scanned_messages``): the same findings without scanning it again.
    """
    from harmony_viz._lint import ToolParseError, lint, lint_messages

    if not (ids.n_tokens if isinstance(ids, Trace) else len(ids)):
        return [], None
    try:
        if not isinstance(ids, Trace):
            return lint(ids, role=role, tools=tools, scanner=False), None
        if ids.unit == "tokens":
            # the scan's diagnostics and the ids tell a prompt that hands over at <|start|>assistant (no completion)
            return lint_messages(ids.scanned_messages(), role=role, tools=tools, scanned=[d for _step, d in ids.diagnostics], ids=ids.ids), None
        return lint(list(ids.ids), role=role, tools=tools, scanner=False), None
    except ToolParseError:
        raise
    except Exception as exc:  # a lint bug must not take the replay down with it
        return [], f"the lints failed: {type(exc).__name__}: {exc}"


def server_findings(server: dict[str, Any] | None) -> list[tuple[Finding, str, tuple[int, int] | None]]:
    """The server tab's discrepancies (each named after its engine and api) and prompt differences, as ``(finding, source, tokens)``."""
    if not server:
        return []
    out: list[tuple[Finding, str, tuple[int, int] | None]] = []
    prompts: list[dict[str, Any]] = []
    for check in server.get("checks") or []:
        who = f"{check.get('engine') or 'server'} {check.get('api')}"
        for d in check.get("discrepancies") or []:
            where = d.get("where")
            span = (int(where["start"]), int(where["end"])) if where else None
            out.append((Finding(d["code"], d["severity"], f"{who}: {d['message']}", Span(*span) if span else None), "server", span))
        if check.get("prompt"):
            prompts.append(check["prompt"])
    if server.get("prompt"):
        prompts.append(server["prompt"])
    seen: set[str] = set()
    for prompt in prompts:
        for d in prompt.get("differences") or []:
            key = json.dumps(d, sort_keys=True)
            if key in seen:  # every api of one capture carries the same prompt check
                continue
            seen.add(key)
            side = (d.get("where") or {}).get("server")
            span = (int(side[0]), int(side[1])) if side else None
            message = d["message"] if span else f"{d['message']} (only in our render: no token of this stream)"
            out.append((Finding(d["code"], d["severity"], message, Span(*span) if span else None), "prompt", span))
    return out


def stream_findings(trace: Trace, lints: Sequence[Diagnostic] = (), server: dict[str, Any] | None = None) -> list[Placed]:
    """Every finding of the stream placed on ``trace``, in the order they show; a lint that repeats a scanner diagnostic is the scanner's row."""
    n = trace.n_tokens

    def clipped(span: tuple[int, int] | None) -> tuple[int, int] | None:
        if span is None or n == 0 or span[0] > n:
            return None
        return span[0], min(max(span[0], span[1]), n)

    others = [(d, "lint", (d.start, d.end)) for d in lints]
    others += [(f, source, clipped(span)) for f, source, span in server_findings(server)]
    return merge(scanner_findings(trace), place(trace, others))
