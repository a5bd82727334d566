"""Token usage of a turn, the way a server reports it, with per-kind counts.

Spans count tokens when the scanner was fed token ids and characters when it was fed
text. ``unit="auto"`` tells them apart from the spans themselves (a stop token is one
token wide but seven or more characters wide; a token delta is rarely one character per
unit); character spans are turned into tokens by encoding the text with o200k_harmony.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from harmony_viz.findings import Unit
from harmony_viz.projections._turn import Turn, TurnMessage

# The unit the spans count, or "auto": read it from the spans themselves.
UnitOrAuto = Literal[Unit, "auto"]


@dataclass(frozen=True, slots=True)
class Usage:
    """Output token counts of one turn.

    ``reasoning_tokens`` counts the bodies the visibility rule makes reasoning (analysis,
    and text whose header leaves it in doubt; preambles are output, not reasoning) unless built in legacy-vLLM mode, where every analysis *and* commentary
    body counts, as vLLM did before its preamble fix. ``by_kind`` counts body tokens per
    content kind; ``output_tokens`` adds header and stop tokens.
    """

    output_tokens: int
    reasoning_tokens: int
    by_kind: dict[str, int]
    unit: Unit

    def to_chat(self) -> dict[str, Any]:
        """The Chat Completions ``usage`` object (the prompt is not known: 0)."""
        return {
            "prompt_tokens": 0,
            "completion_tokens": self.output_tokens,
            "total_tokens": self.output_tokens,
            "completion_tokens_details": {"reasoning_tokens": self.reasoning_tokens},
        }

    def to_responses(self) -> dict[str, Any]:
        """The Responses API ``usage`` object (the prompt is not known: 0)."""
        return {
            "input_tokens": 0,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": self.output_tokens,
            "output_tokens_details": {"reasoning_tokens": self.reasoning_tokens},
            "total_tokens": self.output_tokens,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "output_tokens": self.output_tokens,
            "output_tokens_details": {"reasoning_tokens": self.reasoning_tokens},
            "by_kind": dict(self.by_kind),
            "unit": self.unit,
        }


def _is_reasoning(msg: TurnMessage, legacy: bool) -> bool:
    # The visibility rule: text that is not visible and not a call counts as reasoning.
    if msg.is_reasoning:
        return True
    # Pre-fix vLLM counted every token on the commentary channel as reasoning.
    return legacy and (msg.channel == "commentary" or msg.kind == "preamble")


def _header_text(msg: TurnMessage) -> str:
    """The header as it most likely read; its length is checked against the span."""
    rest = ""
    if msg.recipient:
        rest += f" to={msg.recipient}"
    if msg.channel:
        rest += f"<|channel|>{msg.channel}"
    if msg.content_type:
        rest += f" {msg.content_type}"
    rest += "<|message|>"
    # A completion's first header has no `<|start|>assistant`: the prompt ended with it.
    if len(rest) == msg.header_units:
        return rest
    return "<|start|>assistant" + rest


def resolve_unit(turn: Turn, unit: UnitOrAuto) -> Unit:
    if unit != "auto":
        return unit
    votes = turn.span_votes
    return "tokens" if votes["tokens"] >= votes["chars"] and votes["tokens"] > 0 else "chars"


def compute_usage(turn: Turn, *, legacy_vllm: bool = False, unit: UnitOrAuto = "auto") -> Usage:
    """Count the turn's tokens; see :class:`Usage`."""
    unit = resolve_unit(turn, unit)
    by_kind: dict[str, int] = {}
    output = reasoning = 0
    enc = None
    if unit == "chars":
        from harmony_viz.tokens import encoding

        enc = encoding()
    for msg in turn.messages:
        if enc is None:
            body = msg.content_units
            overhead = msg.header_units + (msg.end_units if msg.terminator not in (None, "eos", "<|start|>") else 0)
        else:
            if msg.token_cache is None:
                msg.token_cache = len(enc.encode_ordinary(msg.text))
            body = msg.token_cache
            overhead = len(enc.encode(_header_text(msg), allowed_special="all"))
            overhead += 1 if msg.terminator not in (None, "eos", "<|start|>") else 0
        by_kind[msg.kind] = by_kind.get(msg.kind, 0) + body
        output += body + overhead
        if _is_reasoning(msg, legacy_vllm):
            reasoning += body
    return Usage(output, reasoning, by_kind, unit)
