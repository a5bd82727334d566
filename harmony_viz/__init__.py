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
    "ContentDelta": "harmony_viz.scanner",
    "Diagnostic": "harmony_viz.scanner",
    "MessageEnd": "harmony_viz.scanner",
    "MessageStart": "harmony_viz.scanner",
    "SPECIAL_TOKENS": "harmony_viz.tokens",
    "Scanner": "harmony_viz.scanner",
    "SpecialToken": "harmony_viz.tokens",
    "ToolCallEnd": "harmony_viz.scanner",
    "ToolCallStart": "harmony_viz.scanner",
    "VocabularyError": "harmony_viz.tokens",
    "encoding": "harmony_viz.tokens",
    "special_by_id": "harmony_viz.tokens",
    "special_by_literal": "harmony_viz.tokens",
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
