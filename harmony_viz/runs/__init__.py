"""Run records: one model generation with its metadata, loaded from the files people have.

>>> from harmony_viz.data import sample_path
>>> from harmony_viz.runs import load_runs
>>> [run.id for run in load_runs(sample_path("rft_outputs.jsonl"))]
['rft_outputs#cell-37', 'rft_outputs#cell-56']
"""

from __future__ import annotations

# The record and the run files' shapes live below the reader (harmony_viz._runfile), which reads
# them too; this is their public face. Loading files (through the reader), saving and sizing are here.
from harmony_viz._runfile import (
    EFFORTS,
    Effort,
    Run,
    RunMetadata,
    effort_from_text,
    is_markdown_trial,
    jsonl_value,
    load_diagnostic,
    normalise_effort,
    read_token_ids,
    run_from_text,
    run_stream,
    runs_from_json,
    runs_from_jsonl,
    runs_from_markdown,
    runs_from_object,
    split_completion,
)
from harmony_viz.runs._load import load_file, load_runs
from harmony_viz.runs._save import append_run, save_runs
from harmony_viz.runs._usage import MessageUsage, RunUsage, run_usage

__all__ = [
    "EFFORTS",
    "Effort",
    "MessageUsage",
    "Run",
    "RunMetadata",
    "RunUsage",
    "append_run",
    "effort_from_text",
    "is_markdown_trial",
    "jsonl_value",
    "load_diagnostic",
    "load_file",
    "load_runs",
    "normalise_effort",
    "read_token_ids",
    "run_from_text",
    "run_stream",
    "run_usage",
    "runs_from_json",
    "runs_from_jsonl",
    "runs_from_markdown",
    "runs_from_object",
    "save_runs",
    "split_completion",
]
