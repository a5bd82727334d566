"""``harmony-viz template-check``: a request, datasets (jsonl, parquet), --json, exit codes, bad input."""

from __future__ import annotations

import json
import re

import pytest
from _templates import DATE, TEMPLATE_PATH, WEATHER, call, real_template, request

from harmony_viz.cli import main

pytest.importorskip("transformers")

TOOL_REQUEST = request(
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "tool_calls": [call("c1", "get_weather", '{"city": "Paris"}')]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    tools=[WEATHER],
)
PLAIN = request({"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"})


@pytest.fixture
def template_path():
    real_template()  # fails clearly when ../shared is missing
    return str(TEMPLATE_PATH)


def test_one_request_json(tmp_path, capsys, template_path):
    f = tmp_path / "request.json"
    f.write_text(json.dumps(TOOL_REQUEST))
    assert main(["template-check", "--template", template_path, "--date", DATE, "--json", str(f)]) == 1
    line = json.loads(capsys.readouterr().out)
    assert line["index"] == 0 and line["identical"] is False
    assert [d["code"] for d in line["differences"]] == ["constrain-missing", "arguments-double-encoded", "tool-result-double-encoded"]
    assert set(line["differences"][0]) == {"code", "severity", "message", "ours", "template", "where"}
    assert [d["severity"] for d in line["differences"]] == ["warning", "error", "warning"]


def test_identical_request_exits_0(tmp_path, capsys, template_path):
    f = tmp_path / "plain.json"
    f.write_text(json.dumps(PLAIN))
    assert main(["template-check", "--template", template_path, str(f)]) == 0
    assert capsys.readouterr().out == "conversation 0: identical\n"


def test_model_folder(tmp_path, capsys, template_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "tokenizer_config.json").write_text(json.dumps({"chat_template": TEMPLATE_PATH.read_text()}))
    f = tmp_path / "request.json"
    f.write_text(json.dumps(TOOL_REQUEST))
    assert main(["template-check", "--model", str(tmp_path / "model"), str(f)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("conversation 0: 3 difference(s)\n  constrain-missing (warning): ")


def test_jsonl_dataset_counts_per_code(tmp_path, capsys, template_path):
    f = tmp_path / "data.jsonl"
    f.write_text("\n".join([json.dumps(TOOL_REQUEST), json.dumps(PLAIN), "{not json", json.dumps(TOOL_REQUEST)]) + "\n")
    assert main(["template-check", "--template", template_path, "--json", str(f)]) == 1
    captured = capsys.readouterr()
    lines = [json.loads(x) for x in captured.out.splitlines()]
    assert [x["index"] for x in lines] == [0, 1, 2, 3]
    assert [x["identical"] for x in lines] == [False, True, False, False]
    assert lines[2]["error"].startswith("line 3: not JSON")
    assert "4 conversations: 1 identical, 2 with differences, 1 not rendered" in captured.err
    assert re.search(r"^arguments-double-encoded +2 +2$", captured.err, re.MULTILINE)


def test_gzipped_jsonl_dataset(tmp_path, capsys, template_path):
    import gzip

    f = tmp_path / "data.jsonl.gz"
    with gzip.open(f, "wt", encoding="utf-8") as out:
        out.write(json.dumps(PLAIN) + "\n" + json.dumps(PLAIN) + "\n")
    assert main(["template-check", "--template", template_path, str(f)]) == 0
    assert "2 conversations: 2 identical, 0 with differences, 0 not rendered" in capsys.readouterr().out


def test_parquet_dataset(tmp_path, capsys, template_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    f = tmp_path / "data.parquet"
    pq.write_table(pa.Table.from_pylist([TOOL_REQUEST, PLAIN, TOOL_REQUEST]), f)
    assert main(["template-check", "--template", template_path, "--batch-size", "2", str(f)]) == 1
    out = capsys.readouterr().out
    assert "3 conversations: 1 identical, 2 with differences, 0 not rendered" in out
    assert re.search(r"^tool-result-double-encoded +2 +2$", out, re.MULTILINE)


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ["--template", "{missing}", "{req}"], "no such file; give a .jinja chat template or a model folder"),
        (None, ["--template", "{tpl}", "{missing}"], "no such file"),
        ("{bad", ["--template", "{tpl}", "{req}"], "invalid JSON at line 1, column 2"),
        ('{"messages": 3}', ["--template", "{tpl}", "{req}"], "JSON without a 'messages' list"),
        (json.dumps(PLAIN), ["--template", "{tpl}", "--date", "2025-02-30", "{req}"], "--date: date '2025-02-30' is not YYYY-MM-DD"),
        (json.dumps(request({"role": "assistant", "content": "a", "thinking": "b", "tool_calls": [call("x", "f", "{}")]})),
         ["--template", "{tpl}", "{req}"], "template: refuses this conversation"),
        (json.dumps(PLAIN), ["--model", "{dir}", "{req}"], "holds neither chat_template.jinja nor tokenizer_config.json"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, template_path, setup, args, message):
    req = tmp_path / "request.json"
    if setup is not None:
        req.write_text(setup)
    names = {"missing": str(tmp_path / "missing.json"), "req": str(req), "tpl": template_path, "dir": str(tmp_path)}
    assert main(["template-check", *[a.format(**names) for a in args]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("harmony-viz template-check: ") and message in err
