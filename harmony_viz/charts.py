"""plotly figures of where gpt-oss output goes, built from the frames in :mod:`harmony_viz.stats`.

Each function returns a ``plotly.graph_objects.Figure`` that you can restyle
(``fig.update_layout(...)``, ``fig.update_traces(...)``) before showing or saving it.
Colours are harmony_viz's one palette (``harmony_viz/palette.json``, Okabe–Ito: distinct for
colour-blind readers): a kind is drawn here in the colour the replay gives its chips.

At scale, the chart functions also take a rows Parquet file (``stats --parquet``), a
folder of Parquet parts (``--engine ray``) or a DuckDB relation: they aggregate in DuckDB
first (quartiles, bins, sums per group) and plot those, so a million runs make a small figure.

>>> from harmony_viz.data import sample_path
>>> from harmony_viz.stats import analyze_runs, runs_frame
>>> fig = reasoning_share_by(runs_frame(analyze_runs(sample_path("findings-rag.json"))), by="source")
>>> [(trace.type, trace.name, len(trace.y)) for trace in fig.data]
[('box', 'findings-rag', 80)]
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmony_viz._static import asset_text
from harmony_viz.palette import KIND_COLOURS as _PALETTE_KINDS
from harmony_viz.palette import SEVERITY_COLOURS as _PALETTE_SEVERITIES
from harmony_viz.runs import Run, RunUsage

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = [
    "KIND_COLOURS",
    "diagnostics_by_code",
    "reasoning_share_by",
    "reasoning_share_histogram",
    "reasoning_vs_final",
    "save_report",
    "save_scale_report",
    "source_summary",
    "token_shares",
    "tokens_per_second",
]

# Output kinds in stacking order (the model's thinking first, its answer last).
STACK_KINDS = ("reasoning", "preamble", "tool_call", "final", "other")
# harmony_viz/palette.json's: each kind and severity in the colour the replay draws it in
KIND_COLOURS = dict(_PALETTE_KINDS)
SEVERITY_COLOURS = dict(_PALETTE_SEVERITIES)


def token_shares(runs: Any, *, unit: str = "tokens", by: str | None = None) -> go.Figure:
    """Stacked bars, one per run: the share of its output in each kind (bars reach 1).

    ``runs`` is :func:`harmony_viz.stats.runs_frame`; ``unit`` is ``"tokens"`` or ``"chars"``.
    Runs with no output are left out (there is nothing to divide). Given rows at scale (a
    Parquet path or DuckDB relation), one bar per ``by`` value (default source) instead.
    """
    import plotly.graph_objects as go

    _need_unit(unit)
    if _at_scale(runs):
        from harmony_viz.scale import kind_shares_by

        return kind_shares_by(runs, by or "source", unit=unit, colours=KIND_COLOURS)
    total = runs[[f"{k}_{unit}" for k in STACK_KINDS]].sum(axis=1)
    kept = runs[total > 0]
    total = total[total > 0]
    fig = go.Figure()
    for kind in STACK_KINDS:
        share = kept[f"{kind}_{unit}"] / total
        fig.add_trace(
            go.Bar(
                name=kind,
                x=kept["run"],
                y=share,
                marker_color=KIND_COLOURS[kind],
                customdata=kept[f"{kind}_{unit}"],
                hovertemplate=f"%{{x}}<br>{kind}: %{{y:.1%}} (%{{customdata}} {unit})<extra></extra>",
            )
        )
    fig.update_layout(
        barmode="stack",
        title=f"Share of output {unit} by kind, per run ({len(kept)} runs)",
        xaxis_title="run",
        yaxis=dict(title=f"share of output {unit}", tickformat=".0%", range=[0, 1]),
        legend_title="kind",
    )
    return fig


def reasoning_share_by(runs: Any, by: str = "reasoning_effort", *, unit: str = "tokens", violin: bool = False) -> go.Figure:
    """Reasoning share per run, one box (or violin) per value of ``by`` (effort, source, ``cot``…).

    Runs whose share is undefined (no reasoning, preamble, tool-call or final output) are left out.
    Given rows at scale (a Parquet path or DuckDB relation), boxes from quartiles computed in DuckDB.
    """
    import plotly.graph_objects as go

    _need_unit(unit)
    from harmony_viz.scale import share_boxes, share_by_layout

    if _at_scale(runs):
        return share_boxes(runs, by, unit=unit)
    column = "reasoning_share" if unit == "tokens" else "reasoning_share_chars"
    if by not in runs.columns:
        known = ", ".join(c for c in ("reasoning_effort", "source", "model", "cot") if c in runs.columns)
        raise KeyError(f"the runs frame has no column {by!r}; group by one of: {known}")
    data = runs[runs[column].notna()]
    groups = data[by].astype("object").where(data[by].notna(), "unknown").astype(str)
    order = _group_order(groups.unique().tolist())
    fig = go.Figure()
    for value in order:
        rows = data[groups == value]
        common = dict(name=value, y=rows[column], text=rows["run"], hovertemplate="%{text}: %{y:.2f}<extra></extra>")
        if violin:
            fig.add_trace(go.Violin(**common, box_visible=True, points="all", meanline_visible=True))
        else:
            fig.add_trace(go.Box(**common, boxpoints="all", jitter=0.4, pointpos=0))
    return share_by_layout(fig, unit=unit, by=by, note="<br><sup>reasoning / (reasoning + preamble + tool call + final), per run</sup>")


def reasoning_vs_final(runs: Any, *, colour_by: str = "source", unit: str = "tokens") -> go.Figure:
    """Scatter of reasoning against final output per run, both axes logarithmic, one trace per ``colour_by``.

    WARNING: a log axis cannot show 0, so runs with no reasoning or no final output are
    left out; the title says how many. Given rows at scale, a heat map of runs per log cell.
    """
    import plotly.graph_objects as go

    _need_unit(unit)
    if _at_scale(runs):
        from harmony_viz.scale import log_density

        return log_density(runs, unit=unit)
    x, y = f"final_{unit}", f"reasoning_{unit}"
    data = runs[(runs[x] > 0) & (runs[y] > 0)]
    dropped = len(runs) - len(data)
    groups = data[colour_by].astype("object").where(data[colour_by].notna(), "unknown").astype(str) if colour_by in data else None
    fig = go.Figure()
    for value in _group_order(groups.unique().tolist()) if groups is not None else [None]:
        rows = data if value is None else data[groups == value]
        fig.add_trace(
            go.Scatter(
                name=value or "runs",
                x=rows[x],
                y=rows[y],
                mode="markers",
                text=rows["run"],
                hovertemplate="%{text}<br>final %{x}, reasoning %{y}<extra></extra>",
            )
        )
    note = f" ({dropped} runs with a zero left out)" if dropped else ""
    fig.update_layout(
        title=f"Reasoning vs final {unit} per run{note}",
        xaxis=dict(title=f"final {unit}", type="log"),
        yaxis=dict(title=f"reasoning {unit}", type="log"),
        legend_title=colour_by,
    )
    return fig


def tokens_per_second(runs: Sequence[Run | RunUsage], *, window: int = 16) -> go.Figure:
    """Generation speed over each run that has ``token_times``: tokens/s over a sliding window, one line per run.

    The speed at token *i* is ``window`` tokens over the time they took, so a single slow
    token does not spike the line. Tokens the harness inserted (``harness_spans`` in the
    metadata, e.g. tool results in a recorded tool loop) are left out: the model did not
    generate them. Raises ValueError when no run has times (record runs with
    ``harmony-viz record``; transcripts copied from logs have none).
    """
    import plotly.graph_objects as go

    if window < 1:
        raise ValueError(f"window={window}: needs at least 1 token")
    timed = [r for r in (u.run if isinstance(u, RunUsage) else u for u in runs) if r.token_times and len(r.token_times) > 1]
    if not timed:
        raise ValueError(
            "no run has token_times (one timestamp per completion token); record runs with "
            "`harmony-viz record` or add token_times to the run file"
        )
    fig = go.Figure()
    for run in timed:
        times = _model_times(run)
        xs, ys = [], []
        for i in range(1, len(times)):
            j = max(0, i - window)
            dt = times[i] - times[j]
            if dt > 0:
                xs.append(times[i])
                ys.append((i - j) / dt)
        fig.add_trace(go.Scatter(name=run.id, x=xs, y=ys, mode="lines", hovertemplate="%{x:.2f} s: %{y:.1f} tok/s<extra></extra>"))
    fig.update_layout(
        title=f"Tokens per second over each run (window {window} tokens)",
        xaxis=dict(title="seconds since the request", type="linear"),
        yaxis=dict(title="tokens / s", type="linear", rangemode="tozero"),
        legend_title="run",
    )
    return fig


def diagnostics_by_code(diagnostics: Any) -> go.Figure:
    """Horizontal bars: how many diagnostics of each code, stacked by severity, most frequent on top.

    ``diagnostics`` is :func:`harmony_viz.stats.diagnostics_frame`. Given rows at scale
    (which keep codes, not severities), runs per code in one colour.
    """
    import plotly.graph_objects as go

    if _at_scale(diagnostics):
        from harmony_viz.scale import code_counts

        return code_counts(diagnostics, colour=SEVERITY_COLOURS["error"])

    counts = diagnostics.groupby(["code", "severity"]).size().unstack(fill_value=0)
    order = counts.sum(axis=1).sort_values(ascending=True).index.tolist()
    fig = go.Figure()
    for severity in ("error", "warning", "info"):
        if severity in counts.columns:
            fig.add_trace(
                go.Bar(name=severity, y=order, x=counts.loc[order, severity], orientation="h", marker_color=SEVERITY_COLOURS[severity])
            )
    runs = diagnostics["run"].nunique()
    fig.update_layout(
        barmode="stack",
        title=f"Diagnostics by code ({len(diagnostics)} in {runs} runs)",
        xaxis=dict(title="count", type="linear"),
        yaxis=dict(title="code", type="category"),
        legend_title="severity",
        height=max(300, 60 + 28 * len(order)),
    )
    return fig


def reasoning_share_histogram(rows: Any, *, unit: str = "tokens", bins: int = 50, by: str | None = None) -> go.Figure:
    """Runs per bin of reasoning share, binned in DuckDB; ``rows`` is a rows Parquet path, folder or DuckDB relation."""
    from harmony_viz.scale import share_histogram

    _need_unit(unit)
    return share_histogram(rows, "reasoning_share" if unit == "tokens" else "reasoning_share_chars", bins=bins, by=by)


def source_summary(rows: Any, by: str = "source") -> pd.DataFrame:
    """Per-source (or per ``by``) runs, output tokens, median shares and diagnostics, aggregated in DuckDB."""
    from harmony_viz.scale import source_summary as summary

    return summary(rows, by)


def save_report(runs: Any, path: str | Path, *, title: str = "harmony-viz stats", progress: bool | None = None,
                links: Sequence[tuple[str, str]] = ()) -> Path:
    """Write one self-contained HTML page of every chart that applies, plus a table of the runs.

    plotly.js is inlined once (no network needed to open the page). ``runs`` is anything
    :func:`harmony_viz.stats.analyze_runs` accepts, the frame :func:`harmony_viz.stats.runs_frame`
    returns (no speed chart then: the frame keeps no token times), or rows at scale (a
    ``.parquet`` file, a folder of Parquet parts, a DuckDB relation): then the charts are
    aggregates and the table is the per-source summary. ``links`` are ``(text, href)`` pairs
    to pages written beside it.
    """
    if _at_scale(runs) and (not isinstance(runs, (str, Path)) or _is_parquet(Path(runs))):
        return save_scale_report(runs, path, title=title, links=links)
    from harmony_viz.stats import analyze_runs, diagnostics_frame, runs_frame

    if _is_runs_frame(runs):
        usages, frame = [], runs
    else:
        usages = analyze_runs(runs, progress=progress)
        frame = runs_frame(usages)
    figures: list[go.Figure] = []
    if not frame.empty:
        figures.append(token_shares(frame))
        if frame["reasoning_effort"].nunique() > 1:
            figures.append(reasoning_share_by(frame, by="reasoning_effort"))
        figures.append(reasoning_share_by(frame, by="source"))
        figures.append(reasoning_vs_final(frame))
    if any(u.run.token_times for u in usages):
        figures.append(tokens_per_second(usages))
    diags = diagnostics_frame(usages) if usages else _codes_frame(frame)
    if not diags.empty:
        figures.append(diagnostics_by_code(diags))

    line = f"{len(usages)} runs, {int(frame['output_tokens'].sum()) if not frame.empty else 0} output tokens, {len(diags)} diagnostics"
    table = None if frame.empty else ("Runs", frame[[c for c in _TABLE_COLUMNS if c in frame.columns]])
    return write_report(path, title=title, line=line, figures=figures, table=table, links=links)


_HOW = "Hover a chart for values; drag to zoom, double-click to zoom out; click a legend entry to hide it."


def save_scale_report(rows: Any, path: str | Path, *, title: str = "harmony-viz stats", links: Sequence[tuple[str, str]] = ()) -> Path:
    """The report for rows at scale: one self-contained page of the aggregate charts (DuckDB) and the per-source summary, no per-run table."""
    from harmony_viz.scale import relation, summarise

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


def write_report(path: str | Path, *, title: str, line: str, figures: list[go.Figure], table: tuple[str, pd.DataFrame] | None,
                 links: Sequence[tuple[str, str]] = ()) -> Path:
    """One self-contained page: a title, a line saying what it shows and how to use it, the figures (plotly.js inlined once), a table."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{asset_text('stats_page.css')}</style>",
        "</head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p data-hv=\"page-line\">Token statistics of gpt-oss runs: {html.escape(line)}. {_HOW}"
        + "".join(f' See also: <a href="{html.escape(href)}" data-hv="page-link">{html.escape(text)}</a>.' for text, href in links) + "</p>",
    ]
    for i, fig in enumerate(figures):
        parts.append(fig.to_html(full_html=False, include_plotlyjs=(i == 0), config={"responsive": True}))
    if table is not None:
        parts.append(f"<h2>{html.escape(table[0])}</h2>")
        parts.append(table[1].to_html(index=False, escape=True, na_rep="", float_format=lambda v: f"{v:.3f}"))
    parts.append("</body></html>")
    out = Path(path)
    out.write_text("\n".join(parts), encoding="utf-8")
    return out


_TABLE_COLUMNS = (
    "run", "source", "reasoning_effort", "output_tokens", "reasoning_tokens", "preamble_tokens", "tool_call_tokens",
    "final_tokens", "reasoning_share", "reasoning_share_chars", "diagnostics", "diagnostic_codes",
)  # fmt: skip


def _model_times(run: Run) -> list[float]:
    """The run's token times without those of harness-inserted spans."""
    spans = run.metadata.extra.get("harness_spans") or []
    skip = {i for span in spans if isinstance(span, (list, tuple)) and len(span) == 2 for i in range(int(span[0]), int(span[1]))}
    return [t for i, t in enumerate(run.token_times or ()) if i not in skip]


def _is_runs_frame(value: Any) -> bool:
    """What :func:`harmony_viz.stats.runs_frame` returns: a DataFrame with its run and share columns."""
    columns = getattr(value, "columns", None)
    return columns is not None and hasattr(value, "iloc") and {"run", "output_tokens", "diagnostic_codes"} <= set(columns)


def _codes_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A runs frame's diagnostic codes as diagnostics rows (run, code, severity); severities from the scanner's table."""
    import pandas as pd

    from harmony_viz.scanner import DIAGNOSTIC_CODES

    rows = [(run, code, DIAGNOSTIC_CODES.get(code, ("error",))[0])
            for run, codes in zip(frame["run"], frame["diagnostic_codes"]) if isinstance(codes, str)
            for code in codes.split(",") if code]  # fmt: skip
    return pd.DataFrame.from_records(rows, columns=["run", "code", "severity"])


def _at_scale(value: Any) -> bool:
    from harmony_viz.scale import is_rows_source

    return is_rows_source(value)


def _is_parquet(path: Path) -> bool:
    return path.suffix.lower() == ".parquet" or (path.is_dir() and any(path.glob("*.parquet")))


def _need_unit(unit: str) -> None:
    if unit not in ("tokens", "chars"):
        raise ValueError(f"unit={unit!r}: use 'tokens' or 'chars'")


def _group_order(values: list[str]) -> list[str]:
    """Efforts in their natural order, anything else alphabetically, 'unknown' last."""
    rank = {"low": 0, "medium": 1, "high": 2}
    return sorted(values, key=lambda v: (v == "unknown", rank.get(v, 3), v))
