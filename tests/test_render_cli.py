"""``harmony-viz render``: exit codes, exact output, form detection and error lines."""

from __future__ import annotations

import io
import json

import openai_harmony as oh
import pytest

from harmony_viz.cli import main
from harmony_viz.inputs import conversation_form

HARMONY_DOC = {
    "messages": [
        {"role": "user", "name": None, "content": [{"type": "text", "text": "What is 2+2?"}]},
        {"role": "assistant", "name": None, "content": [{"type": "text", "text": "Easy."}], "channel": "analysis"},
        {"role": "assistant", "name": None, "content": [{"type": "text", "text": "4"}], "channel": "final"},
    ]
}
CHAT_DOC = {"model": "gpt-oss-20b", "messages": [{"role": "user", "content": "Hi"}]}


@pytest.fixture()
def write(tmp_path):
    """Write a JSON document (or raw text) to a file and return its path as a string."""

    def _write(doc, name: str = "in.json") -> str:
        path = tmp_path / name
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
        return str(path)

    return _write


def _reference_ids(ref_enc, doc: dict, *, completion: bool = False) -> list[int]:
    conv = oh.Conversation.from_json(json.dumps(doc))
    if completion:
        return ref_enc.render_conversation_for_completion(conv, oh.Role.ASSISTANT)
    return ref_enc.render_conversation(conv)


def test_prints_exactly_the_rendered_text(write, capsys, reference_encoding):
    path = write(HARMONY_DOC)
    assert main(["render", path]) == 0
    out = capsys.readouterr()
    assert out.out == reference_encoding.decode(_reference_ids(reference_encoding, HARMONY_DOC))
    assert out.out == "<|start|>user<|message|>What is 2+2?<|end|><|start|>assistant<|channel|>final<|message|>4<|end|>"
    assert out.err == f"read {path} as Harmony conversation JSON\n"


def test_tokens_and_for_completion(write, capsys, reference_encoding):
    assert main(["render", write(HARMONY_DOC), "--tokens", "--for-completion"]) == 0
    out = capsys.readouterr().out
    assert out.endswith("]\n")
    assert json.loads(out) == _reference_ids(reference_encoding, HARMONY_DOC, completion=True)


def test_reads_standard_input(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(HARMONY_DOC)))
    assert main(["render", "-"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("<|start|>user<|message|>What is 2+2?<|end|>")
    assert out.err == "read standard input as Harmony conversation JSON\n"


def test_plain_messages_render_as_a_chat_completions_request(write, capsys):
    """A plain {"messages": [{role, content}]} is what gpt-oss gets from a server: system message, then the user's."""
    path = write({"messages": [{"role": "user", "content": "Hi"}]}, "req.json")
    assert main(["render", path]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("<|start|>system<|message|>You are ChatGPT") and out.out.endswith("<|start|>user<|message|>Hi<|end|>")
    assert out.err == f"read {path} as a Chat Completions request\n"


def test_neither_form_is_read_as_chat_and_said(write, capsys):
    path = write({"messages": []})
    assert main(["render", path]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("<|start|>system<|message|>")
    assert out.err == f"read {path} as a Chat Completions request (nothing in it marks either form; --from harmony reads it as Harmony conversation JSON)\n"


def test_chat_request_is_detected(write, capsys):
    assert main(["render", write(CHAT_DOC)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<|start|>system<|message|>You are ChatGPT")
    assert out.endswith("<|start|>user<|message|>Hi<|end|>")


def test_from_overrides_detection(write, capsys):
    plain = {"messages": [{"role": "user", "content": "Hi"}]}
    assert main(["render", write(plain), "--from", "chat"]) == 0
    assert capsys.readouterr().out.startswith("<|start|>system<|message|>")
    assert main(["render", write(CHAT_DOC), "--from", "harmony"]) == 0
    assert capsys.readouterr().out == "<|start|>user<|message|>Hi<|end|>"


@pytest.mark.parametrize(
    ("doc", "form"),
    [
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}]}, ("chat", "nothing in it marks either form")),
        ({"messages": [{"role": "user", "content": "x"}]}, ("chat", "")),
        ({"messages": [{"role": "assistant", "content": [], "channel": "final"}]}, ("conversation", "")),
        ({"messages": [{"role": "assistant", "content": [], "recipient": "functions.f"}]}, ("conversation", "")),
        ({"messages": [{"role": "assistant", "content": [], "content_type": "json"}]}, ("conversation", "")),
        ({"messages": [{"role": "system", "content": [{"type": "system_content"}]}]}, ("conversation", "")),
        ({"messages": [{"role": "developer", "content": [{"type": "developer_content"}]}]}, ("conversation", "")),
        ({"model": "m", "messages": []}, ("chat", "nothing in it marks either form")),
        ({"tools": [{"type": "function", "function": {"name": "f"}}], "messages": []}, ("chat", "")),
        ({"messages": [{"role": "assistant", "tool_calls": []}]}, ("chat", "")),
        ({"messages": [{"role": "tool", "tool_call_id": "c"}]}, ("chat", "")),
        ({"messages": [{"role": "assistant", "reasoning_content": "r"}]}, ("chat", "")),
        ({"messages": [{"role": "assistant", "thinking": "r"}]}, ("chat", "")),
        ({"messages": [{"role": "assistant", "reasoning": "r"}]}, ("chat", "")),
        # Both forms' marks: a Chat Completions request, said so.
        ({"messages": [{"role": "assistant", "content": "x", "channel": "final"}]}, ("chat", "it has marks of both forms")),
    ],
)
def test_detection_rules(doc, form):
    assert conversation_form(doc) == form


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('{"messages": [', "{path}: invalid JSON at line 1, column 15: Expecting value"),
        ('{"messages": [{"role": "bot", "content": "x"}]}', "{path}: messages[0].role: unknown role 'bot'; expected one of system, developer, user, assistant, tool"),
        ('{"messages": [{"role": "tool", "content": [], "channel": null}]}',
         "{path}: messages[0].name: a tool message needs an author name, the tool that answers (e.g. 'functions.get_weather')"),
        ("[1]", "{path}: token ids, not a conversation; give Harmony conversation JSON or a Chat Completions request"),
        ('{"model": "m", "messages": [{"role": "tool", "tool_call_id": "z", "content": "x"}]}', "{path}: messages[0].tool_call_id: no assistant tool call has id 'z'; a tool result must answer an earlier tool_calls entry"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(write, capsys, text, line):
    path = write(text)
    assert main(["render", path]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == f"harmony-viz render: {line.format(path=path)}\n"


def test_missing_file(tmp_path, capsys):
    missing = str(tmp_path / "nope.json")
    assert main(["render", missing]) == 2
    assert capsys.readouterr().err == f"harmony-viz render: {missing}: no such file\n"
