"""What the server-lens tests share: the shipped streams and captures, and the codes VLLM.md's rows imply."""

from __future__ import annotations

from pathlib import Path

LENS = Path(__file__).resolve().parents[1] / "harmony_viz" / "data" / "server_lens"
STREAMS = LENS / "streams"
CAPTURES = LENS / "captures" / "vllm"
LLAMA_CAPTURES = LENS / "captures" / "llama.cpp"
SGLANG_CAPTURES = LENS / "captures" / "sglang"
GPT_OSS_CAPTURES = LENS / "captures" / "gpt-oss"
REQUEST = LENS / "request.json"
APIS = ("chat", "chat-stream", "responses", "responses-stream")

# Chat Completions: the codes each row of VLLM.md's table implies (vLLM 0.32.0, tool parser on).
CHAT_CODES = {
    "seed-001": {"arguments-reserialized", "field-name"},  # re-serialised arguments; `reasoning` not `reasoning_content`
    "doubled-channel": {"text-dropped"},
    "leading-space-channel": {"text-dropped"},
    "glued-channel": {"text-dropped"},
    "dangling-header": {"control-token-in-content"},  # "Hi\n<|start|>assistant"
    "no-channel": {"text-dropped"},
    "stripped-control-tokens": {"reasoning-in-content"},
    "bare-name-call": {"arguments-reserialized"},
    "capitalised-channel": {"text-dropped"},
    "clean-final": {"field-name"},
    "preamble-then-final": set(),  # "Let me think.\nDone."
    "analysis-cut-off": {"field-name"},
    "builtin-python-call": {"field-name"},  # the python call comes back as reasoning, as ours
}


def codes(result) -> set[str]:  # noqa: ANN001
    return {d.code for d in result.discrepancies}
