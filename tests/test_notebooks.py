"""The notebooks run top to bottom on a CPU with no network, show what they promise, and are committed clean.

Each notebook is executed once per session with nbclient (kernel python3, cwd notebooks/),
with CUDA hidden and ``HARMONY_VIZ_MODEL`` unset so notebook 04 takes its CPU path (the
tiny model). The checks read the executed outputs: replay widgets (their synced state),
plotly figures (their JSON), and text, compared with what the real encoder, openai-harmony
and the bundled files say.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
NAMES = ("01_harmony_tour.ipynb", "02_diagnose_parser_bugs.ipynb", "03_real_runs.ipynb", "04_record_gpt_oss.ipynb",
         "05_server_lens.ipynb", "06_chat_templates.ipynb", "07_prompt_lens.ipynb", "08_conformance.ipynb")
WIDGET = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
PLOTLY = "application/vnd.plotly.v1+json"
CELL_TIMEOUT_S = 300

_executed: dict[str, Any] = {}


@pytest.fixture(scope="session")
def notebook_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The kernel's environment: no GPU, no model override; yields the folder its temp files go to."""
    tmp = tmp_path_factory.mktemp("notebook-tmp")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CUDA_VISIBLE_DEVICES", "")
        mp.delenv("HARMONY_VIZ_MODEL", raising=False)
        mp.setenv("TMPDIR", str(tmp))
        mp.setenv("HF_HUB_OFFLINE", "1")
        # notebook 05 reads the three engines' shipped captures here; tests/test_server_live.py runs it against the shared server
        mp.delenv("HARMONY_VIZ_VLLM_URL", raising=False)
        mp.delenv("HARMONY_VIZ_LLAMA_CPP_URL", raising=False)
        mp.setenv("HARMONY_VIZ_START_SERVER", "0")
        # notebook 06 uses the shipped template outputs here; the live template run is its own test
        mp.delenv("HARMONY_VIZ_CHAT_TEMPLATE", raising=False)
        yield tmp


@pytest.fixture
def run_notebook(notebook_tmp: Path):
    """Execute a notebook (once per session) and return it with its outputs."""
    from nbclient import NotebookClient

    def run(name: str) -> Any:
        if name not in _executed:
            nb = nbformat.read(NOTEBOOKS / name, as_version=4)
            client = NotebookClient(
                nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
            )
            client.execute()  # raises CellExecutionError, with the cell and traceback, on the first failing cell
            _executed[name] = nb
        return _executed[name]

    return run


def _outputs(nb: Any) -> list[dict[str, Any]]:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def _text(nb: Any) -> str:
    """Every stream and text/plain or text/html output, joined (a widget's static view apart)."""
    parts = []
    for o in _outputs(nb):
        if o.get("output_type") == "stream":
            parts.append(o["text"])
        data = o.get("data", {})
        # A widget's text/html is its static view (what a viewer without a kernel shows): not printed output.
        keys = ("text/plain",) if "application/vnd.jupyter.widget-view+json" in data else ("text/plain", "text/html")
        parts.extend(data[key] for key in keys if key in data)
    return "\n".join(parts)


def _figures(nb: Any) -> list[dict[str, Any]]:
    return [o["data"][PLOTLY] for o in _outputs(nb) if PLOTLY in o.get("data", {})]


def _replays(nb: Any) -> list[dict[str, Any]]:
    """The synced state of every replay widget shown in an output."""
    states = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    shown = [o["data"][WIDGET]["model_id"] for o in _outputs(nb) if WIDGET in o.get("data", {})]
    return [
        states[m]["state"] for m in shown if m in states and states[m]["state"].get("_anywidget_id", "").endswith("ReplayWidget")
    ]


def _no_errors(nb: Any) -> None:
    errors = [o for o in _outputs(nb) if o.get("output_type") == "error"]
    assert not errors, f"error outputs: {[(e['ename'], e['evalue']) for e in errors]}"


@pytest.mark.slow
def test_tour_replays_the_conversation_and_tables_the_real_ids(run_notebook, enc) -> None:
    nb = run_notebook("01_harmony_tour.ipynb")
    _no_errors(nb)
    replays = _replays(nb)
    assert len(replays) == 1
    # opened at the end (step=-1): the last step of a trace over the whole rendered conversation
    assert replays[0]["step"] > 50 and replays[0]["chunking"] == "every:4"
    text = _text(nb)
    # the special-token table shows each control token with the id the real encoder gives it
    for literal in ("<|start|>", "<|channel|>", "<|message|>", "<|constrain|>", "<|end|>", "<|call|>", "<|return|>"):
        (tid,) = enc.encode(literal, allowed_special="all")
        assert re.search(rf"{re.escape(literal)}\s+{tid}\b", text), f"{literal} ({tid}) missing from the token table"
    # the notebook's own check against openai-harmony came out equal
    assert "identical to openai-harmony: True" in text
    # the printed training rendering holds the tool call as Harmony writes it
    assert "<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>" in text


@pytest.mark.slow
def test_bug_zoo_replays_diagnostics_and_shows_the_reference_parser_failing(run_notebook, reference_encoding, enc) -> None:
    import openai_harmony as oh

    nb = run_notebook("02_diagnose_parser_bugs.ipynb")
    _no_errors(nb)
    replays = _replays(nb)
    assert len(replays) >= 3
    # the first replay was moved to the step where its diagnostic fires, not left at 0 or the end
    assert 0 < replays[0]["step"]
    figures = _figures(nb)
    assert any(f["layout"]["title"]["text"].startswith("Diagnostics by code") for f in figures)
    text = _text(nb)
    # the comparison shows openai-harmony's own error for a final with no <|message|>
    parser = oh.StreamableParser(reference_encoding, oh.Role.ASSISTANT)
    with pytest.raises(oh.HarmonyError) as raised:
        for t in enc.encode('<|channel|>final <|constrain|>{"msg": "done"}<|end|>', allowed_special="all"):
            parser.process(t)
        parser.process_eos()
    assert f"HarmonyError: {raised.value}" in text
    # and the before/after table of the preamble fix
    assert "vLLM before the fix (legacy_vllm=True)" in text and "message: Let me check the weather in Lima." in text


@pytest.mark.slow
def test_real_runs_chart_every_bundled_prompt_set_and_replay_the_outlier(run_notebook) -> None:
    from harmony_viz.data import sample_paths
    from harmony_viz.runs import load_runs

    nb = run_notebook("03_real_runs.ipynb")
    _no_errors(nb)
    bundled = load_runs(sample_paths())
    sources = {r.metadata.source for r in bundled}
    figures = _figures(nb)
    assert len(figures) >= 4
    boxes = next(f for f in figures if f["layout"]["title"]["text"].startswith("Reasoning share of output tokens by source"))
    assert {t["name"] for t in boxes["data"]} == sources
    assert f"{len(bundled)} runs from {len(sources)} prompt sets" in _text(nb)
    (replay,) = _replays(nb)
    # opened where the outlier's prompt ends: its completion is still to come
    outlier = re.search(r"^(\S+): \d+ output tokens", _text(nb), re.M).group(1)
    run = next(r for r in bundled if r.id == outlier)
    assert replay["step"] == len(run.prompt_token_ids) > 0
    assert replay["_meta"]["n_tokens"] == len(run.prompt_token_ids) + len(run.completion_token_ids)


@pytest.mark.slow
def test_recording_notebook_records_charts_and_replays_on_cpu(run_notebook, notebook_tmp: Path) -> None:
    from harmony_viz.runs import load_runs

    nb = run_notebook("04_record_gpt_oss.ipynb")
    _no_errors(nb)
    text = _text(nb)
    assert "tiny-gpt-oss" in text  # took the CPU path: no CUDA, no HARMONY_VIZ_MODEL
    assert "4 runs written to runs.jsonl" in text
    speed = next(f for f in _figures(nb) if f["layout"]["title"]["text"].startswith("Tokens per second"))
    assert len(speed["data"]) == 4  # one line per recorded run
    # the run file the notebook wrote (in its temp folder): 4 runs, each with a time per completion token
    (runs_file,) = notebook_tmp.glob("harmony-viz-*/runs.jsonl")
    runs = load_runs(runs_file)
    assert len(runs) == 4 and all(len(r.token_times or ()) == len(r.completion_token_ids) > 0 for r in runs)
    # the replay shows the last of them, opened where its prompt ends
    replay, live = _replays(nb)
    assert replay["_meta"]["n_tokens"] == len(runs[-1].prompt_token_ids) + len(runs[-1].completion_token_ids)
    assert replay["step"] == len(runs[-1].prompt_token_ids)
    # the live view followed a fifth recording to its end
    shown, prompt, recorded = map(int, re.search(r"live view: (\d+) tokens = (\d+) prompt \+ (\d+) recorded", text).groups())
    assert shown == prompt + recorded == live["_meta"]["n_tokens"] and recorded > 0


@pytest.mark.slow
def test_server_lens_tables_four_engines_and_shows_the_engine_selector(run_notebook) -> None:
    from harmony_viz.servers import lens

    nb = run_notebook("05_server_lens.ipynb")
    _no_errors(nb)
    text = _text(nb)
    for engine in ("vllm", "llama.cpp", "gpt-oss", "sglang"):
        assert f"{engine}: offline: the shipped captures" in text
    results = [r for engine in ("vllm", "llama.cpp", "gpt-oss", "sglang") for r in lens.check_captures(lens.shipped_captures(engine))]
    n = sum(len(r.discrepancies) for r in results)
    assert f"{len(results)} checks, {n} discrepancies" in text
    replays = _replays(nb)
    assert len(replays) == 2
    seed, doubled = (r["_meta"]["server"]["checks"] for r in replays)
    assert [(c["engine"], c["api"]) for c in seed][:5] == [("vllm", "chat"), ("vllm", "chat-stream"), ("vllm", "responses"), ("vllm", "responses-stream"),
                                                          ("llama.cpp", "chat")]
    assert {c["engine"] for c in doubled} == {"vllm", "llama.cpp", "sglang", "gpt-oss"}
    errors = {(c["engine"], c["api"]): {d["code"] for d in c["discrepancies"] if d["severity"] == "error"} for c in doubled}
    assert errors[("vllm", "chat")] == {"text-dropped"} and errors[("sglang", "chat")] == {"reasoning-in-content"} and errors[("llama.cpp", "chat")] == set()
    assert errors[("gpt-oss", "responses")] == {"tool-call-extra"}


@pytest.mark.slow
def test_conformance_notebook_charts_the_shipped_reports_and_finds_the_preamble_fix(run_notebook) -> None:
    import gzip
    import json

    nb = run_notebook("08_conformance.ipynb")
    _no_errors(nb)
    text = _text(nb)
    reports = sorted((NOTEBOOKS.parent / "docs" / "conformance" / "reports").glob("*.json.gz"))
    assert "6 reports" in text and len(reports) == 6
    for path in reports:
        report = json.loads(gzip.open(path).read())
        e, s = report["engines"][0], report["summary"]
        assert f"{e['name']} {e['version']}: {s['passed']} passed, {s['failed']} failed" in text
    assert any(PLOTLY in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs), "no chart"
    # The preamble fix of vLLM PR #32114: 0.16.0 hides the preamble in Responses, 0.32.0 does not.
    assert "preamble/seed-001" in text and "fixed in 0.32.0" in text and "preamble-hidden" in text


def test_committed_notebooks_carry_no_outputs() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(NAMES), "a notebook was added or renamed: list it in NAMES"
    for name in NAMES:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(nb)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{name} cell {i} has stale outputs; clear them"
        assert "widgets" not in nb.metadata, f"{name} stores widget state; clear it"


def test_notebooks_read_only_package_data() -> None:
    for name in NAMES:
        source = "\n".join(c.source for c in nbformat.read(NOTEBOOKS / name, as_version=4).cells if c.cell_type == "code")
        assert "shared" not in source and "corpus" not in source, f"{name} reads files outside the package"


def _chat_template_checks(nb: Any) -> str:
    """What notebook 06 must show, whichever way it rendered: the example's codes and the dataset chart."""
    from harmony_viz.templates import CODES, DatasetSummary, shipped_outputs

    _no_errors(nb)
    text = _text(nb)
    outputs = shipped_outputs()
    example = outputs[0].compare()
    for d in example.differences:
        assert d.code in text
    summary = DatasetSummary()
    for s in outputs[1:]:
        summary.add(s.compare())
    assert f"{summary.rows} conversations: {summary.identical} identical" in text
    (fig,) = _figures(nb)
    order = [c for c in CODES if c in summary.rows_with]
    assert fig["data"][0]["y"] == order and list(fig["data"][0]["x"]) == [summary.rows_with[c] for c in order]
    return text


@pytest.mark.slow
def test_chat_template_notebook_runs_on_the_shipped_outputs(run_notebook) -> None:
    text = _chat_template_checks(run_notebook("06_chat_templates.ipynb"))
    assert "HARMONY_VIZ_CHAT_TEMPLATE is not set: using 41 outputs of the gpt-oss template shipped with the package" in text


@pytest.mark.slow
def test_chat_template_notebook_renders_live_through_the_real_template(notebook_tmp: Path, shared_dir: Path, monkeypatch) -> None:
    from nbclient import NotebookClient

    template = shared_dir / "templates" / "gpt-oss.jinja"
    monkeypatch.setenv("HARMONY_VIZ_CHAT_TEMPLATE", str(template))
    nb = nbformat.read(NOTEBOOKS / "06_chat_templates.ipynb", as_version=4)
    NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    text = _chat_template_checks(nb)
    assert f"rendering live through {template}" in text


def _prompt_lens_checks(nb: Any) -> str:
    """What notebook 07 must show, live or shipped: the two-step conversation's codes, the chart, the reasoning fields."""
    from collections import Counter

    from harmony_viz.servers import check_file, lens

    _no_errors(nb)
    text = _text(nb)
    for engine in ("vllm", "llama.cpp"):
        checks = {p.rsplit("/", 1)[-1].removesuffix(".json"): check_file(p) for p in lens.shipped_prompt_captures(engine)}
        for d in checks["two-step-2"].differences:
            assert d.code in text
        counts = Counter(c for name in lens.prompt_requests() for c in set(checks[name].codes))
        (fig,) = _figures(nb)
        (bar,) = [b for b in fig["data"] if b["name"] == engine]
        assert dict(zip(bar["y"], bar["x"])) == {c: counts[c] for c in bar["y"]} and sum(bar["x"]) == sum(counts.values())
    assert "preamble-moved" in text and "preamble-dropped" in text
    return text


@pytest.mark.slow
def test_prompt_lens_notebook_runs_on_the_shipped_captures(run_notebook) -> None:
    text = _prompt_lens_checks(run_notebook("07_prompt_lens.ipynb"))
    assert "vllm: no server URL set, reading the shipped captures" in text
    assert "HARMONY_VIZ_CHAT_TEMPLATE is not set" in text
