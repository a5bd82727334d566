"""Run records and the shapes of run files: below the reader, so the reader and ``harmony_viz.runs`` share them.

The ``Run`` record (``RunMetadata``, efforts, load diagnostics), each run-file shape (our
JSONL, Kaggle findings, prompt/completion JSON, notebook extracts, token-id arrays,
Markdown trials, Harmony text), what a capture is, a run as one token stream, and big
files read in batches (Parquet, gzipped JSONL, saved datasets). Everything here reads
plain data into plain records: it imports nothing above ``tokens``, ``findings``,
``render`` and ``scanner``. ``harmony_viz.runs`` is the public face of these names; the
reader (``harmony_viz.inputs``) picks the shape.

Names are loaded on first use, so the reader's error (``InputError``) costs no scanner.

>>> from harmony_viz._runfile import Run, run_stream
>>> run_stream(Run(id="x", completion_token_ids=(12194,)))
([12194], 0, 'assistant')
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES: dict[str, str] = {
    "InputError": "_errors", "parse_jsonl_line": "_errors",
    "EFFORTS": "_model", "Effort": "_model", "Run": "_model", "RunMetadata": "_model", "effort_from_text": "_model", "load_diagnostic": "_model",
    "normalise_effort": "_model",
    "jsonl_value": "_jsonl",
    "is_markdown_trial": "_markdown", "runs_from_markdown": "_markdown", "split_completion": "_markdown",
    "run_from_text": "_text",
    "read_token_ids": "_token_ids",
    "CAPTURE_APIS": "_shapes", "is_capture": "_shapes", "runs_from_json": "_shapes", "runs_from_jsonl": "_shapes", "runs_from_object": "_shapes",
    "run_stream": "_stream",
    "runs_for_batch": "_records", "runs_from_record": "_records",
    "BATCH_KINDS": "_big", "Unit": "_big", "check_readable": "_big", "load_dataset": "_big", "parquet_file": "_big", "read_big": "_big", "unit_batches": "_big",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'harmony_viz._runfile' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"harmony_viz._runfile.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
