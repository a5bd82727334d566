"""The one reader (``harmony_viz.inputs``): every kind of input, read alike and said, in Python."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _replay_streams import XSS_TEXT

from harmony_viz.inputs import InputError, read, read_text
from harmony_viz.tokens import encode

TRIAL = "aldehir_tool_calling/cities_3_cot_true_trial-1.md"


def test_text_ids_and_arrays_give_the_same_stream(enc) -> None:
    ids = enc.encode(XSS_TEXT, allowed_special="all")
    assert list(read(XSS_TEXT).stream().ids) == ids
    assert list(read(np.array(ids, dtype=np.int64)).stream().ids) == ids
    assert list(read(tuple(ids)).stream().ids) == ids
    assert read(XSS_TEXT).stream().text == XSS_TEXT  # a scan of it counts characters


def test_a_run_is_its_prompt_then_its_completion(corpus_dir) -> None:
    from harmony_viz import runs

    run = runs.load_file(corpus_dir / "ndurner_gpt-oss-rt-run" / "finding5_runs" / "helpful-1.json")[0]
    stream = read(run).stream()
    expected = [*run.prompt_token_ids, *run.completion_token_ids] if run.text is None else encode(run.text)
    assert list(stream.ids) == expected and len(expected) > 100
    assert read(run).said == "read the Run given as a run"


def test_conversations_are_rendered(enc) -> None:
    from harmony_viz import render

    conv = render.Conversation.from_messages([render.Message.from_role_and_content("user", "Hi")])
    assert list(read(conv).stream().ids) == list(render.render_conversation(conv))
    assert enc.decode(list(read(conv).stream().ids)) == "<|start|>user<|message|>Hi<|end|>"


def test_what_cannot_be_read_is_named() -> None:
    with pytest.raises(InputError, match="cannot read a float; pass Harmony text"):
        read(1.5)
    with pytest.raises(InputError, match="decode them to Harmony text"):
        read(b"<|start|>")


def test_a_string_naming_a_file_is_read_as_that_file(tmp_path) -> None:
    """Defect: ``hv.replay("path/to/transcript.json")`` replayed the path string itself (26 tokens)."""
    text = "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello<|return|>"
    path = tmp_path / "transcript.json"
    path.write_text(json.dumps(encode(text)))
    found = read(str(path))
    assert (found.kind, found.said) == ("ids", f"read {path} as token ids")
    assert list(found.stream().ids) == encode(text)
    # A path-like string that names no file is an error, not text to replay.
    with pytest.raises(InputError, match=r"nope\.json: no such file"):
        read(str(tmp_path / "nope.json"))


def test_replay_reads_a_path_string(tmp_path) -> None:
    """Defect: ``hv.replay(path)`` replayed the path; now it reads the file and says so on ``w.source``."""
    import harmony_viz as hv

    text = "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello<|return|>"
    path = tmp_path / "transcript.txt"
    path.write_text(text)
    w = hv.replay(str(path))
    assert w.trace.tokens.tolist() == encode(text)
    assert w.source == f"read {path} as Harmony text"
    assert w.api_view["views"]["chat"]["choices"][0]["message"]["content"] is None  # step 0: nothing fed yet
    w.step = w.n_steps - 1
    assert w.api_view["views"]["chat"]["choices"][0]["message"]["content"] == "Hello"


def test_playground_and_save_html_read_paths_too(tmp_path) -> None:
    import harmony_viz as hv

    text = "<|start|>user<|message|>Hi<|end|>"
    path = tmp_path / "t.txt"
    path.write_text(text)
    w = hv.playground(str(path))
    assert (w.text, w.source) == (text, f"read {path} as Harmony text")
    page = hv.save_html(str(path), tmp_path / "p.html")
    data = json.loads(page.read_text().split('id="hv-data">', 1)[1].split("</script>", 1)[0])
    assert data["meta"]["n_tokens"] == len(encode(text)) == 5


@pytest.mark.parametrize(
    ("doc", "kind"),
    [
        ({"messages": [{"role": "user", "content": "Hi"}]}, "chat"),
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}], "channel": None}]}, "conversation"),
        ([{"role": "user", "content": "Hi"}], "chat"),
    ],
)
def test_conversation_json_is_told_by_its_shape(doc, kind) -> None:
    assert read(doc).kind == kind
    assert read_text(json.dumps(doc), "doc.json").kind == kind  # a file's content
    assert read(json.dumps(doc)).kind == "text"  # a str in memory is Harmony text (model output may be JSON)


def test_a_markdown_trial_is_read_as_stats_reads_it(corpus_dir) -> None:
    from harmony_viz.runs import load_runs

    path = corpus_dir / TRIAL
    found = read(path)
    assert found.said == f"read {path} as a Markdown trial (4 runs)"
    assert [r.id for r in found.runs()] == [r.id for r in load_runs(path)]
    last = found.stream(-1)
    run = load_runs(path)[-1]
    assert list(last.ids) == [*run.prompt_token_ids, *run.completion_token_ids]
    assert last.prompt_tokens == len(run.prompt_token_ids) and last.label == "run 3 of 4 (cities_3_cot_true_trial-1#turn-4)"
    with pytest.raises(InputError, match=r"run 4 is out of range; it holds 4 runs: 0 to 3, or -4 to -1 from the end"):
        found.stream(4)


def test_invalid_json_is_named_with_line_and_column(tmp_path) -> None:
    path = tmp_path / "invalid.json"
    path.write_text('{"messages": [\n  {"role": "user",, }\n]}')
    with pytest.raises(InputError) as caught:
        read(path)
    assert str(caught.value) == f"{path}: invalid JSON at line 2, column 19: Expecting property name enclosed in double quotes"
    assert caught.value.reason == "bad-json"


def test_ids_out_of_range_are_one_clear_error(tmp_path) -> None:
    path = tmp_path / "ids.json"
    path.write_text("[5, 201088]")
    with pytest.raises(InputError, match=r"ids\.json: token 1 is 201088, outside the o200k_harmony vocabulary 0\.\.201087$"):
        read(path)
    with pytest.raises(InputError, match=r"token 2 is 999999999, outside"):
        read([1, 2, 999999999])


def test_parquet_runs_are_read(tmp_path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    text = "<|start|>assistant<|channel|>final<|message|>Hi<|return|>"
    pq.write_table(pa.table({"id": ["a", "b"], "text": [text, text.replace("Hi", "Yo")]}), tmp_path / "runs.parquet")
    found = read(tmp_path / "runs.parquet")
    assert found.said == f"read {tmp_path / 'runs.parquet'} as Parquet (2 runs)"
    assert [r.id for r in found.runs()] == ["a", "b"]
    assert list(found.stream(1).ids) == encode(text.replace("Hi", "Yo"))


# -- captures and check results: the reader reads them, the page builds their server tab (issue 26 item 4) --------

_READ_ONLY = """
import sys
from harmony_viz.inputs import read
found = read({path!r})
stream = found.stream()
packages = {{m.split(".")[1] for m in sys.modules if m.startswith("harmony_viz.")}}
print(found.form, stream.lens is found.value[0], stream.prompt_tokens == len(found.value[0].prompt_token_ids), sorted(packages))
"""


def test_reading_a_capture_runs_no_check_of_it() -> None:
    """The reader says "a capture" and replays its ids; nothing above it is imported (no server check, prompt check or diff)."""
    import subprocess
    import sys

    from _lens import CAPTURES

    code = _READ_ONLY.format(path=str(CAPTURES / "seed-001.chat-stream.json"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 4)
    assert out[:4] == ["a", "capture", "True", "True"]
    assert set(eval(out[4])) <= {"inputs", "_runfile", "tokens", "findings", "render", "scanner"}  # noqa: S307 - our own print


def test_the_page_builds_a_captures_server_tab() -> None:
    from _lens import CAPTURES

    from harmony_viz._replay import page_html, server_tab
    from harmony_viz.trace import Trace

    found = read(CAPTURES / "seed-001.chat-stream.json")
    stream = found.stream()
    run = found.value[0]
    assert list(stream.ids) == [*run.prompt_token_ids, *run.completion_token_ids] and stream.role is None
    tab = server_tab(stream, found.name)
    assert tab is not None and tab["checks"][0]["api"] == "chat-stream"
    assert server_tab(read(XSS_TEXT).stream()) is None  # no server lens record: no tab
    # page_html(server=...) takes the tab, or the record it is built from (the stream's lens record).
    trace = Trace.build(stream.ids, "every:64", role=stream.role)
    assert not hasattr(stream, "server")  # one name: the record is Stream.lens
    page = page_html(trace, server=stream.lens, prompt_tokens=stream.prompt_tokens)
    assert page == page_html(trace, server=tab, prompt_tokens=stream.prompt_tokens) and '"server":{"checks"' in page


def test_check_results_replay_the_stream_they_checked() -> None:
    from _lens import CAPTURES

    from harmony_viz.servers import check_captures, lens_source

    results = list(check_captures([str(CAPTURES / "seed-001.chat.json"), str(CAPTURES / "doubled-channel.chat.json")]))
    one = read(results[:1])
    assert one.said == "read the list given as server-check results"
    stream = one.stream()
    ids, role, payload = lens_source(results[:1])
    assert (list(stream.ids), stream.role, stream.lens) == (ids, role, results[:1])
    with pytest.raises(InputError, match="these server-check results are for different streams; replay one stream's results at a time"):
        read(results).stream()
