"""The replay widget from Python, no browser: traits, browser messages, API view and saved pages."""

from __future__ import annotations

import gc
import json
import re
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
import traitlets
from _payload import finding_columns
from _replay_streams import XSS_TEXT, finding5

from harmony_viz import ReplayWidget, replay
from harmony_viz.cli import main
from harmony_viz.inputs import read
from harmony_viz.trace import Trace

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def widget(enc) -> ReplayWidget:
    """A replay of the hostile stream, one token per step."""
    return replay(XSS_TEXT)


def _browser_update(w: ReplayWidget, **state) -> None:
    """What anywidget's frontend sends when the user changes a synced value."""
    w._handle_msg({"content": {"data": {"method": "update", "state": state}}})


def test_state_holds_the_trace_as_binary_columns(widget: ReplayWidget, enc) -> None:
    state = widget.get_state()
    assert state["step"] == 0 and state["selected"] == -1 and state["chunking"] == "token"
    assert isinstance(state["_columns"], bytes)
    meta = state["_meta"]
    n = len(enc.encode(XSS_TEXT, allowed_special="all"))
    assert (meta["n_tokens"], meta["n_steps"], meta["unit"]) == (n, n + 2, "tokens")
    json.dumps(meta)  # the metadata is plain JSON; nothing per token travels as JSON
    # what the API view needs beside the trace: a few KB of empty objects to fill, whatever the length
    api = len(json.dumps(meta["api"]))
    assert api < 8192 and "api.part.0" in {c["name"] for c in meta["columns"]}
    assert len(state["_columns"]) + len(json.dumps(meta)) - api < 64 * n + 4096


def test_step_is_set_and_observed_from_python(widget: ReplayWidget) -> None:
    seen: list[int] = []
    widget.observe(lambda ch: seen.append(ch["new"]), "step")
    widget.step = 7
    widget.step = widget.n_steps - 1
    assert seen == [7, widget.n_steps - 1]
    with pytest.raises(traitlets.TraitError, match=rf"step {widget.n_steps} is out of range: this replay has steps 0 to {widget.n_steps - 1}"):
        widget.step = widget.n_steps


def test_replay_can_open_at_the_end(enc) -> None:
    w = replay(XSS_TEXT, step=-1)
    assert w.step == w.n_steps - 1


def test_browser_updates_reach_python(widget: ReplayWidget) -> None:
    _browser_update(widget, step=12)
    assert widget.step == 12
    _browser_update(widget, selected=3)
    assert widget.selected == 3


def test_bad_values_from_the_browser_become_an_error_message(widget: ReplayWidget) -> None:
    _browser_update(widget, step=10)
    _browser_update(widget, step=10_000)
    assert widget.step == 10
    assert widget.error == f"step 10000 is out of range: this replay has steps 0 to {widget.n_steps - 1}"
    _browser_update(widget, chunking="every")
    assert widget.chunking == "token"
    assert widget.error == "chunking 'every' needs a size, e.g. 'every:4'"


def test_changing_chunking_recomputes_the_trace_and_keeps_the_place(widget: ReplayWidget, enc) -> None:
    widget.step = 10  # ten tokens fed
    _browser_update(widget, chunking="every:4")
    assert widget.chunking == "every:4" and widget.error == ""
    assert widget._meta["chunking"] == "every:4"
    assert widget.trace.chunking.size == 4
    n = len(enc.encode(XSS_TEXT, allowed_special="all"))
    assert widget.n_steps == -(-n // 4) + 2
    # the first every:4 step that has fed at least those ten tokens: step 3 (12 tokens)
    assert widget.step == 3 and widget.trace.steps[3].end == 12
    widget.chunking = "chars:5"
    assert widget._meta["unit"] == "chars"
    assert widget.trace.steps[widget.step].end >= len(enc.decode(enc.encode(XSS_TEXT, allowed_special="all")[:12]))
    with pytest.raises(traitlets.TraitError, match="unknown chunking 'lines'"):
        widget.chunking = "lines"


def test_chunking_is_canonical(enc) -> None:
    w = replay(XSS_TEXT, chunking=" random:3:8 ")
    assert w.chunking == "random:3"


def test_api_view_follows_the_step(widget: ReplayWidget) -> None:
    projections = pytest.importorskip("harmony_viz.projections")
    last = widget.n_steps - 1
    widget.step = last
    view = widget.api_view
    assert view["step"] == last and "error" not in view
    events = widget.trace.events()
    assert view["views"]["chat"] == projections.chat_completion(events)
    assert view["views"]["responses"] == projections.response(events)
    assert view["views"]["chat (legacy vLLM)"] == projections.chat_completion(events, legacy_vllm=True)
    # going back recomputes from the start; the same step gives the same objects
    widget.step = 5
    assert widget.api_view["step"] == 5
    widget.step = last
    assert widget.api_view["views"]["chat"] == view["views"]["chat"]


def test_api_view_as_of_a_step_is_what_a_streaming_client_holds(widget: ReplayWidget) -> None:
    """Mid-stream, the view is the object so far with no usage yet: a streaming client gets that with the last chunk."""
    projections = pytest.importorskip("harmony_viz.projections")
    k = widget.n_steps // 2
    widget.step = k
    p = projections.Projector()
    assert widget.trace.unit == "tokens"
    for s in widget.trace.steps[: k + 1]:
        p.add(s.events, fed=s.end)  # tokens fed so far: usage counts them all, prompt and output
    assert widget.api_view["views"]["chat"] == {**p.chat(), "usage": None}
    assert widget.api_view["views"]["responses"] == {**p.response(), "usage": None}
    # the text so far is there: the view is not that of an earlier message boundary
    assert widget.api_view["views"]["chat"]["choices"][0]["message"] == p.chat()["choices"][0]["message"]
    assert any(widget.api_view["views"]["chat"]["choices"][0]["message"][f] for f in ("content", "reasoning_content"))


def test_widget_sources(enc, corpus_dir) -> None:
    ids = enc.encode(XSS_TEXT, allowed_special="all")
    assert replay(ids).trace.tokens.tolist() == ids
    runs = pytest.importorskip("harmony_viz.runs")
    run = runs.load_file(corpus_dir / "ndurner_gpt-oss-rt-run" / "finding5_runs" / "helpful-1.json")[0]
    assert replay(run, chunking="every:64").trace.tokens.size == len(run.prompt_token_ids) + len(run.completion_token_ids)


def test_save_html_is_self_contained_and_escapes_markup(widget: ReplayWidget, tmp_path: Path) -> None:
    widget.step = 9
    out = widget.save_html(tmp_path / "replay.html", step=widget.step)
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    # no external resources of any kind
    assert not re.search(r"""<(script|link|img|iframe)[^>]+(src|href)\s*=""", page)
    # the stream's markup is only inside the JSON block, with "<" escaped
    data = page.split('<script type="application/json" id="hv-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data
    embedded = json.loads(data)
    assert embedded["traits"]["step"] == 9
    assert "window.__hv_xss" not in page.replace(data, "")
    assert (ROOT / "harmony_viz" / "static" / "standalone.js").read_text(encoding="utf-8")[:200] in page


def _opening_step(page: str) -> int:
    data = page.split('<script type="application/json" id="hv-data">', 1)[1].split("</script>", 1)[0]
    return json.loads(data)["traits"]["step"]


def test_every_page_opens_at_the_end_of_the_stream_whichever_verb_wrote_it(tmp_path: Path) -> None:
    """issue 32: ``w.save_html`` opened at step 0 ("Findings (0), none so far"); ``hv.save_html`` and ``harmony-viz html`` at the end."""
    import harmony_viz as hv
    from harmony_viz.cli import main

    text = "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello<|return|>"
    w = replay(text)
    assert w.step == 0
    end = w.n_steps - 1
    assert _opening_step(w.save_html(tmp_path / "w.html").read_text(encoding="utf-8")) == end
    assert _opening_step(hv.save_html(text, tmp_path / "hv.html").read_text(encoding="utf-8")) == end
    (tmp_path / "t.txt").write_text(text, encoding="utf-8")
    assert main(["html", str(tmp_path / "t.txt"), "-o", str(tmp_path / "cli.html")]) == 0
    assert _opening_step((tmp_path / "cli.html").read_text(encoding="utf-8")) == end
    assert _opening_step(w.save_html(tmp_path / "at3.html", step=3).read_text(encoding="utf-8")) == 3


def test_import_harmony_viz_stays_light() -> None:
    code = ("import sys, harmony_viz; harmony_viz.trace.Trace; "
            "heavy = [m for m in ('anywidget', 'ipywidgets', 'pandas', 'plotly', 'torch') if m in sys.modules]; "
            "print(heavy); r = harmony_viz.replay; print('anywidget' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]"
    assert out[1] == "True"  # the widget machinery loads when replay is asked for


def test_js_and_python_versions_agree() -> None:
    import harmony_viz
    from harmony_viz.trace import FORMAT_VERSION

    package = json.loads((ROOT / "js" / "package.json").read_text(encoding="utf-8"))
    assert package["version"] == harmony_viz.__version__
    # the payload layout: Python writes the version the frontend reads
    source = (ROOT / "js" / "src" / "replay" / "trace.ts").read_text(encoding="utf-8")
    assert f"export const FORMAT_VERSION = {FORMAT_VERSION};" in source


# ---- harmony-viz html ------------------------------------------------------------

def test_cli_html_writes_a_page(tmp_path: Path, enc, capsys) -> None:
    src = tmp_path / "t.txt"
    src.write_text(XSS_TEXT, encoding="utf-8")
    out = tmp_path / "o.html"
    assert main(["html", str(src), "-o", str(out), "--chunking", "every:4", "--step", "-1"]) == 0
    n = len(enc.encode(XSS_TEXT, allowed_special="all"))
    steps = -(-n // 4) + 2
    assert capsys.readouterr().err == f"read {src} as Harmony text\nwrote {out} ({n} tokens, {steps} steps, {out.stat().st_size // 1024} KiB); open it in a browser\n"
    data = json.loads(out.read_text(encoding="utf-8").split('id="hv-data">', 1)[1].split("</script>", 1)[0])
    assert data["traits"]["step"] == steps - 1 and data["meta"]["chunking"] == "every:4"


def test_cli_html_reads_ids_and_run_files(tmp_path: Path, corpus_dir, capsys) -> None:
    ids = tmp_path / "ids.json"
    ids.write_text("[200006, 173781, 200008, 12194, 200007]", encoding="utf-8")
    assert main(["html", str(ids), "-o", str(tmp_path / "a.html")]) == 0
    assert "(5 tokens, 7 steps" in capsys.readouterr().err
    pytest.importorskip("harmony_viz.runs")
    run = corpus_dir / "ndurner_gpt-oss-rt-run" / "finding5_runs" / "cyberthreat-17.json"
    expected = len(Trace.build(read(finding5(corpus_dir, "cyberthreat-17")).stream().ids, "every:1000").tokens)
    assert main(["html", str(run), "-o", str(tmp_path / "b.html")]) == 0
    assert f"({expected} tokens," in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [(["html", "/nonexistent.txt", "-o", "x.html"], "harmony-viz html: /nonexistent.txt: no such file\n"),
     (["html", "IN", "--chunking", "every:0", "-o", "x.html"], "harmony-viz html: --chunking: chunking 'every:0': the size must be at least 1, got 0\n"),
     (["html", "IN", "--step", "99", "-o", "x.html"], "harmony-viz html: --step 99 is out of range: this replay has steps 0 to 6, or -7 to -1 from the end\n")],
)
def test_cli_html_user_errors_are_one_line_exit_2(tmp_path: Path, capsys, monkeypatch, argv, message) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "IN").write_text("<|start|>assistant<|message|>Hi<|end|>", encoding="utf-8")
    (tmp_path / "EMPTY").write_text("  \n", encoding="utf-8")
    assert main(argv) == 2
    assert capsys.readouterr().err == message
    assert not (tmp_path / "x.html").exists()


def test_cli_html_reads_a_conversation(tmp_path: Path, capsys) -> None:
    render = pytest.importorskip("harmony_viz.render")
    conv = {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "channel": "final", "content": "Hello"}]}
    src = tmp_path / "conv.json"
    src.write_text(json.dumps(conv), encoding="utf-8")
    assert main(["html", str(src), "-o", str(tmp_path / "c.html")]) == 0
    # String content and a channel: both forms' marks, so a Chat Completions request (said so), rendered as a server would.
    n = len(render.render_conversation(render.conversation_from_chat(conv)))
    err = capsys.readouterr().err
    assert f"({n} tokens, {n + 2} steps" in err and err.startswith(f"read {src} as a Chat Completions request (it has marks of both forms")


def test_page_path_imports_no_widget_machinery(tmp_path) -> None:
    """Writing a standalone page needs the trace and the bundle, not anywidget (issue 16)."""
    import subprocess
    import sys

    code = (
        "import sys; from harmony_viz import save_html; "
        f"save_html('<|start|>user<|message|>Hi<|end|>', {str(tmp_path / 'p.html')!r}); "
        "print('anywidget' in sys.modules, 'traitlets' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]
    assert (tmp_path / "p.html").stat().st_size > 10_000


def test_old_shim_modules_are_gone() -> None:
    import importlib

    import pytest

    for name in ("harmony_viz.widget", "harmony_viz.html"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(name)


# ---- findings: every lens's, placed on the chips -----------------------------------

def _rows(w: ReplayWidget) -> list[tuple]:
    """The widget's findings as the browser decodes them: (source, code, severity, token span or None, step)."""
    meta = w._meta
    cols = finding_columns(meta, w._columns)
    f = meta["findings"]
    return [(f["sources"][so], f["codes"][c], f["severities"][sv], (int(a), int(a + n)) if a >= 0 else None, int(st))
            for st, a, n, sv, so, c in zip(*(cols[k] for k in ("step", "start", "len", "severity", "source", "code")))]


SPACED_CALL = ("<|start|>user<|message|>Weather in Paris?<|end|><|start|>assistant<|channel|> final<|message|>Checking.<|end|>"
               '<|start|>assistant<|channel|>commentary to=functions.get_weather json<|message|>{"city": "Paris"}<|call|>')


def test_the_replay_carries_the_lints_beside_the_scanner(enc) -> None:
    """The issue's stream: bad-channel from the scanner, constrain-missing from the same lint the CLI runs."""
    from harmony_viz import lint

    w = replay(SPACED_CALL)
    rows = _rows(w)
    assert [(r[0], r[1]) for r in rows if r[1] in ("bad-channel", "constrain-missing")] == [("scanner", "bad-channel"), ("lint", "constrain-missing")]
    linted = {(d.code, (d.start, d.end)) for d in lint(enc.encode(SPACED_CALL, allowed_special="all"))}
    assert {(r[1], r[3]) for r in rows} == linted  # lint reports the scanner's too: the same set, each once
    assert [r[4] for r in rows] == sorted(r[4] for r in rows)  # in the order they show


def test_a_finding_both_the_scanner_and_lint_report_is_one_scanner_row(enc) -> None:
    text = '<|start|>assistant<|channel|>analysis to=functions.get_weather<|message|>{"city": "Paris"}<|call|>'
    w = replay(text)
    assert [r[:2] for r in _rows(w) if r[1] == "call-on-analysis"] == [("scanner", "call-on-analysis")]


def test_tools_given_to_the_replay_are_what_the_lints_check_calls_against(enc) -> None:
    text = '<|start|>assistant<|channel|>commentary to=functions.get_wether <|constrain|>json<|message|>{"city": "Paris"}<|call|>'
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
    assert "undeclared-tool" not in {r[1] for r in _rows(replay(text))}  # no tools known: calls are checked for form only
    assert "undeclared-tool" in {r[1] for r in _rows(replay(text, tools=tools))}


def test_the_lints_run_once_per_stream_not_per_chunking(enc, monkeypatch) -> None:
    import harmony_viz._lint as lints

    calls = []
    real, real_messages = lints.lint, lints.lint_messages  # a token trace's lints read its messages: no second scan
    monkeypatch.setattr(lints, "lint", lambda ids, **kw: calls.append(len(ids)) or real(ids, **kw))
    monkeypatch.setattr(lints, "lint_messages", lambda messages, **kw: calls.append(len(messages)) or real_messages(messages, **kw))
    w = replay(SPACED_CALL)
    w.chunking = "every:3"
    w.chunking = "chars:5"
    assert len(calls) == 1 and "constrain-missing" in {r[1] for r in _rows(w)}
    w.append_tokens(enc.encode("<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>20C<|end|>", allowed_special="all"))
    w.finish_live()
    assert len(calls) == 2  # new tokens: linted again


def test_a_lint_that_fails_is_the_panels_note_not_the_replays_end(monkeypatch) -> None:
    import harmony_viz._lint as lints

    def broken(*args, **kwargs):
        raise RuntimeError("rule exploded")

    monkeypatch.setattr(lints, "lint", broken)
    monkeypatch.setattr(lints, "lint_messages", broken)
    w = replay(SPACED_CALL)
    assert w._meta["findings"]["error"] == "the lints failed: RuntimeError: rule exploded"
    assert [r[:2] for r in _rows(w)] == [("scanner", "bad-channel")]


def test_a_captures_server_and_prompt_findings_are_findings_of_the_stream() -> None:
    """Discrepancies on the tokens the server misread; prompt differences on the prompt the stream holds, or on no token."""
    from harmony_viz.data import sample_path

    path = sample_path("PROVENANCE.md").parent / "prompt_lens" / "vllm" / "thinking-bare-2call-pending.json"
    w = replay(path)
    rows = _rows(w)
    sources = {r[0] for r in rows}
    assert sources == {"scanner", "lint", "prompt"}
    prompt = w._meta["server"]["checks"][0]["prompt"]
    for d in prompt["differences"]:
        side = d["where"]["server"]
        assert ("prompt", d["code"], d["severity"], tuple(side) if side else None) in {r[:4] for r in rows}
    assert any(r[0] == "prompt" and r[3] is None and r[4] == w.n_steps - 1 for r in rows)  # only in our render: listed, no chips
    capture = sample_path("PROVENANCE.md").parent / "server_lens" / "captures" / "vllm" / "stripped-control-tokens.chat.json"
    rows = _rows(replay(capture))
    check = replay(capture)._meta["server"]["checks"][0]
    spanned = [d for d in check["discrepancies"] if d.get("where")]
    assert spanned and all(("server", d["code"], d["severity"], (d["where"]["start"], d["where"]["end"])) in {r[:4] for r in rows} for d in spanned)
    assert any(m.startswith(f"{check['engine']} {check['api']}: ") for m in replay(capture)._meta["findings"]["messages"])


def test_findings_add_little_to_a_long_real_streams_payload(corpus_dir) -> None:
    """Bytes per token the findings add (scanner's and lints' of real transcripts), against the same payload without them."""
    from _replay_streams import long_ids

    from harmony_viz._replay import Lints, stream_findings

    trace = Trace.build(long_ids(corpus_dir, 20_000), "token")
    placed = stream_findings(trace, Lints().of(trace)[0])
    meta, columns = trace.to_payload(findings=placed)
    bare_meta, bare = trace.to_payload(findings=[])
    grown = len(columns) + len(json.dumps(meta)) - len(bare) - len(json.dumps(bare_meta))
    per_token = grown / trace.tokens.size
    assert len(placed) > 100 and per_token < 1.5, f"{per_token:.2f} bytes/token for {len(placed)} findings"


def test_a_closed_replay_is_freed_with_its_trace(enc) -> None:
    """Nothing holds a replay once closed and dropped: a notebook that replays many streams keeps none of their traces.

    anywidget ties every instance of a widget whose bundle is a path to the file's change signal by a strong callback
    (manzt/anywidget#929): the widget hands it the bundle's text.
    """
    w = replay(XSS_TEXT)
    widget, trace = weakref.ref(w), weakref.ref(w.trace)
    w.close()
    del w
    gc.collect()
    assert widget() is None and trace() is None
