"""harmony_viz: see inside OpenAI's Harmony format, the token format of gpt-oss.

The top level holds the notebook verbs (``replay``, ``playground``, ``render_conversation``,
``lint``, ``record``, ``capture``, ``load_runs``, the frames and charts); everything else is
grouped under its subpackage (``harmony_viz.scanner``, ``.projections``, ``.render``,
``.tokens``, ``.inputs``, ``.leak``, ``.runs``, ``.trace``, ``.stats``, ``.charts``, ``.servers``,
``.templates``, ``.scale``, ``.data``, ``.findings``, ``.conformance``). Names are loaded on first use, so ``import
harmony_viz`` stays light (no pandas, plotly, torch or widget machinery until asked for).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# Public name -> the module that defines it. Keep sorted by name.
_EXPORTS: dict[str, str] = {
    "DeclaredTool": "harmony_viz._lint",
    "PlaygroundWidget": "harmony_viz._playground",
    "ReplayWidget": "harmony_viz._replay",
    "analyze_runs": "harmony_viz.stats",
    "capture": "harmony_viz.servers",
    "conversation_from_chat": "harmony_viz.render",
    "declared_tools": "harmony_viz._lint",
    "diagnostics_by_code": "harmony_viz.charts",
    "diagnostics_frame": "harmony_viz.stats",
    "encoding": "harmony_viz.tokens",
    "lint": "harmony_viz._lint",
    "lint_prompt": "harmony_viz._lint",
    "load_model": "harmony_viz._record",
    "load_runs": "harmony_viz.runs",
    "make_tiny_model": "harmony_viz._record",
    "messages_frame": "harmony_viz.stats",
    "playground": "harmony_viz._playground",
    "reasoning_share_by": "harmony_viz.charts",
    "reasoning_vs_final": "harmony_viz.charts",
    "record": "harmony_viz._record",
    "record_batch": "harmony_viz._record",
    "render_conversation": "harmony_viz.render",
    "render_conversation_for_completion": "harmony_viz.render",
    "render_conversation_for_training": "harmony_viz.render",
    "render_text": "harmony_viz.render",
    "replay": "harmony_viz._replay",
    "runs_frame": "harmony_viz.stats",
    "save_html": "harmony_viz._replay",
    "save_report": "harmony_viz.charts",
    "token_shares": "harmony_viz.charts",
    "tokens_per_second": "harmony_viz.charts",
}

# Subpackages reachable as attributes (``hv.scanner.scan``), imported on first use.
_SUBPACKAGES = frozenset(
    {"charts", "cli", "conformance", "data", "findings", "inputs", "leak", "projections", "render", "runs", "scale", "scanner", "servers", "stats", "templates",
     "tokens", "trace"}
)

# Names that sat at the top level before they moved into their subpackage: reading one is an
# AttributeError that says where it lives now (there are no aliases; nothing forwards).
_HOMES_BY_PACKAGE: dict[str, str] = {
    "harmony_viz.render": "Author ChannelConfig Conversation DeveloperContent Message ReasoningEffort RenderError RenderOptions Role "
                          "SystemContent TextContent ToolDescription ToolNamespaceConfig schema_to_typescript",
    "harmony_viz.scanner": "ContentDelta Diagnostic MessageEnd MessageStart Scanner ToolCallEnd ToolCallStart scan",
    "harmony_viz.projections": "Projector Usage chat_completion chat_completion_chunks project_for_cli response response_events usage",
    "harmony_viz.leak": "LeakReport detect_leak escape escape_json repair_reasoning_leak unescape unescape_json",
    "harmony_viz.tokens": "SPECIAL_TOKENS SpecialToken VocabularyError special_by_id special_by_literal",
    "harmony_viz.runs": "Run RunMetadata RunUsage run_usage save_runs",
    "harmony_viz.trace": "Chunking Trace",
}
_HOMES = {name: home for home, names in _HOMES_BY_PACKAGE.items() for name in names.split()}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    if name in _SUBPACKAGES:
        return importlib.import_module(f"harmony_viz.{name}")
    home = _HOMES.get(name)
    if home is not None:
        raise AttributeError(f"harmony_viz has no attribute {name!r}; it lives in {home}.{name}")
    raise AttributeError(f"module 'harmony_viz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, *_SUBPACKAGES])
