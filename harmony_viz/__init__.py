"""harmony_viz: see inside OpenAI's Harmony format, the token format of gpt-oss.

Names are loaded on first use, so ``import harmony_viz`` stays light (no pandas, plotly,
torch or widget machinery until asked for).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it. Keep sorted by name.
_EXPORTS: dict[str, str] = {
    "Author": "harmony_viz.render",
    "ChannelConfig": "harmony_viz.render",
    "Chunking": "harmony_viz.trace",
    "ContentDelta": "harmony_viz.scanner",
    "Conversation": "harmony_viz.render",
    "DeclaredTool": "harmony_viz.lint",
    "DeveloperContent": "harmony_viz.render",
    "Diagnostic": "harmony_viz.scanner",
    "LeakReport": "harmony_viz.leak",
    "Message": "harmony_viz.render",
    "MessageEnd": "harmony_viz.scanner",
    "MessageStart": "harmony_viz.scanner",
    "Projector": "harmony_viz.projections",
    "ReasoningEffort": "harmony_viz.render",
    "RenderError": "harmony_viz.render",
    "RenderOptions": "harmony_viz.render",
    "ReplayWidget": "harmony_viz._replay",
    "Role": "harmony_viz.render",
    "Run": "harmony_viz.runs",
    "RunMetadata": "harmony_viz.runs",
    "RunUsage": "harmony_viz.runs",
    "SPECIAL_TOKENS": "harmony_viz.tokens",
    "Scanner": "harmony_viz.scanner",
    "SpecialToken": "harmony_viz.tokens",
    "SystemContent": "harmony_viz.render",
    "TextContent": "harmony_viz.render",
    "ToolCallEnd": "harmony_viz.scanner",
    "ToolCallStart": "harmony_viz.scanner",
    "ToolDescription": "harmony_viz.render",
    "ToolNamespaceConfig": "harmony_viz.render",
    "Trace": "harmony_viz.trace",
    "Usage": "harmony_viz.projections",
    "VocabularyError": "harmony_viz.tokens",
    "analyze_runs": "harmony_viz.stats",
    "capture": "harmony_viz.servers._capture",
    "chat_completion": "harmony_viz.projections",
    "chat_completion_chunks": "harmony_viz.projections",
    "conversation_from_chat": "harmony_viz.render",
    "declared_tools": "harmony_viz.lint",
    "detect_leak": "harmony_viz.leak",
    "diagnostics_by_code": "harmony_viz.charts",
    "diagnostics_frame": "harmony_viz.stats",
    "encoding": "harmony_viz.tokens",
    "escape": "harmony_viz.leak",
    "escape_json": "harmony_viz.leak",
    "lint": "harmony_viz.lint",
    "lint_prompt": "harmony_viz.lint",
    "load_runs": "harmony_viz.runs",
    "make_tiny_model": "harmony_viz.record",
    "messages_frame": "harmony_viz.stats",
    "playground": "harmony_viz.playground",
    "project_for_cli": "harmony_viz.projections",
    "reasoning_share_by": "harmony_viz.charts",
    "reasoning_vs_final": "harmony_viz.charts",
    "record": "harmony_viz.record",
    "record_batch": "harmony_viz.record",
    "render_conversation": "harmony_viz.render",
    "render_conversation_for_completion": "harmony_viz.render",
    "render_conversation_for_training": "harmony_viz.render",
    "render_text": "harmony_viz.render",
    "repair_reasoning_leak": "harmony_viz.leak",
    "replay": "harmony_viz._replay",
    "response": "harmony_viz.projections",
    "response_events": "harmony_viz.projections",
    "run_usage": "harmony_viz.runs",
    "runs_frame": "harmony_viz.stats",
    "save_html": "harmony_viz._replay",
    "save_report": "harmony_viz.charts",
    "save_runs": "harmony_viz.runs",
    "scan": "harmony_viz.scanner",
    "schema_to_typescript": "harmony_viz.render",
    "special_by_id": "harmony_viz.tokens",
    "special_by_literal": "harmony_viz.tokens",
    "token_shares": "harmony_viz.charts",
    "tokens_per_second": "harmony_viz.charts",
    "unescape": "harmony_viz.leak",
    "unescape_json": "harmony_viz.leak",
    "usage": "harmony_viz.projections",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'harmony_viz' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
