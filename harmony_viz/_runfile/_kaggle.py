"""Kaggle red-team findings files: one run per ``harmony_response_walkthroughs`` entry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harmony_viz._runfile._model import Run, RunMetadata, effort_from_text, load_diagnostic, normalise_effort


def is_findings(obj: Any) -> bool:
    return isinstance(obj, dict) and "harmony_response_walkthroughs" in obj


def runs_from_findings(obj: dict[str, Any], path: Path) -> list[Run]:
    """Each walkthrough is a whole conversation in Harmony text (prompt and answer, no split)."""
    model = obj.get("model") if isinstance(obj.get("model"), dict) else {}
    params = model.get("parameters") if isinstance(model.get("parameters"), dict) else {}
    env = obj.get("environment") if isinstance(obj.get("environment"), dict) else {}
    sampling = {k: v for k, v in params.items() if k in ("temperature", "top_p", "top_k", "max_output_tokens")}
    extra: dict[str, Any] = {"path": str(path)}
    if obj.get("issue_title"):
        extra["issue_title"] = obj["issue_title"]
    if env.get("endpoint"):
        extra["endpoint"] = env["endpoint"]
    if model.get("provider"):
        extra["provider"] = model["provider"]
    file_effort = normalise_effort(params.get("reasoning_level"))

    walkthroughs = obj["harmony_response_walkthroughs"]
    if not isinstance(walkthroughs, list):
        meta = RunMetadata(model=model.get("name"), source=path.stem, extra=extra)
        bad = load_diagnostic(
            "load.bad-entry",
            f"{path}: harmony_response_walkthroughs is a {type(walkthroughs).__name__}, expected a list of Harmony strings",
        )
        return [Run(id=f"{path.stem}#0", metadata=meta, text="", diagnostics=(bad,))]

    runs = []
    for i, entry in enumerate(walkthroughs):
        diagnostics = ()
        if isinstance(entry, str):
            text = entry
        else:
            text = ""
            diagnostics = (
                load_diagnostic(
                    "load.bad-entry",
                    f"{path}: harmony_response_walkthroughs[{i}] is a {type(entry).__name__}, expected a Harmony string",
                ),
            )
        meta = RunMetadata(
            model=model.get("name"),
            # The rendered system message is what the model saw; the file's field is a fallback.
            reasoning_effort=effort_from_text(text) or file_effort,
            source=path.stem,
            sampling=dict(sampling),
            extra={**extra, "entry": i},
        )
        runs.append(Run(id=f"{path.stem}#{i}", metadata=meta, text=text, diagnostics=diagnostics))
    return runs
