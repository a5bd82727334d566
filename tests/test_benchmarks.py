"""The benchmarks in benchmarks/ run and print ratios against a reference timed in the same run.

They live outside the package (issue 16); these tests only check that each runs and reports
its figures in the documented form, never a speed.
"""

from __future__ import annotations

import re

import pytest

from benchmarks import bench_door, bench_scanner
from benchmarks.bench_projections import bench_projections, format_report


@pytest.mark.parametrize(("module", "bad", "why"), [
    (bench_scanner, ["--rounds", "0"], "--rounds 0: give at least 1"),
    (bench_door, ["--rounds", "0"], "--rounds 0: give at least 1"),
    (bench_door, ["--tokens", "0"], "--tokens 0: give at least 1"),
])
def test_benchmarks_reject_bad_arguments(module, bad, why, capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        module.main(bad)
    assert e.value.code == 2 and why in capsys.readouterr().err
    with pytest.raises(SystemExit, match="no transcript corpus at"):
        module.main(["--corpus", str(tmp_path)])


def test_scanner_benchmark_prints_ratios(corpus_dir, capsys):
    assert bench_scanner.main(["--corpus", str(corpus_dir), "--rounds", "1", "--trace-tokens", "3000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"corpus: 1\d\d real token streams that openai-harmony parses strictly, [\d,]+ tokens \(.*\)", lines[0])
    assert re.fullmatch(r"  per-token feed vs StreamableParser.process: ours [\d.]+ M tok/s, reference [\d.]+ M tok/s, ratio [\d.]+x \(rounds: [\d.]+\)", lines[2])
    assert re.fullmatch(r"trace of every step, 3,000 tokens fed one at a time: \d+ MB \(\d+ B/step: events, step offsets, snapshots\), limit 300 MB; .*", lines[4])


def test_extra_times_the_renderer_and_projections(corpus_dir, capsys):
    assert bench_scanner.main(["--corpus", str(corpus_dir), "--rounds", "1", "--trace-tokens", "0", "--extra"]) == 0
    lines = capsys.readouterr().out.splitlines()
    render = [l for l in lines if re.fullmatch(r"  .+ \([\d,]+ tokens\): ours [\d.]+ ms, openai-harmony [\d.]+ ms, ratio [\d.]+x", l)]
    assert len(render) == 2
    cases = [l.split()[0] for l in lines if re.fullmatch(r"\S+.*\s[\d.]+ ms\s+[\d.]+x scan\s+[\d.]+ us/token", l)]
    assert cases[0] == "scan" and len(cases) == 4


def test_projection_benchmark_reports_ratios_against_the_scan(enc):
    tokens = enc.encode("<|start|>assistant<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi<|return|>", allowed_special="all")
    result = bench_projections(tokens, rounds=1)
    assert set(result) == {"scan", "scan+project+streams", "scan+chat view per step", "scan+responses view per step"}
    assert all(v > 0 for v in result.values())
    lines = format_report(result, len(tokens)).splitlines()
    assert len(lines) == 4 and lines[0].split()[-4] == "1.00x"


def test_no_benchmark_code_inside_the_package():
    from pathlib import Path

    import harmony_viz

    root = Path(harmony_viz.__file__).parent
    assert [p for p in root.rglob("_bench.py")] == []


def test_door_benchmark_prints_its_ratios_against_references_of_the_same_run(corpus_dir, capsys):
    """Run small (one round, a 3,000-token page): the figures are printed in their documented form, no speed asserted."""
    assert bench_door.main(["--corpus", str(corpus_dir), "--rounds", "1", "--tokens", "3000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    num = r"-?[\d.]+"
    assert re.fullmatch(rf"start-up \(cities_3_cot_true_trial-1\.md, fresh processes, median of 1\): vocabulary {num} s, parse {num} s, lint {num} s", lines[0])
    assert re.fullmatch(r"  lint - parse: [+-][\d.]+ s \(limit \+0\.30 s\); parse - vocabulary: [+-][\d.]+ s \(limit \+0\.70 s\)", lines[1])
    assert re.fullmatch(rf"first call \(fresh processes, median of 1\): replay {num} s, playground {num} s; playground / replay {num}x \(limit 1\.00x\)", lines[2])
    assert re.fullmatch(rf"page of 3,000 tokens \({num} MB; one process, vocabulary loaded, CPU seconds, median of 1\): encode {num} s, scan {num} s, "
                        rf"replay\(text\)\.save_html {num} s, html {num} s", lines[3])
    assert re.fullmatch(rf"  scan / encode {num}x \(limit 3x\); save_html / scan {num}x, html / scan {num}x \(limit 10x, aim 5x\)", lines[4])
    assert re.fullmatch(rf"  peak memory of replay\(text\)\.save_html above the loaded vocabulary: {num} MB = \d+ B/token \(tracemalloc, Python allocations; limit 300\)", lines[5])
    assert len(lines) == 6


def test_door_benchmark_stream_is_real_transcripts_cut_to_length(corpus_dir, enc):
    from benchmarks.bench_door import context_stream

    ids = context_stream(corpus_dir, 5000)
    assert len(ids) == 5000
    text = enc.decode(ids)
    assert text.startswith("<|start|>system<|message|>") and "to=functions.get_weather" in text
