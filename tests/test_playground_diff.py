"""The layout diff: openai-harmony's layout against the model's, both read back by the reference parser."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harmony_viz._playground import PRESETS, render_diff, render_model_layout
from harmony_viz.render import Author, Conversation, Message, Role, TextContent
from harmony_viz.tokens import START

CONVERSATION_PRESETS = [n for n, p in PRESETS.items() if isinstance(p.load(), Conversation)]


def parsed(reference_encoding, tokens) -> list[dict]:
    return [m.to_dict() for m in reference_encoding.parse_messages_from_completion_tokens(list(tokens), None)]


def decoded_ops(enc, d) -> list[tuple[str, str, str]]:
    return [(op.tag, enc.decode(list(d.reference[op.ref_start:op.ref_end])), enc.decode(list(d.model[op.model_start:op.model_end])))
            for op in d.ops if op.tag != "equal"]


@pytest.mark.parametrize("name", CONVERSATION_PRESETS)
def test_both_layouts_read_back_the_same_messages(name: str, reference_encoding) -> None:
    conv = PRESETS[name].load()
    d = render_diff(conv)
    assert parsed(reference_encoding, d.model) == parsed(reference_encoding, d.reference)
    # the opcodes rebuild the model side from the reference side
    rebuilt: list[int] = []
    for op in d.ops:
        rebuilt += d.reference[op.ref_start:op.ref_end] if op.tag == "equal" else d.model[op.model_start:op.model_end]
    assert rebuilt == list(d.model)
    has_call = any(m.recipient not in (None, "all") and m.author.role is Role.ASSISTANT for m in conv.messages)
    assert d.identical is not has_call


def test_tool_call_diff_moves_the_recipient_only(enc) -> None:
    d = render_diff(PRESETS["tool-call"].load())
    text = enc.decode(list(d.model))
    assert "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>" in text
    assert "<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>" in enc.decode(list(d.reference))
    assert decoded_ops(enc, d) == [("insert", "", "<|channel|>commentary"), ("delete", "<|channel|>commentary", "")]
    assert [(op.reference_text, op.model_text) for op in d.ops if op.tag != "equal"] == [("", "<|channel|>commentary"), ("<|channel|>commentary", "")]
    # the diff is difflib's over the two id lists
    ops = difflib.SequenceMatcher(None, list(d.reference), list(d.model), autojunk=False).get_opcodes()
    assert [(op.tag, op.ref_start, op.ref_end, op.model_start, op.model_end) for op in d.ops] == ops


def test_builtin_calls_move_too(enc) -> None:
    model = enc.decode(render_model_layout(PRESETS["builtin-tools"].load()))
    assert "<|start|>assistant<|channel|>analysis to=python code<|message|>" in model
    assert "<|start|>assistant<|channel|>analysis to=browser.search code<|message|>" in model
    # tool messages keep their recipient where the reference puts it
    assert "<|start|>python to=assistant<|channel|>analysis<|message|>60<|end|>" in model


names = st.sampled_from(["functions.get_weather", "python", "browser.search", "functions.a_b"])
channels = st.sampled_from(["analysis", "commentary", None])
types = st.sampled_from([None, "json", "<|constrain|>json", "code"])
body = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


@given(st.lists(st.tuples(names, channels, types, body), min_size=1, max_size=4))
def test_model_layout_parses_like_the_reference(reference_encoding, calls) -> None:
    msgs = [Message(Author(Role.ASSISTANT), (TextContent(b),), ch, r, ct) for r, ch, ct, b in calls]
    d = render_diff(Conversation.from_messages(msgs))
    assert d.model.count(START) == len(msgs)
    assert parsed(reference_encoding, d.model) == parsed(reference_encoding, d.reference)
