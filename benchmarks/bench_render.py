"""Benchmark: our renderer against openai-harmony's on the same conversations, interleaved.

Each conversation is rendered by both sides in every round (ours from our model, the
reference from its own objects, built once outside the timing); the figure is the median
ratio of the rounds, so it holds on a busy machine.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RenderFigure:
    label: str
    tokens: int
    ours_s: float
    reference_s: float

    @property
    def ratio(self) -> float:
        """Our time over the reference's (below 1: we are faster)."""
        return self.ours_s / self.reference_s


def _conversations() -> dict[str, dict]:
    tools = [
        {"name": "get_weather", "description": "Current weather.\nUse for any city.", "parameters": {
            "type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"], "default": "c"}},
            "required": ["city"]}},
        {"name": "search", "description": "Search the docs.", "parameters": {
            "type": "object", "properties": {"q": {"type": "string"}, "k": {"type": ["integer", "null"]}}, "required": ["q"]}},
    ]
    tool_round = {"messages": [
        {"role": "system", "content": [{"type": "system_content", "model_identity": "You are ChatGPT, a large language model trained by OpenAI.",
                                        "reasoning_effort": "High", "conversation_start_date": "2026-11-30", "knowledge_cutoff": "2024-06",
                                        "channel_config": {"valid_channels": ["analysis", "commentary", "final"], "channel_required": True}}]},
        {"role": "developer", "content": [{"type": "developer_content", "instructions": "Answer briefly.",
                                           "tools": {"functions": {"name": "functions", "description": None, "tools": tools}}}]},
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Lima?"}]},
        {"role": "assistant", "channel": "analysis", "content": [{"type": "text", "text": "Two calls needed."}]},
        {"role": "assistant", "channel": "commentary", "recipient": "functions.get_weather", "content_type": "<|constrain|>json",
         "content": [{"type": "text", "text": "{\"city\":\"Paris\"}"}]},
        {"role": "tool", "name": "functions.get_weather", "channel": "commentary", "content": [{"type": "text", "text": "{\"t\": 14}"}]},
        {"role": "assistant", "channel": "analysis", "content": [{"type": "text", "text": "Now Lima."}]},
        {"role": "assistant", "channel": "final", "content": [{"type": "text", "text": "Paris 14 C."}]},
    ]}
    long_chat = {"messages": [
        {"role": "user" if i % 2 == 0 else "assistant", **({} if i % 2 == 0 else {"channel": "final"}),
         "content": [{"type": "text", "text": f"turn {i}: " + "lorem ipsum dolor sit amet " * 70}]}
        for i in range(100)
    ]}
    return {"8-message tool round": tool_round, "100 messages, ~190k characters": long_chat}


def bench_render(*, rounds: int = 7) -> list[RenderFigure]:
    """Median seconds per render for each sample conversation, ours and openai-harmony's."""
    import json

    import openai_harmony as oh

    from harmony_viz.render import Conversation, render_conversation

    reference = oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
    figures = []
    for label, data in _conversations().items():
        ours_conv = Conversation.from_json(data)
        ref_conv = oh.Conversation.from_json(json.dumps(data))
        tokens = render_conversation(ours_conv)
        if tokens != reference.render_conversation(ref_conv):
            raise AssertionError(f"{label}: our tokens differ from openai-harmony's; the benchmark compares equal work only")
        sides: dict[str, Callable[[], object]] = {"ours": lambda: render_conversation(ours_conv), "ref": lambda: reference.render_conversation(ref_conv)}
        times: dict[str, list[float]] = {k: [] for k in sides}
        repeat = 20
        for _ in range(rounds):
            for name, fn in sides.items():
                t0 = time.perf_counter()
                for _ in range(repeat):
                    fn()
                times[name].append((time.perf_counter() - t0) / repeat)
        figures.append(RenderFigure(label, len(tokens), statistics.median(times["ours"]), statistics.median(times["ref"])))
    return figures


def format_render(figures: list[RenderFigure]) -> str:
    return "\n".join(
        f"  {f.label} ({f.tokens:,} tokens): ours {f.ours_s * 1e3:.2f} ms, openai-harmony {f.reference_s * 1e3:.2f} ms, ratio {f.ratio:.2f}x"
        for f in figures
    )
