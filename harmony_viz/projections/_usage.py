"""Token usage of a turn, the way a server reports it, with per-kind counts.

Spans count tokens when the scanner was fed token ids and characters when it was fed
text. ``unit="auto"`` tells them apart from the spans themselves (a stop token is one
token wide but seven or more characters wide; a token delta is rarely one character per
unit); character spans are turned into tokens by encoding the text with o200k_harmony.
The prompt is everything before the turn, so prompt and output add up to the stream (up to
the ``<|endoftext|>`` that ends it, if one does: padding after it is nobody's output).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from harmony_viz.findings import Unit
from harmony_viz.projections._turn import Turn, TurnMessage

# The unit the spans count, or "auto": read it from the spans themselves.
UnitOrAuto = Literal[Unit, "auto"]


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one turn: the prompt before it, and its output.

    ``prompt_tokens`` counts every token before the turn (the first assistant message after
    the last message of another role), or the prompt the caller knows (a run's prompt ids);
    ``output_tokens`` is then the rest of the stream, so the two add up to every token fed.
    When the stream's length is not known (spans in characters, nothing said), the prompt is
    0 and ``output_tokens`` adds the turn's header, body and stop tokens.
    ``reasoning_tokens`` counts the bodies the visibility rule makes reasoning (analysis,
    and text whose header leaves it in doubt; preambles are output, not reasoning) unless built in legacy-vLLM mode, where every analysis *and* commentary
    body counts, as vLLM did before its preamble fix. ``by_kind`` counts body tokens per
    content kind.
    """

    output_tokens: int
    reasoning_tokens: int
    by_kind: dict[str, int]
    unit: Unit
    prompt_tokens: int = 0

    def to_chat(self) -> dict[str, Any]:
        """The Chat Completions ``usage`` object."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.output_tokens,
            "total_tokens": self.prompt_tokens + self.output_tokens,
            "completion_tokens_details": {"reasoning_tokens": self.reasoning_tokens},
        }

    def to_responses(self) -> dict[str, Any]:
        """The Responses API ``usage`` object."""
        return {
            "input_tokens": self.prompt_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": self.output_tokens,
            "output_tokens_details": {"reasoning_tokens": self.reasoning_tokens},
            "total_tokens": self.prompt_tokens + self.output_tokens,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
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


def compute_usage(
    turn: Turn,
    *,
    legacy_vllm: bool = False,
    unit: UnitOrAuto = "auto",
    prompt_tokens: int | None = None,
    fed: int | None = None,
    tokens_before: Callable[[int], int] | None = None,
) -> Usage:
    """Count the turn's tokens; see :class:`Usage`.

    ``prompt_tokens``: the prompt's length when the caller knows it; ``fed``: how many tokens
    the stream holds so far; ``tokens_before``: for character spans, how many tokens precede
    a character offset (without it the prompt of a character stream is not counted).
    """
    unit = resolve_unit(turn, unit)
    by_kind: dict[str, int] = {}
    output = reasoning = 0
    enc = None
    if unit == "chars":
        from harmony_viz.tokens import encode, encoding

        enc = encoding()
    for msg in turn.messages:
        if enc is None:
            body = msg.content_units
            overhead = msg.header_units + (msg.end_units if msg.terminator not in (None, "eos", "<|start|>", "<|channel|>") else 0)
        else:
            if msg.token_cache is None:
                msg.token_cache = len(enc.encode_ordinary(msg.text))
            body = msg.token_cache
            overhead = len(encode(_header_text(msg)))
            overhead += 1 if msg.terminator not in (None, "eos", "<|start|>", "<|channel|>") else 0
        by_kind[msg.kind] = by_kind.get(msg.kind, 0) + body
        output += body + overhead
        if _is_reasoning(msg, legacy_vllm):
            reasoning += body
    if unit == "tokens":
        tokens_before = tokens_before or int
        fed = max(fed or 0, turn.seen)
    if fed is not None and tokens_before is not None and turn.stream_end is not None:
        fed = min(fed, tokens_before(turn.stream_end))  # <|endoftext|> ended the stream: the padding is nobody's output
    if fed is None or tokens_before is None:
        return Usage(output, reasoning, by_kind, unit, prompt_tokens or 0)
    if prompt_tokens is not None:
        prompt = min(prompt_tokens, fed)
    elif turn.start is not None:
        prompt = min(tokens_before(turn.start), fed)
    else:
        prompt = fed  # no assistant turn yet: all of it is prompt
    return Usage(fed - prompt, reasoning, by_kind, unit, prompt)
