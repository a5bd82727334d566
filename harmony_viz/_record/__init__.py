"""Recording gpt-oss runs with transformers: prompts rendered by our renderer, tool calls answered.

Needs the ``record`` extra (torch, transformers, accelerate); importing this package does
not import them, the first call that needs them does, and says how to install them.

>>> from harmony_viz._record import make_tiny_model, record
>>> make_tiny_model("tiny")                       # doctest: +SKIP
>>> run = record("tiny", "What is 2 + 3 * 4?", tools="demo", max_new_tokens=64)  # doctest: +SKIP
>>> run.metadata.extra["stop_reason"]             # doctest: +SKIP
'token_limit'
"""

from __future__ import annotations

from harmony_viz._record._calc import CalculatorError, evaluate
from harmony_viz._record._generate import ENDOFTEXT, STOP_IDS, Sampling, Segment, generate_segment
from harmony_viz._record._live import LiveFollower, follow
from harmony_viz._record._loop import Recording, ToolCallRecord, last_call, run_loop
from harmony_viz._record._model import LoadedModel, ModelLoadError, load_model
from harmony_viz._record._prompt import build_conversation, render_prompt, render_tool_turn
from harmony_viz._record._prompts import PromptSpec, read_prompt_specs
from harmony_viz._record._record import check_effort, record, record_batch
from harmony_viz._record._server import Failure, ServerBatch, ServerOptions, record_server, record_server_batch
from harmony_viz._record._tools import Tool, ToolRegistry, ToolResult, demo_tools
from harmony_viz.extras import INSTALL_HINT, MissingExtraError
from harmony_viz.tiny import make_tiny_model

__all__ = [
    "ENDOFTEXT",
    "INSTALL_HINT",
    "STOP_IDS",
    "CalculatorError",
    "Failure",
    "LiveFollower",
    "LoadedModel",
    "MissingExtraError",
    "ModelLoadError",
    "PromptSpec",
    "Recording",
    "Sampling",
    "Segment",
    "ServerBatch",
    "ServerOptions",
    "Tool",
    "ToolCallRecord",
    "ToolRegistry",
    "ToolResult",
    "build_conversation",
    "check_effort",
    "demo_tools",
    "evaluate",
    "follow",
    "generate_segment",
    "last_call",
    "load_model",
    "make_tiny_model",
    "read_prompt_specs",
    "record",
    "record_batch",
    "record_server",
    "record_server_batch",
    "render_prompt",
    "render_tool_turn",
    "resolve_tools",
    "run_loop",
]
