"""Streams shared by the trace, widget and browser tests: real gpt-oss output and a hostile one."""

from __future__ import annotations

import json
from pathlib import Path

# Markup in every place a model or a user could put it: a user message, reasoning, a tool
# call's arguments and the final answer. None of it may ever run in the page.
XSS_TEXT = (
    "<|start|>user<|message|>Say <img src=x onerror=\"window.__hv_xss=1\"> and <script>window.__hv_xss=2</script><|end|>"
    "<|start|>assistant<|channel|>analysis<|message|>They typed <b onmouseover=\"window.__hv_xss=3\">bold</b> é 日本 🦜<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.echo <|constrain|>json<|message|>"
    "{\"html\": \"<svg onload=window.__hv_xss=4>\"}<|call|>"
    "<|start|>functions.echo to=assistant<|channel|>commentary<|message|><iframe src=javascript:window.__hv_xss=5><|end|>"
    "<|start|>assistant<|channel|>final<|message|>Literal: <script>window.__hv_xss=6</script> &amp; <|return|>"
)


def finding5(corpus_dir: Path, name: str) -> str:
    """A real gpt-oss-20b run (prompt then completion) from the ndurner red-team set."""
    d = json.loads((corpus_dir / "ndurner_gpt-oss-rt-run" / "finding5_runs" / f"{name}.json").read_text(encoding="utf-8"))
    return d["prefill_text"] + d["completion_text"]


def rft(corpus_dir: Path, index: int = 0) -> str:
    """A real transcript (system, user, analysis, final) from openai/gpt-oss's fine-tuning notebook."""
    lines = (corpus_dir / "openai_gpt-oss_rft_notebook" / "rft_outputs.jsonl").read_text(encoding="utf-8").splitlines()
    return json.loads(lines[index])["output_text"]


def long_ids(corpus_dir: Path, n_tokens: int) -> list[int]:
    """About ``n_tokens`` of real transcripts back to back (repeated as needed), cut at a message end."""
    from benchmarks import tile
    from harmony_viz.tokens import encoding

    enc = encoding()
    texts = [finding5(corpus_dir, n) for n in ("helpful-1", "cyberthreat-17", "cyberthreat-24", "helpful-3")]
    texts += [rft(corpus_dir, 0), rft(corpus_dir, 1)]
    return tile([enc.encode(t, allowed_special="all") for t in texts], n_tokens)
