"""Spans and records: content spans tile the body, held-back text survives, one message record for every reader."""

from __future__ import annotations

import pytest

from harmony_viz.scanner import CONTENT_KINDS, ContentDelta, Message, MessageEnd, MessageStart, Scanner, is_visible, scan, visibility

# ------------------------------------------------------------- spans on split characters (issue 16)

# Characters o200k splits over 2, 3 and 4 tokens, in a body with ordinary text around them.
SPLIT_BODIES = ["\x81\x82 a", "ࠁࠂ b", "𐀀𐀁 c", "🦜🦜 hi", "x𐀀yࠁz\x81"]


@pytest.mark.parametrize("body", SPLIT_BODIES)
@pytest.mark.parametrize("chunk", [1, 2, 3, 100])
def test_content_spans_tile_every_body_token(enc, body, chunk):
    text = f"<|start|>assistant<|channel|>final<|message|>{body}<|end|>"
    ids = enc.encode(text, allowed_special="all")
    assert any(len(enc.encode_ordinary(c)) > 1 for c in body)
    s = Scanner()
    events = [e for i in range(0, len(ids), chunk) for e in s.feed(ids[i : i + chunk])] + s.flush()
    deltas = [e for e in events if type(e) is ContentDelta]
    body_start = next(e.end for e in events if type(e) is MessageStart)
    body_end = next(e.start for e in events if type(e) is MessageEnd)
    # Spans follow each other without gaps, from the first body token to the last.
    assert deltas[0].start == body_start and deltas[-1].end == body_end
    for a, b in zip(deltas, deltas[1:]):
        assert a.end == b.start, (a, b)
    assert "".join(d.text for d in deltas) == body
    # Each delta's text is exactly what its tokens decode to.
    for d in deltas:
        assert enc.decode(ids[d.start : d.end]) == d.text


@pytest.mark.parametrize("body", SPLIT_BODIES)
def test_content_spans_tile_every_body_char(body):
    text = f"<|start|>assistant<|channel|>final<|message|>{body}<|end|>"
    s = Scanner()
    events = [e for ch in text for e in s.feed(ch)] + s.flush()
    deltas = [e for e in events if type(e) is ContentDelta]
    assert [text[d.start : d.end] for d in deltas] == [d.text for d in deltas]
    assert "".join(d.text for d in deltas) == body


@pytest.mark.parametrize("tail", ["<", "<|", "<|en", "a <"])
@pytest.mark.parametrize("stop", ["<|end|>", "<|return|>", ""])
def test_held_back_text_is_released_at_a_stop_and_at_the_end(enc, tail, stop):
    text = f"<|start|>assistant<|channel|>final<|message|>x{tail}{stop}"
    by_text = scan(text)
    by_ids = scan(enc.encode(text, allowed_special="all"))
    by_chars = Scanner()
    chars_events = [e for ch in text for e in by_chars.feed(ch)] + by_chars.flush()
    for result_text in (by_text.messages[0].text, by_ids.messages[0].text, "".join(e.text for e in chars_events if type(e) is ContentDelta)):
        assert result_text == "x" + tail


def test_doubled_header_keeps_the_first_valid_channel():
    result = scan("<|start|>assistant<|channel|>commentary<|channel|>final<|message|>Hi<|return|>")
    (m,) = result.messages
    assert (m.channel, m.kind) == ("commentary", "final")  # the parse keeps the first; the last decides visibility
    result = scan("<|start|>assistant<|channel|>final<|channel|>commentary<|message|>Hi<|return|>")
    assert (result.messages[0].channel, result.messages[0].kind) == ("final", "preamble")


def test_one_message_record_for_every_reader(enc, tmp_path):
    """scan(), the trace, the lints, the run statistics and the template lens all read the scanner's Message (issues 16, 22)."""
    from harmony_viz._lint import build_views
    from harmony_viz.runs import Run, run_usage
    from harmony_viz.scanner import Message
    from harmony_viz.trace import Trace

    text = ("<|start|>user<|message|>Hi 🦜<|end|><|start|>assistant<|channel|>analysis<|message|>Think.<|end|>"
            '<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a":1}<|call|>')
    ids = enc.encode(text, allowed_special="all")
    scanned = scan(ids).messages
    traced = Trace.build(ids, "every:3").messages
    viewed = build_views(scan(ids), unit="tokens")
    sized = run_usage(Run(id="x", text=text)).messages
    from harmony_viz.templates import read_side

    side = read_side(ids).messages
    assert [(r.is_call, r.is_preamble, r.is_tool_result) for r in side] == [(m.kind == "tool_call", m.kind == "preamble", False) for m in scanned]
    for records in (scanned, traced, viewed, sized, [r.message for r in side]):
        assert all(isinstance(m, Message) for m in records)
        assert [(m.role, m.channel, m.kind, m.text, m.start, m.header_end, m.end, m.body) for m in records] == \
               [(m.role, m.channel, m.kind, m.text, m.start, m.header_end, m.end, m.body) for m in scanned]
    call = scanned[-1]
    assert (call.visibility, call.tool_name, call.arguments, call.parsed) == ("call", "f", '{"a":1}', {"a": 1})
    # The projections' turn holds the same records (the turn after the user: analysis, then the call).
    from harmony_viz.projections import Projector

    projector = Projector()
    projector.add(scan(ids).events)
    turn = projector.turn.messages
    assert all(isinstance(t.record, Message) for t in turn)
    assert [(t.record.index, t.record.kind, t.is_reasoning, t.arguments) for t in turn] == [(1, "reasoning", True, None), (2, "tool_call", False, '{"a":1}')]
    assert [m.visibility for m in scanned] == ["other", "reasoning", "call"]
    assert [m.step_started for m in traced][0] == 1 and traced[-1].step_ended == len(Trace.build(ids, "every:3").steps) - 2
    # Spans map back to the text: the body pieces decode to the message text.
    assert all(enc.decode(ids[m.body[0]:m.body[1]]) == m.text for m in scanned)


@pytest.mark.parametrize("kind", [*CONTENT_KINDS, "no such kind"])
@pytest.mark.parametrize("role", ["assistant", "user", "functions.f"])
def test_a_records_visibility_is_the_one_rules(kind: str, role: str) -> None:
    # Message reads the rule's table itself (thousands of times a page): it must say what visibility(kind) says
    m = Message(index=0, role=role, name=None, recipient=None, channel=None, content_type=None, text="", kind=kind, terminator=None, start=0, end=None)
    assert m.visibility == visibility(kind)
    assert m.is_visible == (role == "assistant" and visibility(kind) == "visible") == (role == "assistant" and is_visible(kind))
