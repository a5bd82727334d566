"""Where a run's tokens go: the scanner's messages with token and character counts.

A message's ``tokens`` are the token ids its span covers (header, body and stop token)
inside the completion, so for a clean completion the output messages add up to the
completion length. ``content_tokens`` are the body only. Output is what assistant
messages hold; for a run kept as whole text (no prompt/completion split) that is every
assistant message, earlier turns of a multi-turn chat included.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, fields
from typing import Any

from harmony_viz._runfile import Run, run_stream
from harmony_viz.scanner import CONTENT_KINDS, END_OF_TEXT_CODES, Diagnostic, Message

# The kinds the reasoning share is taken over: everything the model writes for the
# conversation, leaving out tool results (written by tools) and unclassifiable messages.
SHARE_KINDS: tuple[str, ...] = ("reasoning", "preamble", "tool_call", "final")


@dataclass(frozen=True, slots=True)
class MessageUsage(Message):
    """A message of a run (the scanner's record) with its size.

    ``output`` is True for assistant messages in the completion; ``tokens`` counts the whole
    message from the completion's start, ``content_tokens`` its body, ``chars`` its text;
    ``diagnostics`` the codes reported inside it.
    """

    output: bool = False
    tokens: int = 0
    content_tokens: int = 0
    chars: int = 0
    diagnostics: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RunUsage:
    """A run after scanning: its messages with sizes, and every diagnostic (load and scan).

    ``prompt_tokens`` and ``completion_tokens`` are None for a run kept as whole text,
    where the split is unknown (a bare completion, text that opens after ``<|start|>assistant``,
    has no prompt: 0); ``total_tokens`` counts everything scanned up to the ``<|endoftext|>``
    that ends it, if one does (padding after it is no token of the run).
    """

    run: Run
    messages: tuple[MessageUsage, ...]
    diagnostics: tuple[Diagnostic, ...]
    prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int

    def _output_by_kind(self, measure: str) -> dict[str, int]:
        out = dict.fromkeys(CONTENT_KINDS, 0)
        for m in self.messages:
            if m.output:
                out[m.kind] = out.get(m.kind, 0) + getattr(m, measure)
        return out

    def output_tokens_by_kind(self) -> dict[str, int]:
        """Output tokens per content kind (every kind present, zeros included)."""
        return self._output_by_kind("tokens")

    def output_chars_by_kind(self) -> dict[str, int]:
        """Output characters (message bodies) per content kind."""
        return self._output_by_kind("chars")

    def to_json(self) -> dict[str, Any]:
        """One flat object: ids, metadata, output tokens and characters by kind, shares, diagnostics."""
        meta = self.run.metadata
        tokens = self.output_tokens_by_kind()
        chars = self.output_chars_by_kind()
        out: dict[str, Any] = {
            "id": self.run.id,
            "source": meta.source,
            "model": meta.model,
            "reasoning_effort": meta.reasoning_effort,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "output_tokens": sum(tokens.values()),
        }
        out.update({f"{k}_tokens": v for k, v in tokens.items()})
        out["reasoning_share"] = share(tokens, "reasoning")
        out["preamble_share"] = share(tokens, "preamble")
        out["tool_call_share"] = share(tokens, "tool_call")
        out["output_chars"] = sum(chars.values())
        out.update({f"{k}_chars": v for k, v in chars.items()})
        out["reasoning_share_chars"] = share(chars, "reasoning")
        out["messages"] = len(self.messages)
        out["output_messages"] = sum(m.output for m in self.messages)
        out["diagnostics"] = len(self.diagnostics)
        out["errors"] = sum(d.severity == "error" for d in self.diagnostics)
        out["diagnostic_codes"] = sorted({d.code for d in self.diagnostics})
        out["duration_s"] = self.run.token_times[-1] if self.run.token_times else None
        return out


def share(counts: dict[str, int], kind: str) -> float | None:
    """``counts[kind]`` over the sum of the share kinds; None when that sum is 0."""
    total = sum(counts.get(k, 0) for k in SHARE_KINDS)
    return counts.get(kind, 0) / total if total else None


def run_usage(run: Run) -> RunUsage:
    """Scan ``run`` and size its messages; never raises on malformed model output.

    >>> from harmony_viz.runs import Run
    >>> u = run_usage(Run(id="x", text="<|start|>assistant<|channel|>analysis<|message|>Hm.<|end|>"))
    >>> u.output_tokens_by_kind()["reasoning"], u.messages[0].content_tokens
    (8, 2)
    """
    from harmony_viz.scanner import scan

    ids, prompt, role = run_stream(run)
    if prompt is None and role == "assistant":
        prompt = 0  # a bare completion (text after <|start|>assistant): none of it is prompt
    result = scan(ids, role=role)
    cut = prompt or 0

    scan_diagnostics = tuple(result.diagnostics)
    # <|endoftext|> ends the stream: its padding is neither completion nor total.
    length = next((d.start for d in scan_diagnostics if d.code in END_OF_TEXT_CODES), len(ids))
    # Diagnostics sorted by start once, so each message finds its own by bisection (linear overall, not messages × diagnostics).
    order = sorted(range(len(scan_diagnostics)), key=lambda i: scan_diagnostics[i].start)
    starts = [scan_diagnostics[i].start for i in order]
    messages = []
    for m in result.messages:
        lo, hi = m.body if m.spans else (m.end, m.end)
        sizes = {
            "output": m.by_assistant and m.end > cut,
            "tokens": max(0, m.end - max(m.start, cut)),
            "content_tokens": max(0, hi - max(lo, cut)),
            "chars": len(m.text),
            "diagnostics": _codes_inside(scan_diagnostics, order, starts, m.start, m.end),
        }
        messages.append(MessageUsage(**{f: getattr(m, f) for f in _MESSAGE_FIELDS}, **sizes))
    return RunUsage(
        run=run,
        messages=tuple(messages),
        diagnostics=(*run.diagnostics, *scan_diagnostics),
        prompt_tokens=prompt,
        completion_tokens=None if prompt is None else max(0, length - prompt),
        total_tokens=length,
    )


_MESSAGE_FIELDS = tuple(f.name for f in fields(Message))


def _inside(d: Diagnostic, start: int, end: int) -> bool:
    return start <= d.start < end or (d.start == d.end == end and start < end)


def _codes_inside(diagnostics: tuple[Diagnostic, ...], order: list[int], starts: list[int], start: int, end: int) -> tuple[str, ...]:
    """Codes of the diagnostics inside [start, end), in scan order; only those starting in [start, end] are looked at."""
    near = order[bisect_left(starts, start) : bisect_right(starts, end)]
    return tuple(diagnostics[i].code for i in sorted(near) if _inside(diagnostics[i], start, end))
