"""Prompt/completion JSON runs (``finding5_runs/*.json``): the prompt and the generated text apart.

WARNING: such files keep text, not the ids the model produced; the ids are re-encoded from
the text (``metadata.extra["token_ids"] == "re-encoded"``), which can differ from the
sampled ids where the model chose an unusual split of the same characters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harmony_viz._runfile._model import Run, RunMetadata, effort_from_text, load_diagnostic, normalise_effort

# (prompt key, completion key) pairs in the order they are tried.
_KEY_PAIRS = (("prefill_text", "completion_text"), ("prompt", "completion"), ("prompt_text", "completion_text"))
_KNOWN = {"prefill_text", "completion_text", "output_text", "prompt", "completion", "prompt_text", "messages"}


def is_prompt_completion(obj: Any) -> bool:
    return isinstance(obj, dict) and any(c in obj for _, c in _KEY_PAIRS)


def run_from_prompt_completion(obj: dict[str, Any], path: Path, run_id: str) -> Run:
    """One run from an object holding the prompt and completion as Harmony text."""
    from harmony_viz.tokens import encode

    prompt_key, completion_key = next((p, c) for p, c in _KEY_PAIRS if c in obj)
    prompt, completion = obj.get(prompt_key, ""), obj.get(completion_key)
    diagnostics = []
    if not isinstance(prompt, str):
        diagnostics.append(load_diagnostic("load.bad-entry", f"{path}: {prompt_key!r} is a {type(prompt).__name__}, expected Harmony text; prompt dropped"))
        prompt = ""
    if not isinstance(completion, str):
        diagnostics.append(load_diagnostic("load.bad-entry", f"{path}: {completion_key!r} is a {type(completion).__name__}, expected Harmony text; completion dropped"))
        completion = ""
    seed = obj.get("seed")
    sampling = {k: obj[k] for k in ("temperature", "top_p", "top_k", "max_tokens", "max_new_tokens") if k in obj}
    extra = {k: v for k, v in obj.items() if k not in _KNOWN and k not in sampling and k not in ("seed", "timestamp_utc", "model", "reasoning_effort")}
    extra.update(path=str(path), token_ids="re-encoded")
    experiment = obj.get("experiment")
    meta = RunMetadata(
        model=obj.get("model") if isinstance(obj.get("model"), str) else None,
        reasoning_effort=normalise_effort(obj.get("reasoning_effort")) or effort_from_text(prompt),
        source=str(experiment) if experiment else path.parent.name or path.stem,
        sampling=sampling,
        seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        started_at=obj.get("timestamp_utc") if isinstance(obj.get("timestamp_utc"), str) else None,
        extra=extra,
    )
    return Run(
        id=run_id,
        metadata=meta,
        prompt_token_ids=tuple(encode(prompt)),
        completion_token_ids=tuple(encode(completion)),
        diagnostics=tuple(diagnostics),
    )
