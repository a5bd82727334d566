"""The playground widget, driven through its state as the browser would: edits round-trip through Python."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import traitlets

from harmony_viz._playground import PRESETS, PlaygroundWidget, conversation_from_scan, playground
from harmony_viz.data import sample_path
from harmony_viz.render import Conversation, Message, RenderError, RenderOptions, render_conversation_for_training
from harmony_viz.runs import load_runs
from harmony_viz.scanner import scan

CONVERSATION_PRESETS = [n for n, p in PRESETS.items() if isinstance(p.load(), Conversation)]


def render(conversation: Conversation) -> list[int]:
    """What the playground renders: every message kept (no analysis dropped), training form."""
    return render_conversation_for_training(conversation, options=RenderOptions(drop_analysis=False))
STREAM_PRESETS = [n for n in PRESETS if n not in CONVERSATION_PRESETS]

# A stream as models write it: recipient after the channel, and no <|message|> after the last header.
MODEL_TEXT = ("<|start|>user<|message|>Weather in Oslo?<|end|>"
              "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"
              '<|message|>{"city": "Oslo"}<|call|>'
              "<|start|>assistant<|channel|>final  ")


def browser_update(w: PlaygroundWidget, **state: object) -> None:
    """Apply ``state`` the way a comm message from the browser does."""
    w._handle_msg({"content": {"data": {"method": "update", "state": state}}})


def browser_send(w: PlaygroundWidget, content: dict) -> None:
    w._handle_msg({"content": {"data": {"method": "custom", "content": content}}, "buffers": []})


def oracle_messages(reference_encoding, tokens: list[int]) -> list[dict]:
    """openai-harmony's parse of a whole transcript, as plain dicts."""
    return [m.to_dict() for m in reference_encoding.parse_messages_from_completion_tokens(tokens, None)]


def header(d: dict) -> tuple:
    return d["role"], d.get("name"), d.get("channel"), d.get("recipient"), d.get("content_type")


def reference_header(d: dict) -> tuple:
    """``header(d)`` for the reference's parse, undoing its known misreading of ``final <|constrain|>json``.

    openai-harmony 0.0.8 takes a lone ``<|constrain|>json`` after the channel for the
    recipient (openai/harmony#144); our scanner reads it as the content type.
    """
    role, name, channel, recipient, content_type = header(d)
    if recipient is not None and recipient.startswith("<|constrain|>") and content_type is None:
        recipient, content_type = None, recipient
    return role, name, channel, recipient, content_type


@pytest.fixture
def widget() -> PlaygroundWidget:
    """A playground on the tool-call preset."""
    return playground(preset="tool-call")


@pytest.mark.parametrize("name", CONVERSATION_PRESETS)
def test_messages_tokens_messages_on_conversation_presets(name: str, reference_encoding) -> None:
    import openai_harmony as oh

    w = playground(preset=name)
    assert w.origin == "messages" and w.preset == name and w.error == ""
    # tokens are openai-harmony's own rendering of the cards (every message kept)
    ref_conv = oh.Conversation.from_json(w.conversation.to_json())
    config = oh.RenderConversationConfig(auto_drop_analysis=False)
    assert w.tokens == reference_encoding.render_conversation_for_training(ref_conv, config)
    # and they parse back, by the reference's parser, to the cards' headers and texts
    parsed = oracle_messages(reference_encoding, w.tokens)
    assert [reference_header(p) for p in parsed] == [header(m) for m in w.messages]
    for p, m in zip(parsed, w.messages):
        if m["content"][0]["type"] == "text":
            assert p["content"] == m["content"]
    # the browser sends the scanned messages back (as a Python `scan` reads them): same stream
    scanned = [m.to_dict() for m in conversation_from_scan(scan(w.tokens)).messages]
    before = list(w.tokens)
    browser_update(w, messages=scanned)
    assert w.error == "" and w.tokens == before and w.origin == "messages"
    assert w.messages == scanned


@pytest.mark.parametrize("name", STREAM_PRESETS)
def test_sample_streams_are_kept_then_an_edit_renders(name: str, reference_encoding) -> None:
    from harmony_viz.inputs import read

    w = playground(preset=name)
    file, index = {"sample-missing-message": ("finding5_runs/cyberthreat-24.json", 0),
                   "sample-bad-channel": ("findings-tournament.json", 19),
                   "sample-call-ended-by-end": ("findings-tournament.json", 13)}[name]
    raw = list(read(load_runs(sample_path(file), progress=False)[index]).stream().ids)
    assert w.tokens == raw and w.origin == "tokens"
    assert any(d["severity"] in ("error", "warning") and d["source"] == "scanner" for d in w.diagnostics)
    # the reference parser refuses these streams: that is why they are presets
    from openai_harmony import HarmonyError

    with pytest.raises(HarmonyError):
        oracle_messages(reference_encoding, raw)
    # edit the last message's text in the browser: the stream is rendered anew from the cards
    edited = [dict(m) for m in w.messages]
    edited[-1] = {**edited[-1], "content": [{"type": "text", "text": "Edited in the playground."}]}
    browser_update(w, messages=edited)
    assert w.origin == "messages" and w.tokens != raw and w.error == ""
    assert w.messages == edited
    parsed = oracle_messages(reference_encoding, w.tokens)  # well-formed now: the reference reads it
    assert [reference_header(p) for p in parsed] == [header(m) for m in edited]
    assert parsed[-1]["content"][0]["text"] == "Edited in the playground."
    assert not [d for d in w.diagnostics if d["source"] == "scanner" and d["severity"] == "error"]


def test_text_is_kept_exactly_and_scanned(enc) -> None:
    w = playground(MODEL_TEXT)
    assert w.text == MODEL_TEXT and w.origin == "text"
    assert w.tokens == enc.encode(MODEL_TEXT, allowed_special="all")
    assert enc.decode(w.tokens) == MODEL_TEXT
    # The header cut off at the end makes no message (issue 13); it is reported instead.
    assert [m["role"] for m in w.messages] == ["user", "assistant"]
    assert "eos-in-header" in {d["code"] for d in w.diagnostics}
    assert w.messages[1]["recipient"] == "functions.get_weather"
    assert w.messages[1]["content_type"] == "<|constrain|>json"
    codes = {d["code"] for d in w.diagnostics}
    assert codes & {d.code for d in scan(w.tokens).diagnostics}  # the scanner's findings are shown
    # the stream side tells which message each token belongs to
    spans = w._stream["messages"]
    assert [s["index"] for s in spans] == [0, 1]
    assert spans[1]["start"] < spans[1]["header_end"] < spans[1]["end"]
    assert w.tokens[spans[1]["header_end"] - 1] == 200008


def test_browser_text_edit_rescans(widget: PlaygroundWidget, enc) -> None:
    text = "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello<|return|>"
    browser_update(widget, text=text)
    assert widget.tokens == enc.encode(text, allowed_special="all") and widget.origin == "text"
    assert [(m["role"], m.get("channel")) for m in widget.messages] == [("user", None), ("assistant", "final")]
    assert widget.conversation.messages[1].content[0].text == "Hello"


def test_browser_ids_edit_rescans(widget: PlaygroundWidget) -> None:
    ids = [200006, 1428, 200008, 12194, 200007]
    browser_update(widget, tokens=ids)
    assert widget.tokens == ids and widget.origin == "tokens"
    assert widget.messages == [{"role": "user", "name": None, "content": [{"type": "text", "text": "Hi"}]}]
    browser_update(widget, tokens="200006 1428 200008 12194 200007 200006")  # typed text of ids works too
    assert widget.tokens == [*ids, 200006] and widget.error == ""


def test_python_sets_either_side_and_the_other_follows(widget: PlaygroundWidget, enc) -> None:
    widget.tokens = enc.encode(MODEL_TEXT, allowed_special="all")
    assert widget.conversation.messages[1].recipient == "functions.get_weather"
    assert widget.text == MODEL_TEXT
    conv = Conversation.from_messages([Message.from_role_and_content("user", "Hi")])
    widget.conversation = conv
    assert widget.tokens == [200006, 1428, 200008, 12194, 200007] and widget.conversation == conv
    widget.conversation = {"messages": [{"role": "user", "name": None, "content": [{"type": "text", "text": "Yo"}]}]}
    assert enc.decode(widget.tokens) == "<|start|>user<|message|>Yo<|end|>"


def test_given_stream_is_not_rerendered_until_a_message_is_edited(enc) -> None:
    w = playground(MODEL_TEXT)
    given = list(w.tokens)
    w.show_diff = True  # opening the diff is not an edit
    assert w.tokens == given
    edited = [dict(m) for m in w.messages]
    edited[0] = {**edited[0], "content": [{"type": "text", "text": "Weather in Bergen?"}]}
    browser_update(w, messages=edited)
    text = enc.decode(w.tokens)
    # re-rendered in the reference layout: the recipient moved into the role section
    assert "<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>" in text
    assert "Weather in Bergen?" in text and w.origin == "messages"


def test_card_operations_add_move_remove(widget: PlaygroundWidget, enc) -> None:
    msgs = list(widget.messages)
    n = len(msgs)
    browser_update(widget, messages=[msgs[0], msgs[2], msgs[1], *msgs[3:]])  # move the user message up
    assert enc.decode(widget.tokens).index("<|start|>user") < enc.decode(widget.tokens).index("<|start|>developer")
    browser_update(widget, messages=widget.messages[:-1])
    assert len(scan(widget.tokens).messages) == n - 1
    browser_update(widget, messages=[*widget.messages, {"role": "user", "name": None, "content": [{"type": "text", "text": "More?"}]}])
    assert enc.decode(widget.tokens).endswith("<|start|>user<|message|>More?<|end|>")


def test_structured_system_fields_render(widget: PlaygroundWidget, enc) -> None:
    msgs = [dict(m) for m in widget.messages]
    system = dict(msgs[0]["content"][0])
    system.update(reasoning_effort="High", conversation_start_date="2030-01-02")
    msgs[0] = {**msgs[0], "content": [system]}
    dev = dict(msgs[1]["content"][0])
    dev["instructions"] = "Talk like a pirate."
    msgs[1] = {**msgs[1], "content": [dev]}
    browser_update(widget, messages=msgs)
    text = enc.decode(widget.tokens)
    assert "Reasoning: high" in text and "Current date: 2030-01-02" in text
    assert "# Instructions\n\nTalk like a pirate." in text
    assert "type get_weather = " in text  # the tool schema still renders as TypeScript


def test_bad_edits_are_reported_not_raised(widget: PlaygroundWidget) -> None:
    before = list(widget.tokens)
    browser_update(widget, tokens=[200006, 999999])
    assert widget.error == "token 1 is 999999, outside the o200k_harmony vocabulary 0..201087"
    assert widget.tokens == before
    bad = [{"role": "robot", "name": None, "content": [{"type": "text", "text": "x"}]}]
    browser_update(widget, messages=bad)
    assert "unknown role 'robot'" in widget.error and "last valid conversation" in widget.error
    assert widget.tokens == before and widget.messages == bad  # the card keeps what was typed
    browser_update(widget, preset="nope")
    assert widget.error.startswith("no preset 'nope'; known presets: plain-chat, reasoning")


def test_python_errors_name_the_fix(widget: PlaygroundWidget) -> None:
    with pytest.raises(traitlets.TraitError, match=r"token 0 is -1, outside the o200k_harmony vocabulary"):
        widget.tokens = [-1]
    with pytest.raises(RenderError, match="unknown role 'robot'"):
        widget.conversation = [{"role": "robot", "name": None, "content": []}]
    with pytest.raises(KeyError, match="known presets: plain-chat"):
        widget.load_preset("nope")
    with pytest.raises(ValueError, match="the dict given: messages\\[0\\].role: unknown role 'robot'"):  # the reader's InputError
        playground({"messages": [{"role": "robot", "name": None, "content": []}]})
    with pytest.raises(RenderError, match="a tool message needs an author name"):
        playground([Message.from_role_and_content("tool", "42")])


def test_diagnostics_are_read_only(widget: PlaygroundWidget) -> None:
    widget.tokens = [200006, 173781, 200005, 17196, 12194]  # header never reaches <|message|>
    found = list(widget.diagnostics)
    assert found and all(set(d) == {"code", "severity", "message", "start", "end", "source"} for d in found)
    with pytest.raises(traitlets.TraitError, match="read-only"):
        widget.diagnostics = []
    browser_update(widget, diagnostics=[])
    assert widget.diagnostics == found


def test_lints_appear_with_the_scanner_findings() -> None:
    tools_text = ("<|start|>developer<|message|># Tools\n\n## functions\n\nnamespace functions {\n\n"
                  "// Weather\ntype get_weather = (_: {\ncity: string,\n}) => any;\n\n} // namespace functions<|end|>"
                  '<|start|>assistant<|channel|>commentary to=functions.get_wether <|constrain|>json<|message|>{"city": "Oslo"}<|call|>')
    w = playground(tools_text)
    lint_codes = {d["code"] for d in w.diagnostics if d["source"] == "lint"}
    assert "undeclared-tool" in lint_codes


def test_render_diff_on_demand(widget: PlaygroundWidget) -> None:
    assert widget._diff == {}
    browser_update(widget, show_diff=True)
    d = widget._diff
    assert d["reference"] == widget.tokens
    assert len(d["reference_pieces"]) == len(d["reference"]) and len(d["model_pieces"]) == len(d["model"])
    assert {op["tag"] for op in d["ops"]} == {"equal", "insert", "delete"}
    browser_update(widget, messages=widget.messages[:3])  # no call left: both layouts agree
    assert [op["tag"] for op in widget._diff["ops"]] == ["equal"]
    browser_update(widget, show_diff=False)
    assert widget._diff == {}


def test_replay_this(widget: PlaygroundWidget) -> None:
    from harmony_viz import ReplayWidget

    browser_send(widget, {"type": "replay"})
    r = widget.replay_widget
    assert isinstance(r, ReplayWidget)
    assert [int(t) for t in r.trace.tokens] == widget.tokens
    assert widget.get_state()["replay_widget"] == f"IPY_MODEL_{r.model_id}"
    browser_send(widget, {"type": "close-replay"})
    assert widget.replay_widget is None
    widget.conversation = []
    browser_send(widget, {"type": "replay"})
    assert widget.replay_widget is None and widget.error.startswith("the stream is empty")


def test_presets_and_control_tokens_are_offered(widget: PlaygroundWidget) -> None:
    assert [p["name"] for p in widget.presets] == list(PRESETS)
    assert {"plain-chat", "reasoning", "tool-call", "builtin-tools", "structured-output"} <= set(PRESETS)
    assert widget._controls["200012"]["literal"] == "<|call|>"
    assert "tool call" in widget._controls["200012"]["meaning"]
    assert widget._controls["200003"]["literal"] == "<|constrain|>"
    browser_update(widget, preset="structured-output")
    assert widget.preset == "structured-output" and widget.messages[-1]["content_type"] == "<|constrain|>json"
    browser_update(widget, preset="builtin-tools")
    assert [m.get("recipient") for m in widget.messages if m["role"] == "assistant" and m.get("recipient")] == ["python", "browser.search"]


def test_split_characters_group_on_the_stream_side() -> None:
    w = playground("<|start|>user<|message|>🎉<|end|>")
    pieces, groups = w._stream["pieces"], w._stream["groups"]
    body = [i for i in range(3, len(pieces) - 1)]
    assert "".join(p for p in (pieces[i] for i in body) if p != "‥") == "🎉"
    assert all(groups[i] == body[0] for i in body)


def test_from_python_sources(enc) -> None:
    ids = enc.encode(MODEL_TEXT, allowed_special="all")
    assert playground(ids).tokens == ids
    conv = PRESETS["reasoning"].load()
    w = playground(conv)
    assert w.conversation == conv and w.tokens == render(conv)
    assert playground(json.loads(conv.to_json())).tokens == w.tokens  # a str is always Harmony text
    assert playground().preset == "plain-chat"
    assert playground(np.array(ids, dtype=np.int32)).tokens == ids
    run = load_runs(sample_path("finding5_runs/helpful-1.json"), progress=False)[0]
    w = playground(run)
    assert w.tokens == [*run.prompt_token_ids, *run.completion_token_ids] and w.origin == "tokens"


def test_importing_harmony_viz_loads_no_widget_machinery() -> None:
    code = ("import sys, harmony_viz, harmony_viz._playground as p; p.PRESETS; "
            "print(sorted(m for m in ('anywidget', 'ipywidgets', 'pandas', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
    code = "import harmony_viz; w = harmony_viz.playground(preset='reasoning'); print(type(w).__name__, w.preset)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "PlaygroundWidget reasoning"
