"""The HTML report for rows at scale: aggregate charts and the per-source summary, no per-run table."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["save_scale_report"]


def save_scale_report(rows: Any, path: str | os.PathLike[str], *, title: str = "harmony-viz stats", links: Sequence[tuple[str, str]] = ()) -> Path:
    """One self-contained page (plotly.js inlined once) of the charts of ``rows``, aggregated in DuckDB."""
    from harmony_viz.charts import diagnostics_by_code, reasoning_share_by, reasoning_share_histogram, reasoning_vs_final, token_shares, write_report
    from harmony_viz.scale._charts import source_summary
    from harmony_viz.scale._summary import relation, summarise

    rel = relation(rows)
    summary = summarise(rel)
    figures = []
    if summary.runs:
        figures.append(token_shares(rel, by="source"))
        if rel.aggregate("count(DISTINCT reasoning_effort)").fetchall()[0][0] > 1:
            figures.append(reasoning_share_by(rel, by="reasoning_effort"))
        figures.append(reasoning_share_by(rel, by="source"))
        figures.append(reasoning_share_histogram(rel))
        figures.append(reasoning_vs_final(rel))
        if summary.diagnostics:
            figures.append(diagnostics_by_code(rel))
    table = ("Per source", source_summary(rel)) if summary.runs else None
    return write_report(path, title=title, line=summary.line(), figures=figures, table=table, links=links)
