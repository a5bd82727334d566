"""The replay as static HTML: what a saved notebook shows where no kernel (and maybe no JavaScript) runs.

The widget's output carries this view as ``text/html`` beside its widget view: JupyterLab,
Notebook 7, VS Code and Colab draw the live widget, while nbconvert's HTML (of a notebook
saved without widget state), GitHub and other readers that strip scripts show this. It is
the whole stream's chips (the live widget's classes: ``data-hv="token"``, ``hv-k-<kind>``,
``hv-r-<role>``, ``hv-special``, a finding's ``data-severity``), the final answer, the
conversation and the findings; its stylesheet is js/src/replay/static.css, built and inlined.

Its size is bounded whatever the stream's length (:data:`BOUNDS`): every chip up to
``chips`` tokens, past that the first and last ``chips // 2`` with a line saying how many were
left out and how to see them; each message's text up to ``message_chars`` characters (the
final answer ``answer_chars``) with a marker; the first and last ``messages // 2`` messages
past ``messages``; the first ``findings`` findings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from xml.etree import ElementTree as ET

import numpy as np

from harmony_viz._static import asset_text
from harmony_viz.findings import SEVERITIES
from harmony_viz.palette import KIND_LABELS
from harmony_viz.scanner import Message
from harmony_viz.tokens import FIRST_SPECIAL
from harmony_viz.trace import Placed, Trace


@dataclass(frozen=True)
class Bounds:
    """How much of a stream the static view shows (what keeps a long stream's output small)."""

    chips: int = 2000  # every chip up to this many tokens; past it, the first and last half
    chip_chars: int = 60  # a chip's text, as the live chips cut it (js/src/shared/constants.ts CHIP_CHARS)
    message_chars: int = 600  # each message's text in the conversation
    answer_chars: int = 4000  # the final answer's text
    messages: int = 60  # every message up to this many; past it, the first and last half
    findings: int = 100  # the first this many findings


BOUNDS = Bounds()
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_HOW_TO_SEE = "run the notebook to replay every token in the live widget, or write the whole stream as a page with hv.save_html"


def _el(tag: str, attrs: dict[str, str] | None = None, text: str | None = None, *, parent: ET.Element | None = None) -> ET.Element:
    el = ET.Element(tag, attrs or {}) if parent is None else ET.SubElement(parent, tag, attrs or {})
    if text is not None:
        el.text = text
    return el


def _visible(text: str) -> str:
    """Control characters as their pictures (U+2400…): markup can carry neither NUL nor most of them."""
    return _CONTROL.sub(lambda m: chr(0x2421) if m.group() == "\x7f" else chr(0x2400 + ord(m.group())), text)


def _cut(text: str, limit: int) -> tuple[str, int]:
    """``text`` up to ``limit`` characters, and how many were cut."""
    return (text, 0) if len(text) <= limit else (text[:limit], len(text) - limit)


def _token_spans(trace: Trace, messages: Sequence[Message]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each message's first token, first body token and end token, as tokens of the stream (a text chunking's spans are characters)."""
    n = int(trace.tokens.size)
    start = np.array([m.start for m in messages], dtype=np.int64)
    header_end = np.array([m.header_end for m in messages], dtype=np.int64)
    end = np.array([trace.step_ends[-1] if m.end is None else m.end for m in messages], dtype=np.int64)
    if trace.unit == "chars":
        starts = trace.token_char_starts  # a token belongs to the message its first character does
        return (np.clip(np.searchsorted(starts, start, side="right") - 1, 0, n),
                np.minimum(np.searchsorted(starts, header_end, side="left"), n), np.minimum(np.searchsorted(starts, end, side="left"), n))
    return start, header_end, end


def _chip_texts(trace: Trace, shown: Sequence[int]) -> dict[int, tuple[str, str]]:
    """``{token: (text, split class)}``: a character split over tokens is written whole on its first chip, the rest ``‥``."""
    raw = trace.token_bytes
    out: dict[int, tuple[str, str]] = {}
    wanted = set(shown)
    for t in shown:
        if t in out:
            continue
        try:
            out[t] = (raw[t].decode("utf-8"), "")
            continue
        except UnicodeDecodeError:
            pass
        for b in range(t + 2, min(len(raw), t + 8) + 1):  # the shortest run of tokens from t that decodes
            try:
                whole = b"".join(raw[t:b]).decode("utf-8")
            except UnicodeDecodeError:
                continue
            out[t] = (whole, " hv-split-first")
            out.update({k: ("‥", " hv-split-rest") for k in range(t + 1, b) if k in wanted})
            break
        else:
            out[t] = (raw[t].decode("utf-8", errors="replace"), "")
    return out


def _worst_severity(n: int, findings: Sequence[Placed]) -> np.ndarray:
    """Each token's worst finding as an index into SEVERITIES (len(SEVERITIES) for none), as the live chips underline it."""
    worst = np.full(n, len(SEVERITIES), dtype=np.int8)
    for f in findings:
        if f.tokens is None or not n:
            continue
        a, b = f.tokens
        a = min(a, n - 1)
        b = max(b, a + 1)  # an empty span marks the token at it (the live view does the same)
        rank = SEVERITIES.index(f.severity)
        np.minimum(worst[a:b], rank, out=worst[a:b])
    return worst


def _legend(parent: ET.Element) -> None:
    legend = _el("div", {"class": "hv-legend", "data-hv": "legend"}, parent=parent)
    for kind, label in KIND_LABELS.items():
        item = _el("span", {"class": "hv-legend-item"}, parent=legend)
        _el("span", {"class": f"hv-swatch hv-k-{kind}"}, parent=item).tail = label


def _chips(parent: ET.Element, trace: Trace, messages: Sequence[Message], findings: Sequence[Placed], name: str, bounds: Bounds) -> int:
    n = int(trace.tokens.size)
    box = _el("div", {"class": "hv-static-tokens", "data-hv": "tokens", "role": "region", "tabindex": "0",
                      "aria-label": f"tokens of {name}, coloured by channel, each channel with a line pattern of its own"}, parent=parent)
    half = bounds.chips // 2
    shown = list(range(n)) if n <= bounds.chips else [*range(half), *range(n - half, n)]
    t_start, t_header, t_end = _token_spans(trace, messages)
    owner = np.searchsorted(t_start, np.arange(n), side="right") - 1  # the message a token falls in (-1: before any)
    worst = _worst_severity(n, findings)
    texts = _chip_texts(trace, shown)
    ids = trace.tokens
    starts = set(t_start.tolist())
    for k, t in enumerate(shown):
        if k == half and n > bounds.chips:
            gap = n - 2 * half
            _el("span", {"class": "hv-static-gap hv-note", "data-hv": "left-out", "data-count": str(gap)},
                f"… {gap:,} tokens left out here (tokens {half:,} to {n - half - 1:,} of {n:,}): {_HOW_TO_SEE}.", parent=box)
        elif t in starts and k:
            _el("br", parent=box)
        i = int(owner[t])
        m = messages[i] if i >= 0 and t < t_end[i] else None
        cls = f"hv-tok hv-k-{m.kind if m else 'none'} hv-r-{m.role if m else 'none'}"
        text, split = texts[t]
        if ids[t] >= FIRST_SPECIAL:
            cls += " hv-special"
        elif m is not None and t < t_header[i]:
            cls += " hv-header"
        text = _visible(text)
        if len(text) > bounds.chip_chars:
            text = text[: bounds.chip_chars - 1] + "…"
        attrs = {"data-hv": "token", "class": cls + split}
        if worst[t] < len(SEVERITIES):
            attrs["data-severity"] = SEVERITIES[worst[t]]
        _el("span", attrs, text, parent=box)
    return len(shown)


def _final_answer(messages: Sequence[Message]) -> Message | None:
    """The last message the reader is shown as the answer: the assistant's last final-kind message."""
    for m in reversed(messages):
        if m.role == "assistant" and m.kind == "final":
            return m
    return None


def _panel(parent: ET.Element, hv: str, title: str) -> ET.Element:
    section = _el("section", {"class": f"hv-panel hv-panel-{hv}", "data-hv-panel": hv}, parent=parent)
    _el("h3", {"class": "hv-panel-title"}, title, parent=section)
    return _el("div", {"class": "hv-panel-body", "data-hv": hv}, parent=section)


def _cut_marker(parent: ET.Element, cut: int, what: str) -> None:
    if cut:
        _el("span", {"class": "hv-static-cut", "data-hv": "cut"}, f" … {cut:,} more {what} ({_HOW_TO_SEE})", parent=parent)


def _conversation(parent: ET.Element, trace: Trace, messages: Sequence[Message], bounds: Bounds) -> None:
    body = _panel(parent, "conversation", f"Conversation ({len(messages)} messages)")
    half = bounds.messages // 2
    picked = list(range(len(messages))) if len(messages) <= bounds.messages else [*range(half), *range(len(messages) - half, len(messages))]
    for k, i in enumerate(picked):
        if k == half and len(messages) > bounds.messages:
            _el("div", {"class": "hv-static-gap hv-note", "data-hv": "messages-left-out"},
                f"… {len(messages) - 2 * half:,} messages left out here: {_HOW_TO_SEE}.", parent=body)
        m = messages[i]
        card = _el("div", {"class": f"hv-card hv-k-{m.kind} hv-r-{m.role}", "data-hv": "message", "data-message": str(m.index), "data-kind": m.kind}, parent=body)
        head = _el("div", {"class": "hv-card-head"}, m.role, parent=card)
        kind = KIND_LABELS.get(m.kind, m.kind)
        for label in (m.channel, f"to {m.recipient}" if m.recipient else None, kind if kind != m.channel else None,
                      None if m.end is not None else "open: no end token"):
            if label:
                _el("span", {"class": "hv-badge"}, label, parent=head)
        text, cut = _cut(trace.content(m.index), bounds.message_chars)
        content = _el("div", {"class": "hv-card-body"}, _visible(text), parent=card)
        _cut_marker(content, cut, "characters")


def _where(tokens: tuple[int, int] | None, n: int) -> str | None:
    if tokens is None:
        return None
    a, b = tokens
    return "end of stream" if a >= n else f"token {a}" if b <= a + 1 else f"tokens {a}–{b - 1}"


def _findings(parent: ET.Element, findings: Sequence[Placed], n: int, bounds: Bounds) -> None:
    body = _panel(parent, "findings", f"Findings ({len(findings)})")
    if not findings:
        _el("div", {"class": "hv-empty", "data-hv": "no-findings"}, "no findings", parent=body)
        return
    rows = _el("ul", {"class": "hv-static-list"}, parent=body)
    for f in findings[: bounds.findings]:
        row = _el("li", {"class": f"hv-diag hv-finding hv-sev-{f.severity}", "data-hv": "finding", "data-code": f.code,
                         "data-severity": f.severity, "data-source": f.source}, parent=rows)
        _el("span", {"class": "hv-diag-sev"}, f.severity, parent=row)
        _el("code", {}, f.code, parent=row)
        _el("span", {"class": "hv-fd-src"}, f.source, parent=row)
        where = _where(f.tokens, n)
        if where:
            _el("span", {"class": "hv-diag-span"}, where, parent=row)
        _el("span", {"class": "hv-diag-msg"}, _visible(f.message), parent=row)
    if len(findings) > bounds.findings:
        _el("div", {"class": "hv-more", "data-hv": "findings-left-out"},
            f"… {len(findings) - bounds.findings:,} more findings: {_HOW_TO_SEE}.", parent=body)


def static_view(trace: Trace, findings: Sequence[Placed], *, name: str | None = None, bounds: Bounds = BOUNDS) -> str:
    """The replay of ``trace`` at its end as one self-contained HTML fragment (its stylesheet inlined, no script, no link)."""
    # the headers (no bodies): a long stream's every message text costs more than its whole trace; the texts shown are read one by one
    messages = sorted(trace.headers, key=lambda m: m.start)
    n = int(trace.tokens.size)
    what = name or "the stream"
    root = _el("div", {"class": "hv-root hv-by-channel hv-static", "data-hv": "static-view", "data-tokens": str(n)})
    # the built stylesheet, inlined: a saved notebook is read offline and its outputs may be shown one by one
    _el("style", {}, asset_text("static_view.css"), parent=root)
    _el("p", {"class": "hv-static-head"}, f"Replay of {what}: {n:,} tokens, {len(messages)} messages, {len(findings)} findings", parent=root)
    _el("p", {"class": "hv-static-line"}, "A static view of the whole stream, saved with the notebook: the live widget (stepping, the "
        "token card, the panels) draws here when the notebook runs with its kernel.", parent=root)
    _legend(root)
    _chips(root, trace, messages, findings, what, bounds)
    answer = _final_answer(messages)
    body = _panel(root, "answer", "Final answer")
    if answer is None:
        _el("div", {"class": "hv-empty", "data-hv": "no-answer"}, "no final answer in this stream", parent=body)
    else:
        text, cut = _cut(trace.content(answer.index), bounds.answer_chars)
        pre = _el("pre", {"class": "hv-static-answer", "data-hv": "final-answer"}, _visible(text), parent=body)
        _cut_marker(pre, cut, "characters")
    _conversation(root, trace, messages, bounds)
    _findings(root, findings, n, bounds)
    return ET.tostring(root, encoding="unicode", method="html")


def static_note(text: str) -> str:
    """One line of text in place of the view (escaped): what a saved notebook shows when the view could not be written."""
    return ET.tostring(_el("p", {"class": "hv-note", "data-hv": "static-note"}, text), encoding="unicode", method="html")
