"""plotly figures built from the bundled real runs: traces, axes and the numbers they carry."""

from __future__ import annotations

import math
import re

import pytest

from harmony_viz.charts import STACK_KINDS, diagnostics_by_code, reasoning_share_by, reasoning_vs_final, save_report, token_shares, tokens_per_second
from harmony_viz.data import sample_path, sample_paths
from harmony_viz.runs import Run, RunMetadata, load_runs
from harmony_viz.stats import analyze_runs, diagnostics_frame, runs_frame


@pytest.fixture(scope="module")
def usages():
    """Every bundled run, scanned once."""
    return analyze_runs(sample_paths(), progress=False)


@pytest.fixture(scope="module")
def frame(usages):
    """The runs frame of the bundled runs."""
    return runs_frame(usages)


def test_token_shares_stack_one_bar_per_run_to_one(frame):
    fig = token_shares(frame)
    assert [t.type for t in fig.data] == ["bar"] * len(STACK_KINDS)
    assert [t.name for t in fig.data] == list(STACK_KINDS)
    assert fig.layout.barmode == "stack" and fig.layout.yaxis.tickformat == ".0%"
    with_output = frame[frame["output_tokens"] - frame["tool_result_tokens"] > 0]
    assert list(fig.data[0].x) == with_output["run"].tolist()
    totals = [sum(t.y[i] for t in fig.data) for i in range(len(with_output))]
    assert all(abs(total - 1) < 1e-9 for total in totals)
    # The reasoning bar of each run is its reasoning tokens over its output tokens.
    row = with_output.iloc[0]
    assert fig.data[0].y[0] == pytest.approx(row["reasoning_tokens"] / (row["output_tokens"] - row["tool_result_tokens"]))


def test_token_shares_in_characters(frame):
    fig = token_shares(frame, unit="chars")
    assert "chars" in fig.layout.title.text and list(fig.data[3].customdata) == frame.loc[frame["output_chars"] > 0, "final_chars"].tolist()
    with pytest.raises(ValueError, match="unit='words': use 'tokens' or 'chars'"):
        token_shares(frame, unit="words")


def test_reasoning_share_by_effort_is_one_box_per_effort_in_order(frame):
    fig = reasoning_share_by(frame, by="reasoning_effort")
    assert [t.type for t in fig.data] == ["box", "box"]
    assert [t.name for t in fig.data] == ["low", "medium"]  # rft is low effort, the rest medium
    assert fig.layout.xaxis.type == "category" and fig.layout.yaxis.tickformat == ".0%"
    low = frame[(frame["reasoning_effort"] == "low") & frame["reasoning_share"].notna()]
    assert sorted(fig.data[0].y) == sorted(low["reasoning_share"])
    assert sum(len(t.y) for t in fig.data) == int(frame["reasoning_share"].notna().sum())


def test_reasoning_share_by_source_as_violins(frame):
    fig = reasoning_share_by(frame, by="source", unit="chars", violin=True)
    assert {t.type for t in fig.data} == {"violin"}
    assert sorted(t.name for t in fig.data) == sorted(frame["source"].unique())
    rag = next(t for t in fig.data if t.name == "findings-rag")
    assert len(rag.y) == 80 and 0.85 <= sorted(rag.y)[40] <= 0.93
    with pytest.raises(KeyError, match="the runs frame has no column 'temperature_x'; group by one of: reasoning_effort, source"):
        reasoning_share_by(frame, by="temperature_x")


def test_reasoning_vs_final_uses_log_axes_and_positive_points(frame):
    fig = reasoning_vs_final(frame)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert {t.type for t in fig.data} == {"scatter"} and {t.mode for t in fig.data} == {"markers"}
    points = [(x, y) for t in fig.data for x, y in zip(t.x, t.y)]
    both = frame[(frame["final_tokens"] > 0) & (frame["reasoning_tokens"] > 0)]
    assert len(points) == len(both) and all(x > 0 and y > 0 for x, y in points)
    dropped = len(frame) - len(both)
    assert f"({dropped} runs with a zero left out)" in fig.layout.title.text
    assert sorted(t.name for t in fig.data) == sorted(both["source"].unique())


def test_tokens_per_second_from_token_times():
    (run,) = load_runs(sample_path("finding5_runs/helpful-47.json"))
    n = len(run.completion_token_ids)
    # A real completion replayed at 40 tokens/s, then 10 tokens/s from the middle on.
    half = n // 2
    times = [0.5 + i / 40 for i in range(half)] + [0.5 + (half - 1) / 40 + (i + 1) / 10 for i in range(n - half)]
    timed = Run(id="timed", metadata=run.metadata, prompt_token_ids=run.prompt_token_ids,
                completion_token_ids=run.completion_token_ids, token_times=tuple(times))  # fmt: skip
    fig = tokens_per_second([timed, run], window=8)
    (trace,) = fig.data
    assert trace.name == "timed" and trace.type == "scatter" and trace.mode == "lines"
    assert fig.layout.xaxis.type == "linear" and fig.layout.yaxis.type == "linear"
    assert trace.y[8] == pytest.approx(40) and trace.y[-1] == pytest.approx(10)
    assert list(trace.x) == times[1:]


def test_tokens_per_second_leaves_out_harness_spans(usages):
    run = next(u.run for u in usages if u.run.id == "cities_3_cot_true_trial-1#turn-2")
    n = len(run.completion_token_ids)
    # Model tokens at 20 tokens/s, then 30 tokens the harness pasted in at one instant, then the model again.
    times = [i / 20 for i in range(n)]
    ids = run.completion_token_ids[:10] + (13,) * 30 + run.completion_token_ids[10:]
    times = times[:10] + [times[9]] * 30 + times[10:]
    meta = RunMetadata(source="unit", extra={"harness_spans": [[10, 40]]})
    timed = Run(id="loop", metadata=meta, completion_token_ids=ids, token_times=tuple(times))
    (trace,) = tokens_per_second([timed], window=4).data
    assert len(trace.y) == n - 1 and all(y == pytest.approx(20) for y in trace.y)


def test_tokens_per_second_without_times_says_how_to_get_them(usages):
    with pytest.raises(ValueError, match=r"no run has token_times .*`harmony-viz record`"):
        tokens_per_second(usages[:5])


def test_diagnostics_by_code_counts_every_diagnostic(usages):
    diagnostics = diagnostics_frame(usages)
    fig = diagnostics_by_code(diagnostics)
    assert {t.type for t in fig.data} == {"bar"} and {t.orientation for t in fig.data} == {"h"}
    assert fig.layout.barmode == "stack" and fig.layout.yaxis.type == "category"
    assert sum(sum(t.x) for t in fig.data) == len(diagnostics)
    counts = diagnostics["code"].value_counts()
    top = fig.data[0].y[-1]  # the last category is drawn on top: the most frequent code
    assert counts[top] == counts.max()
    assert {t.name for t in fig.data} == set(diagnostics["severity"])


def test_report_is_one_offline_page_with_every_chart(usages, tmp_path):
    path = save_report(usages, tmp_path / "report.html", title="<bundled & real>")
    page = path.read_text()
    # shares, by effort (two efforts here), by source, scatter, diagnostics; no speed chart (no times)
    assert page.count('class="plotly-graph-div"') == 5
    # Small values in the asserts: a failing `in` on a 5 MB page would print all of it.
    assert re.findall(r"<script[^>]+src=[^>]*>", page) == []  # no CDN or other external script
    assert page.count("* plotly.js v") == 1  # the library itself, inlined once
    assert re.findall(r"<title>.*?</title>", page)[0] == "<title>&lt;bundled &amp; real&gt;</title>"
    assert page.count("<tr") == len(usages) + 1  # the runs table


def test_report_of_timed_runs_adds_the_speed_chart(tmp_path):
    ids = (200005, 35644, 200008, 12194, 13, 200007)
    run = Run(id="t", completion_token_ids=ids, token_times=tuple(0.1 * (i + 1) for i in range(len(ids))))
    page = save_report([run], tmp_path / "r.html").read_text()
    assert page.count('class="plotly-graph-div"') == 4 and "Tokens per second" in page
    assert not math.isnan(runs_frame([run])["duration_s"].iloc[0])
