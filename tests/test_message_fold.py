"""One message fold: ``fold_messages`` (the fast one a trace folds its events with) gives
``MessageFold``'s records, field for field, on any stream: real corpus streams, the same
streams broken (tokens dropped, control tokens thrown in), arbitrary ids, and text; cut
anywhere (messages still open) and fed in any chunking."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields
from pathlib import Path

import pytest
from _replay_streams import XSS_TEXT, finding5, rft
from hypothesis import given
from hypothesis import strategies as st

from harmony_viz.scanner import Message, MessageEnd, MessageFold, MessageStart, Scanner, fold_messages, scan
from harmony_viz.trace import Trace

# <|start|> <|channel|> <|message|> <|end|> <|constrain|> <|call|> <|return|> <|endoftext|> and a few plain ids ('<', '|', …)
CONTROLS = [200006, 200005, 200008, 200007, 200003, 200012, 200002, 199999, 27, 91, 1750, 49361]


@pytest.fixture(scope="module")
def corpus_streams(corpus_dir: Path, enc) -> list[list[int]]:
    """Real transcripts as ids: red-team runs (tool calls, cut-off stops), fine-tuning outputs, the server lens's stream zoo."""
    texts = [finding5(corpus_dir, name) for name in ("helpful-1", "cyberthreat-17", "cyberthreat-24", "cyberthreat-33")]
    texts += [rft(corpus_dir, 0), rft(corpus_dir, 1)]
    zoo = sorted((Path(__file__).parents[1] / "harmony_viz" / "data" / "server_lens" / "streams").glob("*.txt"))
    texts += [XSS_TEXT, *(p.read_text(encoding="utf-8") for p in zoo)]
    return [enc.encode(text, allowed_special="all") for text in texts]


@st.composite
def token_stream(draw: st.DrawFn, corpus: list[list[int]]) -> list[int]:
    """A slice of a real stream, as it is or broken; or arbitrary ids heavy in control tokens."""
    if draw(st.booleans()):
        return draw(st.lists(st.one_of(st.sampled_from(CONTROLS), st.integers(0, 200_000)), max_size=80))
    ids = draw(st.sampled_from(corpus))
    a = draw(st.integers(0, len(ids)))
    ids = ids[a : a + draw(st.integers(0, 400))]
    for _ in range(draw(st.integers(0, 4))):  # break it: drop a token, or throw a control token in
        at = draw(st.integers(0, len(ids)))
        ids = ids[:at] + ids[at + 1 :] if draw(st.booleans()) else ids[:at] + [draw(st.sampled_from(CONTROLS))] + ids[at:]
    return ids


def _stepped(source: str | list[int], cuts: list[int], role: str | None, flush: bool) -> list[tuple[int, object]]:
    """``(step, event)`` for a scanner fed ``source`` in the pieces ``cuts`` make (flushed at the end, or cut off open)."""
    scanner = Scanner(role=role)
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(source)}), len(source)]
    out = [(k, e) for k, (a, b) in enumerate(zip(bounds, bounds[1:]), 1) for e in scanner.feed(source[a:b])]
    if flush:
        out += [(len(bounds), e) for e in scanner.flush()]
    return out


def _message_fold(stepped, unit) -> list:
    fold = MessageFold(unit)
    for step, e in stepped:
        fold.add(e, step)
    return fold.messages(include_open=True)


@given(data=st.data(), cuts=st.lists(st.integers(0, 400), max_size=12), role=st.sampled_from([None, "assistant"]), flush=st.booleans(),
       as_text=st.booleans())
def test_the_fast_fold_gives_message_folds_records(corpus_streams, enc, data, cuts, role, flush, as_text) -> None:
    ids = data.draw(token_stream(corpus_streams))
    source: str | list[int] = enc.decode(ids) if as_text else ids
    unit = "chars" if as_text else "tokens"
    stepped = _stepped(source, cuts, role, flush)
    assert fold_messages(stepped, unit) == _message_fold(stepped, unit)
    assert fold_messages([(None, e) for _, e in stepped], unit) == _message_fold([(None, e) for _, e in stepped], unit)


@given(data=st.data(), spec=st.sampled_from(["token", "every:3", "random:1", "chars:5"]), role=st.sampled_from([None, "assistant"]))
def test_a_traces_messages_are_the_folds_and_the_whole_scans(corpus_streams, data, spec, role) -> None:
    """A trace folds with ``fold_messages``: its messages and headers are MessageFold's of its events, its scanned messages ``scan()``'s."""
    ids = data.draw(token_stream(corpus_streams))
    trace = Trace.build(ids, spec, role=role)
    stepped = [(k, e) for k in range(trace.n_steps) for e in trace.step(k).events]
    assert list(trace.messages) == _message_fold(stepped, trace.unit)
    assert list(trace.headers) == _message_fold([(r.step, r.event) for r in trace.rare], trace.unit)
    if trace.unit == "tokens":
        assert trace.scanned_messages() == scan(ids, role=role).messages


def test_records_made_fast_hold_each_field_in_its_place(enc) -> None:
    """Records and the scanner's start and end events are written to a writable twin that takes their class: each field
    sits where the dataclass puts it, equal and hashed as the dataclass's own record, and frozen."""
    text = '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>'
    ids = enc.encode(text, allowed_special="all")
    scanner = Scanner()
    events = [*scanner.feed(ids), *scanner.flush()]
    start = next(e for e in events if type(e) is MessageStart)
    end = next(e for e in events if type(e) is MessageEnd)
    message = scan(ids).messages[0]
    header_end = ids.index(200008) + 1  # <|message|>
    # every field a value of its own where it can be: one written to another's slot shows
    assert [getattr(start, f.name) for f in fields(MessageStart)] == [
        0, "assistant", None, "functions.get_weather", "commentary", "json", "tool_call", 0, header_end]
    assert [getattr(end, f.name) for f in fields(MessageEnd)] == [0, "<|call|>", len(ids) - 1, len(ids)]
    assert [getattr(message, f.name) for f in fields(Message)] == [
        0, "assistant", None, "functions.get_weather", "commentary", "json", '{"city": "Paris"}', "tool_call", "<|call|>", 0, len(ids),
        header_end, len(ids) - 1, ((header_end, len(ids) - 1),), (0,), "tokens", "call_0", "get_weather", '{"city": "Paris"}',
        {"city": "Paris"}, None, None, None]
    for made in (start, end, message):
        cls = type(made)
        values = [getattr(made, f.name) for f in fields(cls)]
        assert made == cls(*values)
        if cls is not Message:  # a Message holds its parsed arguments, a dict: it has no hash
            assert hash(made) == hash(cls(*values))
        with pytest.raises(FrozenInstanceError):
            made.start = 1  # type: ignore[misc]
