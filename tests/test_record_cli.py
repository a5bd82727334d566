"""``harmony-viz make-tiny-model`` and ``harmony-viz record`` on the real tiny model, and their errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from harmony_viz.cli import main  # noqa: E402
from harmony_viz.runs import load_runs  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread(torch_one_thread):
    """One torch thread for every test here (see conftest)."""


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model written by the CLI."""
    out = tmp_path_factory.mktemp("cli") / "tiny"
    assert main(["make-tiny-model", str(out)]) == 0
    return out


def test_make_tiny_model_writes_a_small_gpt_oss_checkpoint(tiny_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = json.loads((tiny_dir / "config.json").read_text())
    assert config["model_type"] == "gpt_oss" and config["vocab_size"] == 201088 and config["architectures"] == ["GptOssForCausalLM"]
    assert config["head_dim"] == 64  # vLLM's CPU attention refuses smaller heads
    assert (tiny_dir / "model.safetensors").stat().st_size < 60_000_000  # the tokenizer files come on top
    assert (tiny_dir / "tokenizer.json").is_file() and (tiny_dir / "tokenizer_config.json").is_file()
    assert main(["make-tiny-model", str(tiny_dir)]) == 2
    assert capsys.readouterr().err == f"harmony-viz make-tiny-model: {tiny_dir} exists and is not an empty folder; pick a new folder for the tiny model\n"


def test_record_writes_runs_that_the_run_loader_reads(tiny_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompts = tmp_path / "prompts.txt"
    prompts.write_text('# two prompts\nHello there\n\n"Line one\\nline two"\n')
    out = tmp_path / "runs.jsonl"
    args = ["record", "--model", str(tiny_dir), "--prompts", str(prompts), "--effort", "low,high", "--max-new-tokens", "3"]
    code = main([*args, "--temperature", "0", "--demo-tools", "-o", str(out), "--no-progress", "--seed", "7"])
    assert code == 0
    err = capsys.readouterr().err
    assert err.endswith(f"recorded 4 run(s) to {out} (4 token_limit); next: harmony-viz stats {out}\n")
    runs = load_runs(out)
    assert [(r.metadata.extra["prompt"], r.metadata.reasoning_effort) for r in runs] == [
        ("Hello there", "low"), ("Hello there", "high"), ("Line one\nline two", "low"), ("Line one\nline two", "high"),
    ]
    for r in runs:
        assert len(r.completion_token_ids) == 3 and len(r.token_times) == 3
        assert r.metadata.seed == 7 and r.metadata.sampling["temperature"] == 0 and r.metadata.extra["tools"] == ["calculator", "get_weather"]


def test_both_recorders_read_a_prompt_line_s_id_effort_and_tools(tiny_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The transformers recorder reads prompts files as the server recorder does: a line's id, effort and tools win."""
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text('{"id": "add", "prompt": "What is 2 + 2?", "reasoning_effort": "high", "tools": "demo"}\nName a colour.\n')
    out = tmp_path / "runs.jsonl"
    argv = ["record", "--model", str(tiny_dir), "--prompts", str(prompts), "--effort", "low", "--max-new-tokens", "2", "--temperature", "0"]
    assert main([*argv, "-o", str(out), "--no-progress"]) == 0
    runs = load_runs(out)
    seen = [(r.id.split("-", 1)[1], r.metadata.reasoning_effort, r.metadata.extra["tools"]) for r in runs]
    assert seen == [("add-high", "high", ["calculator", "get_weather"]), ("p00001-low", "low", [])]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--model", "./no/such/model", "--prompt", "Hi"], "no model folder './no/such/model'; create one with `harmony-viz make-tiny-model ./no/such/model` or pass a hub id such as openai/gpt-oss-20b"),
        (["--prompt", "Hi", "--effort", "extreme"], "unknown reasoning effort 'extreme'; expected one of low, medium, high"),
        (["--prompt", "Hi", "--max-new-tokens", "0"], "--max-new-tokens must be at least 1, got 0"),
        (["--prompts", "EMPTY"], 'EMPTY: no prompts found; write one prompt a line, as text or JSON, e.g. {"prompt": "What is 2 + 2?"}'),
        (["--prompt", "Hi", "--tools", "demo"], "--tools names a TOOLS.json (as in lint and parse), not a tool set: record with the demo tools is --demo-tools (got --tools demo)"),
        (["--prompt", "Hi", "--temperature", "-1"], "temperature must be ≥ 0, got -1.0"),
    ],
)
def test_record_errors_are_one_line(tiny_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n")
    extra = [str(empty) if a == "EMPTY" else a for a in extra]
    message = message.replace("EMPTY", str(empty))
    if "--model" not in extra:
        extra = ["--model", str(tiny_dir), *extra]
    out = tmp_path / "runs.jsonl"
    assert main(["record", *extra, "--out", str(out), "--no-progress"]) == 2
    assert capsys.readouterr().err == f"harmony-viz record: {message}\n"
    assert not out.exists()
