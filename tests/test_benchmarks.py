"""The benchmarks in benchmarks/ run and print ratios against a reference timed in the same run.

They live outside the package (issue 16); these tests only check that each runs and reports
its figures in the documented form, never a speed.
"""

from __future__ import annotations

import re

import pytest

from benchmarks import bench_scanner
from benchmarks.bench_projections import bench_projections, format_report


def test_scanner_benchmark_rejects_bad_arguments(capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        bench_scanner.main(["--rounds", "0"])
    assert e.value.code == 2 and "--rounds 0: give at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="no transcript corpus at"):
        bench_scanner.main(["--corpus", str(tmp_path)])


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
