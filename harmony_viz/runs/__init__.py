"""Run records: one model generation with its metadata, loaded from the files people have.

>>> from harmony_viz.data import sample_path
>>> from harmony_viz.runs import load_runs
>>> [run.id for run in load_runs(sample_path("rft_outputs.jsonl"))]
['rft_outputs#cell-37', 'rft_outputs#cell-56']
"""

from __future__ import annotations

from harmony_viz.runs._jsonl import jsonl_value
from harmony_viz.runs._load import load_file, load_runs, runs_from_json, runs_from_jsonl, runs_from_object
from harmony_viz.runs._markdown import is_markdown_trial, runs_from_markdown, split_completion
from harmony_viz.runs._model import EFFORTS, Effort, Run, RunMetadata, effort_from_text, load_diagnostic, normalise_effort
from harmony_viz.runs._save import append_run, save_runs
from harmony_viz.runs._text import run_from_text
from harmony_viz.runs._token_ids import read_token_ids
from harmony_viz.runs._usage import MessageUsage, RunUsage, run_stream, run_usage

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
