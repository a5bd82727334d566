"""Run records and their loaders, on the real transcripts in ../shared/corpus and the bundled sample."""

from __future__ import annotations

import hashlib
import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harmony_viz.data import SAMPLE_FILES, sample_path, sample_paths
from harmony_viz.runs import Run, RunMetadata, append_run, effort_from_text, load_file, load_runs, normalise_effort, save_runs, split_completion
from harmony_viz.scanner import Diagnostic


@pytest.fixture(scope="module")
def ndurner(corpus_dir: Path) -> Path:
    """The ndurner red-team folder of the corpus."""
    return corpus_dir / "ndurner_gpt-oss-rt-run"


# ---- Kaggle findings ------------------------------------------------------------------


def test_findings_file_gives_one_run_per_walkthrough_in_order(ndurner):
    raw = json.loads((ndurner / "findings-rag.json").read_text())
    runs = load_runs(ndurner / "findings-rag.json")
    assert len(runs) == len(raw["harmony_response_walkthroughs"]) == 80
    assert [r.text for r in runs] == raw["harmony_response_walkthroughs"]
    assert [r.id for r in runs] == [f"findings-rag#{i}" for i in range(80)]
    meta = runs[0].metadata
    assert (meta.model, meta.reasoning_effort, meta.source) == ("gpt-oss-20b", "medium", "findings-rag")
    assert meta.sampling == {"temperature": 1, "max_output_tokens": 128000}
    assert meta.extra["endpoint"] == "vllm" and meta.extra["entry"] == 0
    assert all(r.prompt_token_ids == () and r.completion_token_ids == () and not r.diagnostics for r in runs)


def test_findings_entry_that_is_not_a_string_loads_with_a_diagnostic(ndurner, tmp_path):
    raw = json.loads((ndurner / "findings-tournament.json").read_text())
    raw["harmony_response_walkthroughs"].insert(1, {"oops": 1})
    path = tmp_path / "findings-broken.json"
    path.write_text(json.dumps(raw))
    runs = load_runs(path)
    assert len(runs) == 23
    assert runs[1].text == "" and [d.code for d in runs[1].diagnostics] == ["load.bad-entry"]
    assert "harmony_response_walkthroughs[1] is a dict, expected a Harmony string" in runs[1].diagnostics[0].message
    assert runs[2].text == raw["harmony_response_walkthroughs"][2] and not runs[2].diagnostics


# ---- prompt/completion JSON ------------------------------------------------------------


def test_prompt_completion_runs_keep_the_split_as_token_ids(ndurner, enc):
    path = ndurner / "finding5_runs" / "cyberthreat-17.json"
    raw = json.loads(path.read_text())
    (run,) = load_runs(path)
    assert run.id == "cyberthreat-17" and run.text is None
    assert list(run.prompt_token_ids) == enc.encode(raw["prefill_text"], allowed_special="all")
    assert list(run.completion_token_ids) == enc.encode(raw["completion_text"], allowed_special="all")
    assert enc.decode(list(run.prompt_token_ids)) + enc.decode(list(run.completion_token_ids)) == raw["output_text"]
    meta = run.metadata
    assert (meta.seed, meta.started_at, meta.source, meta.reasoning_effort) == (20250832, "2025-08-26T08:52:36Z", "tournament_cyberthreat", "medium")
    assert meta.extra["run_no"] == 17 and meta.extra["token_ids"] == "re-encoded"


def test_prompt_completion_with_a_non_text_completion_loads_empty_with_a_diagnostic(tmp_path):
    path = tmp_path / "pc.json"
    path.write_text(json.dumps({"prefill_text": "<|start|>user<|message|>hi<|end|><|start|>assistant", "completion_text": 42}))
    (run,) = load_runs(path)
    assert run.completion_token_ids == () and len(run.prompt_token_ids) > 0
    assert "'completion_text' is a int, expected Harmony text" in run.diagnostics[0].message


# ---- notebook extracts and plain text ---------------------------------------------------------


def test_output_text_jsonl_gives_one_text_run_per_line(corpus_dir):
    path = corpus_dir / "openai_gpt-oss_rft_notebook" / "rft_outputs.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    runs = load_runs(path)
    assert [r.text for r in runs] == [line["output_text"] for line in lines]
    assert [r.id for r in runs] == ["rft_outputs#cell-37", "rft_outputs#cell-56"]
    assert {r.metadata.reasoning_effort for r in runs} == {"low"}
    assert runs[0].metadata.extra["license"] == "Apache-2.0"
    assert runs[0].metadata.extra["source_path"] == "examples/reinforcement-fine-tuning.ipynb"
    assert runs[0].metadata.extra["path"] == str(path)


def test_unsloth_efforts_come_from_the_rendered_system_message(corpus_dir):
    runs = load_runs(corpus_dir / "unsloth_notebook_outputs" / "unsloth_gpt-oss_outputs.jsonl")
    inference = [r for r in runs if r.metadata.source == "GPT_OSS_MXFP4_(20B)-Inference"]
    assert [r.metadata.reasoning_effort for r in inference] == ["low", "medium", "high"]


def test_plain_harmony_text_file_is_one_run(ndurner, tmp_path):
    text = json.loads((ndurner / "findings-rag.json").read_text())["harmony_response_walkthroughs"][3]
    path = tmp_path / "one.txt"
    path.write_text(text)
    (run,) = load_runs(path)
    assert (run.id, run.text, run.metadata.reasoning_effort) == ("one", text, "medium")


def test_stdin_dash_reads_harmony_text(monkeypatch):
    text = "<|start|>assistant<|channel|>final<|message|>Hi.<|return|>"
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    (run,) = load_runs("-")
    assert run.text == text and run.id == "stdin"


# ---- token-id JSON -----------------------------------------------------------------------------


def test_token_id_array_is_a_completion(tmp_path, enc):
    ids = enc.encode("<|channel|>final<|message|>4<|return|>", allowed_special="all")
    path = tmp_path / "ids.json"
    path.write_text(json.dumps(ids))
    (run,) = load_runs(path)
    assert run.completion_token_ids == tuple(ids) and run.prompt_token_ids == () and not run.diagnostics


def test_token_ids_out_of_vocabulary_make_the_file_unreadable(tmp_path):
    """One id check everywhere: an ids file with an id out of range is not read (no run with ids silently dropped)."""
    path = tmp_path / "ids.json"
    path.write_text(json.dumps([200005, 17196, 999999, 200008, -3]))
    (run,) = load_runs(path)
    assert run.completion_token_ids == () and run.diagnostics[0].code == "load.bad-token-ids"
    assert run.load_error == f"{path}: token 2 is 999999, outside the o200k_harmony vocabulary 0..201087; file skipped"


# ---- Markdown trial transcripts -------------------------------------------------------------------


def test_markdown_trial_gives_one_run_per_turn_with_the_completion_split_off(corpus_dir, enc):
    path = corpus_dir / "aldehir_tool_calling" / "cities_3_cot_true_trial-1.md"
    text = path.read_text()
    blocks = re.findall(r"### Turn \d+\n\n```\n(.*?)\n```", text, re.DOTALL)
    runs = load_runs(path)
    assert len(runs) == len(blocks) == 4
    for k, (run, block) in enumerate(zip(runs, blocks), 1):
        assert run.id == f"cities_3_cot_true_trial-1#turn-{k}"
        prompt, completion = enc.decode(list(run.prompt_token_ids)), enc.decode(list(run.completion_token_ids))
        # The display joiner (blank lines between messages) is gone, nothing else changed.
        assert prompt + completion == re.sub(r"(<\|(?:end|call|return)\|>)\n\n(?=<\|start\|>)", r"\1", block)
        assert completion.startswith("<|start|>assistant")
        last_prompt_role = re.findall(r"<\|start\|>(\S+?)[ <]", prompt)[-1]
        assert last_prompt_role in ("user", "functions.get_weather")
        assert "<|start|>user" not in completion and "<|start|>functions" not in completion
    assert {k: runs[0].metadata.extra[k] for k in ("cities", "cot", "trial", "turn")} == {"cities": 3, "cot": True, "trial": 1, "turn": 1}
    assert runs[0].metadata.source == "tool-calling cot=true"


def test_split_completion_with_no_user_message_is_all_completion():
    block = "<|start|>assistant<|channel|>final<|message|>x<|end|>"
    assert split_completion(block) == ("", block)


# ---- our JSONL -------------------------------------------------------------------------------------


def test_jsonl_round_trip_keeps_every_field(tmp_path, enc):
    ids = enc.encode("<|channel|>analysis<|message|>Hm.<|end|>", allowed_special="all")
    runs = [
        Run(
            id="r1",
            metadata=RunMetadata(model="gpt-oss-20b", reasoning_effort="high", source="unit", sampling={"temperature": 0.7},
                                 seed=3, started_at="2026-01-01T00:00:00Z", device="cpu", extra={"prompt_set": "math"}),
            prompt_token_ids=(200006, 173781),
            completion_token_ids=tuple(ids),
            token_times=tuple(0.01 * (i + 1) for i in range(len(ids))),
            logprobs=tuple(-0.5 for _ in ids),
        ),
        Run(id="r2", metadata=RunMetadata(source="unit", extra={"path": "x"}), text="<|start|>user<|message|>hi<|end|>"),
    ]  # fmt: skip
    path = save_runs(runs, tmp_path / "runs.jsonl")
    loaded = load_runs(path)
    assert loaded[1] == runs[1]
    assert loaded[0].metadata.extra == {"prompt_set": "math", "path": str(path)}
    assert loaded[0] == Run(**{**{f: getattr(runs[0], f) for f in Run.__slots__}, "metadata": loaded[0].metadata})
    assert [line["id"] for line in map(json.loads, path.read_text().splitlines())] == ["r1", "r2"]


def test_append_run_adds_a_line(tmp_path):
    path = tmp_path / "runs.jsonl"
    append_run(Run(id="a", completion_token_ids=(1, 2)), path)
    append_run(Run(id="b", completion_token_ids=(3,)), path)
    assert [r.id for r in load_runs(path)] == ["a", "b"]


def test_jsonl_bad_lines_load_as_empty_runs_and_the_batch_goes_on(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        '{"id": "ok1", "completion_token_ids": [200005, 17196]}\n'
        "{not json\n"
        '{"id": "bad-times", "completion_token_ids": [1, 2, 3], "token_times": [0.1]}\n'
        '{"id": "bad-ids", "completion_token_ids": "abc"}\n'
        '{"what": "ever"}\n'
        "\n"
        '{"id": "ok2", "text": "<|start|>assistant<|channel|>final<|message|>x<|end|>"}\n'
    )
    runs = load_runs(path)
    assert [r.id for r in runs] == ["ok1", "mixed#line-2", "bad-times", "bad-ids", "mixed#line-5", "ok2"]
    codes = [[d.code for d in r.diagnostics] for r in runs]
    assert codes == [[], ["load.bad-json"], ["load.bad-entry"], ["load.bad-token-ids"], ["load.unknown-shape"], []]
    assert runs[2].token_times is None and runs[2].completion_token_ids == (1, 2, 3)
    assert "token_times has 1 entries, expected 3 numbers (one per completion token)" in runs[2].diagnostics[0].message
    assert "line 2: not JSON" in runs[1].diagnostics[0].message


def test_broken_json_file_and_non_utf8_file_load_as_diagnostics(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"harmony_response_walkthroughs": [')
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe<|start|>")
    runs = load_runs([broken, binary])
    assert [(r.id, r.diagnostics[0].code) for r in runs] == [("broken", "load.bad-json"), ("binary", "load.not-utf8")]


def test_missing_file_is_an_error_that_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nope\.json: no such run file; pass a path to a \.jsonl"):
        load_runs([tmp_path / "nope.json"])


def test_files_load_in_the_order_given(ndurner, corpus_dir):
    a = ndurner / "finding5_runs" / "helpful-47.json"
    b = corpus_dir / "openai_gpt-oss_rft_notebook" / "rft_outputs.jsonl"
    assert [r.id for r in load_runs([b, a])] == ["rft_outputs#cell-37", "rft_outputs#cell-56", "helpful-47"]


# ---- metadata helpers ----------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "expected"), [("Medium", "medium"), ("reasoning: high", "high"), ("max", None), (3, None)])
def test_normalise_effort(value, expected):
    assert normalise_effort(value) == expected


def test_effort_from_text_reads_the_system_message():
    assert effort_from_text("Knowledge cutoff: 2024-06\n\nReasoning: low\n\n# Valid channels") == "low"
    assert effort_from_text("no effort here") is None


def test_metadata_unknown_keys_go_to_extra_and_round_trip():
    obj = {"model": "gpt-oss-120b", "reasoning_effort": "HIGH", "seed": 7, "prompt_set": "aime"}
    meta = RunMetadata.from_json(obj)
    assert (meta.reasoning_effort, meta.extra) == ("high", {"prompt_set": "aime"})
    assert RunMetadata.from_json(meta.to_json()) == meta


# ---- the bundled sample ---------------------------------------------------------------------------


def test_bundled_sample_is_small_and_byte_identical_to_the_corpus(corpus_dir):
    corpus = {p.name: p for p in corpus_dir.rglob("*") if p.is_file()}
    total = 0
    for path in sample_paths():
        data = path.read_bytes()
        total += len(data)
        assert hashlib.sha256(data).digest() == hashlib.sha256(corpus[path.name].read_bytes()).digest(), path.name
    assert total <= 2 * 1024 * 1024


def test_provenance_names_every_bundled_file_with_its_checksum():
    provenance = sample_path("PROVENANCE.md").read_text()
    for name in SAMPLE_FILES:
        digest = hashlib.sha256(sample_path(name).read_bytes()).hexdigest()[:16]
        assert re.search(rf"\| `{re.escape(name)}` \| \S+ @ [0-9a-f]{{40}} \| .+ \| `{digest}` \|", provenance), name
    assert "Apache-2.0" in provenance and "none stated" in provenance


def test_bundled_sample_loads_every_file(capsys):
    runs = load_runs(sample_paths(), progress=False)
    per_file = [len(load_file(p)) for p in sample_paths()]
    assert len(runs) == sum(per_file) and per_file[:2] == [80, 22]
    assert not any(r.diagnostics for r in runs)
    assert capsys.readouterr().err == ""  # progress=False: no bar


def test_unknown_sample_name_lists_the_known_ones():
    with pytest.raises(KeyError, match="no bundled sample 'x.json'; known: findings-rag.json, "):
        sample_path("x.json")


def test_load_diagnostics_are_scanner_diagnostics_with_json(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("[1, 2\n")
    (run,) = load_runs(path)
    (diagnostic,) = run.diagnostics
    assert isinstance(diagnostic, Diagnostic)
    assert diagnostic.to_json() == {"code": "load.bad-json", "severity": "error", "message": diagnostic.message, "start": 0, "end": 0}
    assert run.to_json()["load_diagnostics"] == [diagnostic.to_json()]


# ---- property: our JSONL keeps any run ---------------------------------------------------------------

_META_KEYS = ("model", "reasoning_effort", "source", "sampling", "seed", "started_at", "finished_at", "device", "path")
_metadata = st.builds(
    RunMetadata,
    model=st.one_of(st.none(), st.text(min_size=1, max_size=12)),
    # Always set: a text run without one takes the effort from its system message on load.
    reasoning_effort=st.sampled_from(["low", "medium", "high"]),
    source=st.one_of(st.none(), st.text(min_size=1, max_size=12)),
    sampling=st.dictionaries(st.sampled_from(["temperature", "top_p", "max_tokens"]), st.floats(0, 2, allow_nan=False)),
    seed=st.one_of(st.none(), st.integers(0, 2**31)),
    # "path" present: the loader adds the file's path only where a run has none.
    extra=st.dictionaries(
        st.text(min_size=1, max_size=8).filter(lambda k: k not in _META_KEYS),
        st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=20)),
        max_size=3,
    ).map(lambda d: {**d, "path": "origin.jsonl"}),
)


@st.composite
def _runs(draw):
    metadata = draw(_metadata)
    run_id = draw(st.text(min_size=1, max_size=16))
    if draw(st.booleans()):
        return Run(id=run_id, metadata=metadata, text=draw(st.text(max_size=60)))
    completion = tuple(draw(st.lists(st.integers(0, 201087), max_size=30)))
    n = len(completion)
    times = draw(st.sampled_from([None, tuple(0.5 * i for i in range(n))]))
    logprobs = draw(st.one_of(st.none(), st.lists(st.floats(-50, 0, allow_nan=False), min_size=n, max_size=n).map(tuple)))
    prompt = tuple(draw(st.lists(st.integers(0, 201087), max_size=10)))
    return Run(id=run_id, metadata=metadata, prompt_token_ids=prompt, completion_token_ids=completion, token_times=times, logprobs=logprobs)


@given(st.lists(_runs(), min_size=1, max_size=4))
def test_any_runs_survive_save_and_load(tmp_path_factory, runs):
    import dataclasses

    path = save_runs(runs, tmp_path_factory.mktemp("rt") / "runs.jsonl")
    # A run of no known source is from the file it is read from (issue 32: stats by source).
    expected = [r if r.metadata.source else dataclasses.replace(r, metadata=dataclasses.replace(r.metadata, source="runs")) for r in runs]
    assert load_runs(path) == expected


def test_line_separators_inside_strings_do_not_split_jsonl_lines(tmp_path):
    runs = [Run(id="a\x85b", text="one\u2028two\u2029three"), Run(id="next", completion_token_ids=(1,))]
    path = save_runs(runs, tmp_path / "runs.jsonl")
    assert [(r.id, r.text) for r in load_runs(path)] == [("a\x85b", "one\u2028two\u2029three"), ("next", None)]


def test_the_run_record_and_shapes_sit_below_the_reader_and_keep_their_public_names():
    """``harmony_viz.runs`` and ``harmony_viz.scale`` export the record and shapes that live below the reader (issue 26 item 4)."""
    import harmony_viz._runfile as runfile
    import harmony_viz.inputs as inputs
    import harmony_viz.runs as runs
    import harmony_viz.scale as scale

    for name in ("Run", "RunMetadata", "run_stream", "runs_from_json", "runs_from_jsonl", "runs_from_object", "jsonl_value", "read_token_ids", "is_markdown_trial"):
        assert getattr(runs, name) is getattr(runfile, name), name
    for name in ("Unit", "runs_for_batch", "runs_from_record"):
        assert getattr(scale, name) is getattr(runfile, name), name
    assert inputs.InputError is runfile.InputError and inputs.parse_jsonl_line is runfile.parse_jsonl_line
    assert set(runs.__all__) <= set(dir(runs))
    run = Run(id="c", metadata=RunMetadata(extra={"server": {"api": "chat"}}), completion_token_ids=(12194,))
    assert runfile.is_capture(run) and not runfile.is_capture(Run(id="r"))
