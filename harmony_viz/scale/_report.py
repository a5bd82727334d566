"""The HTML report for rows at scale: aggregate charts and the per-source summary, no per-run table."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

__all__ = ["save_scale_report"]


def save_scale_report(rows: Any, path: str | os.PathLike[str], *, title: str = "harmony-viz stats") -> Path:
    """One self-contained page (plotly.js inlined once) of the charts of ``rows``, aggregated in DuckDB."""
    from harmony_viz.charts import diagnostics_by_code, reasoning_share_by, reasoning_share_histogram, reasoning_vs_final, token_shares
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
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}"
        "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px}</style>",
        "</head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{html.escape(summary.line())}.</p>",
    ]
    for i, fig in enumerate(figures):
        parts.append(fig.to_html(full_html=False, include_plotlyjs=(i == 0), config={"responsive": True}))
    if summary.runs:
        parts.append("<h2>Per source</h2>")
        parts.append(source_summary(rel).to_html(index=False, escape=True, na_rep="", float_format=lambda v: f"{v:.3f}"))
    parts.append("</body></html>")
    out = Path(path)
    out.write_text("\n".join(parts), encoding="utf-8")
    return out
