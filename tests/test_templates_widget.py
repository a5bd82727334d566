"""The render diff's "chat template" layout, the request read back from a conversation, and the saved page."""

from __future__ import annotations

import json

import pytest
from _templates import DATE, TEMPLATE_PATH, conversations, real_template
from hypothesis import given

from harmony_viz._playground import PlaygroundWidget
from harmony_viz.cli import main
from harmony_viz.render import RenderError, conversation_from_chat, render_conversation_for_training
from harmony_viz.templates import ENV_VAR, ours_request, request_from_conversation
from harmony_viz.tokens import encoding

pytest.importorskip("transformers")

from test_templates_cli import TOOL_REQUEST  # noqa: E402


@given(conversations())
def test_request_read_back_from_a_conversation_renders_the_same(req):
    try:
        conv = conversation_from_chat(ours_request(req), conversation_start_date=DATE)
    except RenderError:
        return
    again = conversation_from_chat(request_from_conversation(conv), conversation_start_date=DATE)
    assert render_conversation_for_training(again) == render_conversation_for_training(conv)


def test_template_layout_puts_codes_on_token_spans():
    real_template()
    w = PlaygroundWidget(conversation_from_chat(TOOL_REQUEST), chat_template=str(TEMPLATE_PATH))
    assert w.chat_template_origin == str(TEMPLATE_PATH)
    w.show_diff = True
    assert "layout" not in w._diff  # the model layout first
    w.diff_layout = "template"
    d = w._diff
    assert d["layout"] == "template" and d["origin"] == str(TEMPLATE_PATH)
    assert [x["code"] for x in d["differences"]] == ["constrain-missing", "arguments-double-encoded", "tool-result-double-encoded"]
    enc = encoding()
    for x in d["differences"]:
        a, b = x["ours_span"]
        assert enc.decode(d["reference"][a:b]) == x["ours"]
        a, b = x["template_span"]
        assert enc.decode(d["model"][a:b]) == x["template"]
    assert len(d["reference_pieces"]) == len(d["reference"]) and len(d["model_pieces"]) == len(d["model"])
    assert "".join(d["model_pieces"]) == enc.decode(d["model"])
    # an edit recomputes the layout
    w.messages = [*w.messages, {"role": "user", "content": [{"type": "text", "text": "thanks"}]}]
    assert w._diff["layout"] == "template" and "thanks" in "".join(w._diff["model_pieces"])


def test_template_layout_without_a_template_says_how_to_give_one(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    w = PlaygroundWidget(preset="plain-chat")
    w.show_diff = True
    w.diff_layout = "template"
    assert w._diff["error"].startswith("no chat template: pass chat_template=")


def test_template_from_the_environment(monkeypatch):
    real_template()
    monkeypatch.setenv(ENV_VAR, str(TEMPLATE_PATH))
    w = PlaygroundWidget(preset="tool-call", show_diff=True, diff_layout="template")
    # this preset has reasoning and a preamble beside the call: the real template refuses it
    assert w._diff["error"].startswith("template: refuses this conversation: Cannot pass both content and thinking")


def test_html_template_page(tmp_path, capsys):
    real_template()
    req = tmp_path / "request.json"
    req.write_text(json.dumps(TOOL_REQUEST))
    out = tmp_path / "page.html"
    assert main(["html", "--template", str(TEMPLATE_PATH), str(req), "-o", str(out)]) == 0
    assert "3 difference(s)" in capsys.readouterr().err
    page = out.read_text()
    data = json.loads(page.split('<script type="application/json" id="hv-data">', 1)[1].split("</script>", 1)[0])
    assert [x["code"] for x in data["diff"]["differences"]] == ["constrain-missing", "arguments-double-encoded", "tool-result-double-encoded"]
    assert "<|constrain|>" not in page.split("<script", 1)[0]  # the token text lives in the data block only


def test_html_template_bad_request_is_one_line(tmp_path, capsys):
    real_template()
    req = tmp_path / "request.json"
    req.write_text('{"messages": [{"role": "robot", "content": "x"}]}')
    assert main(["html", "--template", str(TEMPLATE_PATH), str(req)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ours: messages[0].role: unknown role 'robot'" in err
