"""Charts of many runs: DuckDB aggregates first (quartiles, bins, sums per group), then a small plotly figure.

A million bars is no chart: each function here sends plotly a handful of numbers per group,
whatever the number of runs. ``rows`` is a rows Parquet file (or folder of parts) or a
DuckDB relation over rows (see :func:`harmony_viz.scale.relation`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harmony_viz.scale._summary import relation

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = ["code_counts", "kind_shares_by", "log_density", "share_boxes", "share_histogram", "source_summary"]

_KINDS = ("reasoning", "preamble", "tool_call", "final", "other")
_RANK = {"low": 0, "medium": 1, "high": 2}


def _group(by: str) -> str:
    return f"coalesce(CAST(\"{by}\" AS VARCHAR), 'unknown')"


def _order(values: list[str]) -> list[str]:
    return sorted(values, key=lambda v: (v == "unknown", _RANK.get(v, 3), v))


def _check(rel: Any, *names: str) -> None:
    missing = [n for n in names if n not in rel.columns]
    if missing:
        known = ", ".join(c for c in ("reasoning_effort", "source", "model") if c in rel.columns)
        raise KeyError(f"the rows have no column {missing[0]!r}; group by one of: {known}")


def share_boxes(rows: Any, by: str = "reasoning_effort", *, unit: str = "tokens", colours: dict[str, str] | None = None) -> go.Figure:
    """One box per value of ``by`` from precomputed quartiles; whiskers reach the minimum and maximum."""
    import plotly.graph_objects as go

    rel = relation(rows)
    column = "reasoning_share" if unit == "tokens" else "reasoning_share_chars"
    _check(rel, by)
    stats = rel.filter(f"{column} IS NOT NULL").aggregate(
        f"{_group(by)} AS g, count(*) AS n, min({column}), quantile_cont({column}, [0.25, 0.5, 0.75]), max({column}), avg({column})", f"{_group(by)}"
    ).fetchall()
    by_group = {row[0]: row[1:] for row in stats}
    fig = go.Figure()
    for g in _order(list(by_group)):
        n, lo, (q1, med, q3), hi, mean = by_group[g]
        fig.add_trace(
            go.Box(name=g, x=[g], q1=[q1], median=[med], q3=[q3], lowerfence=[lo], upperfence=[hi], mean=[mean], boxpoints=False,
                   hovertext=f"{n} runs", marker_color=(colours or {}).get(g))  # fmt: skip
        )
    total = sum(v[0] for v in by_group.values())
    return share_by_layout(fig, unit=unit, by=by, note=f" ({total} runs)<br><sup>quartiles per group; whiskers at min and max</sup>")


def share_by_layout(fig: go.Figure, *, unit: str, by: str, note: str) -> go.Figure:
    """The title and axes of the reasoning share by group, drawn from runs or (``share_boxes``) from quartiles; ``note`` follows the title."""
    fig.update_layout(
        title=f"Reasoning share of output {unit} by {by}{note}",
        xaxis=dict(title=by, type="category"),
        yaxis=dict(title=f"reasoning share ({unit})", tickformat=".0%", range=[0, 1.02]),
        showlegend=False,
    )
    return fig


def share_histogram(rows: Any, column: str = "reasoning_share", *, bins: int = 50, by: str | None = None) -> go.Figure:
    """Counts of runs per bin of a share (0..1), binned in DuckDB; one overlaid trace per ``by`` value."""
    import plotly.graph_objects as go

    if bins < 1:
        raise ValueError(f"bins={bins}: needs at least 1")
    rel = relation(rows)
    _check(rel, column, *([by] if by else []))
    group = _group(by) if by else "'runs'"
    counts = rel.filter(f"{column} IS NOT NULL").aggregate(
        f"{group} AS g, least(CAST(floor({column} * {bins}) AS INTEGER), {bins - 1}) AS b, count(*) AS n", f"{group}, b"
    ).fetchall()
    fig = go.Figure()
    for g in _order(sorted({row[0] for row in counts})):
        mine = sorted((b, n) for gg, b, n in counts if gg == g)
        fig.add_trace(go.Bar(name=g, x=[(b + 0.5) / bins for b, _ in mine], y=[n for _, n in mine], width=1 / bins))
    fig.update_layout(
        barmode="overlay" if by else "relative",
        title=f"Runs by {column} ({bins} bins)",
        xaxis=dict(title=column, tickformat=".0%", range=[0, 1]),
        yaxis=dict(title="runs"),
        legend_title=by or "",
    )
    if by:
        fig.update_traces(opacity=0.6)
    return fig


def kind_shares_by(rows: Any, by: str = "source", *, unit: str = "tokens", colours: dict[str, str] | None = None) -> go.Figure:
    """Stacked bars, one per value of ``by``: the share of all its runs' output in each kind (bars reach 1)."""
    import plotly.graph_objects as go

    rel = relation(rows)
    _check(rel, by)
    sums = ", ".join(f"sum({k}_{unit})" for k in _KINDS)
    data = {row[0]: row[1:] for row in rel.aggregate(f"{_group(by)} AS g, count(*), {sums}", _group(by)).fetchall()}
    order = [g for g in _order(list(data)) if sum(data[g][1:]) > 0]
    fig = go.Figure()
    for i, kind in enumerate(_KINDS):
        fig.add_trace(
            go.Bar(name=kind, x=order, y=[data[g][1 + i] / sum(data[g][1:]) for g in order], customdata=[[data[g][1 + i], data[g][0]] for g in order],
                   marker_color=(colours or {}).get(kind),
                   hovertemplate=f"%{{x}}<br>{kind}: %{{y:.1%}} (%{{customdata[0]}} {unit} in %{{customdata[1]}} runs)<extra></extra>")  # fmt: skip
        )
    fig.update_layout(
        barmode="stack",
        title=f"Share of output {unit} by kind, per {by} ({sum(data[g][0] for g in order)} runs)",
        xaxis=dict(title=by, type="category"),
        yaxis=dict(title=f"share of output {unit}", tickformat=".0%", range=[0, 1]),
        legend_title="kind",
    )
    return fig


def log_density(rows: Any, *, unit: str = "tokens", bins: int = 40) -> go.Figure:
    """Reasoning against final output as a heat map of runs per log-spaced cell (runs with a zero left out)."""
    import plotly.graph_objects as go

    rel = relation(rows)
    x, y = f"final_{unit}", f"reasoning_{unit}"
    kept = rel.filter(f"{x} > 0 AND {y} > 0")
    (lx, hx, ly, hy, n), = kept.aggregate(f"min(log10({x})), max(log10({x})), min(log10({y})), max(log10({y})), count(*)").fetchall()
    fig = go.Figure()
    if n:
        sx, sy = max(hx - lx, 1e-9) / bins, max(hy - ly, 1e-9) / bins
        cells = kept.aggregate(
            f"least(CAST(floor((log10({x}) - {lx}) / {sx}) AS INTEGER), {bins - 1}) AS i, "
            f"least(CAST(floor((log10({y}) - {ly}) / {sy}) AS INTEGER), {bins - 1}) AS j, count(*)", "i, j"
        ).fetchall()
        z = [[0] * bins for _ in range(bins)]
        for i, j, c in cells:
            z[j][i] = c
        fig.add_trace(go.Heatmap(x=[10 ** (lx + (i + 0.5) * sx) for i in range(bins)], y=[10 ** (ly + (j + 0.5) * sy) for j in range(bins)],
                                 z=z, colorscale="Blues", colorbar=dict(title="runs"), hovertemplate="final %{x:.0f}, reasoning %{y:.0f}: %{z} runs<extra></extra>"))  # fmt: skip
    dropped = relation(rows).aggregate("count(*)").fetchall()[0][0] - n
    fig.update_layout(
        title=f"Reasoning vs final {unit}, runs per cell ({n} runs{f'; {dropped} with a zero left out' if dropped else ''})",
        xaxis=dict(title=f"final {unit}", type="log"),
        yaxis=dict(title=f"reasoning {unit}", type="log"),
    )
    return fig


def code_counts(rows: Any, *, colour: str = "#D55E00") -> go.Figure:
    """Horizontal bars: runs with each diagnostic code, most frequent on top."""
    import plotly.graph_objects as go

    rel = relation(rows)
    counts = rel.query("r", "SELECT code, count(*) FROM (SELECT unnest(diagnostic_codes) AS code FROM r) GROUP BY code ORDER BY count(*), code DESC").fetchall()
    fig = go.Figure(go.Bar(y=[c for c, _ in counts], x=[n for _, n in counts], orientation="h", marker_color=colour, name="runs"))
    fig.update_layout(
        title=f"Runs with each diagnostic code ({len(counts)} codes)",
        xaxis=dict(title="runs", type="linear"),
        yaxis=dict(title="code", type="category"),
        height=max(300, 60 + 28 * len(counts)),
    )
    return fig


def source_summary(rows: Any, by: str = "source") -> pd.DataFrame:
    """One row per value of ``by``: runs, output tokens, median reasoning shares, diagnostics, errors."""
    rel = relation(rows)
    _check(rel, by)
    frame = rel.aggregate(
        f"{_group(by)} AS \"{by}\", count(*) AS runs, sum(output_tokens) AS output_tokens, median(reasoning_share) AS median_reasoning_share, "
        f"median(reasoning_share_chars) AS median_reasoning_share_chars, sum(diagnostics) AS diagnostics, sum(errors) AS errors",
        _group(by),
    ).df()
    return frame.set_index(by).loc[_order(frame[by].tolist())].reset_index()
