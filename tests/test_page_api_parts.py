"""The parts a saved page builds its API view from: one per message shape, each the message's own.

``ApiViews.page_data`` works out each assistant message's open parts once a shape
(``projections.parts_key``) and reuses them for the messages that repeat it. Here every
message's parts are worked out again on their own, with ``open_parts``, and must be the
ones the page was given.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harmony_viz._replay import ApiViews
from harmony_viz.projections import Turn, open_parts, parts_key
from harmony_viz.runs import load_file
from harmony_viz.scanner import MessageStart, ToolCallEnd, is_assistants
from harmony_viz.tokens import encode
from harmony_viz.trace import Trace

_CALL = "<|start|>assistant<|channel|>commentary to={to} <|constrain|>json<|message|>{args}<|call|>"
_RESULT = "<|start|>{who} to=assistant<|channel|>commentary<|message|>{{\"ok\": true}}<|end|>"


def _turn(question: str) -> str:
    """A turn with every kind of assistant message: reasoning, a preamble, function, builtin and MCP calls, the answer."""
    return "".join([
        f"<|start|>user<|message|>{question}<|end|>",
        "<|start|>assistant<|channel|>analysis<|message|>We need the weather.<|end|>",
        "<|start|>assistant<|channel|>commentary<|message|>Checking two cities.<|end|>",
        _CALL.format(to="functions.get_weather", args='{"city": "Paris"}'), _RESULT.format(who="functions.get_weather"),
        _CALL.format(to="functions.get_time", args='{"city": "Oslo"}'), _RESULT.format(who="functions.get_time"),
        "<|start|>assistant<|channel|>analysis to=browser.search<|message|>{\"query\": \"rain\"}<|call|>",
        _RESULT.format(who="browser.search"),
        _CALL.format(to="github.list_issues", args='{"repo": "x"}'), _RESULT.format(who="github.list_issues"),
        "<|start|>assistant<|channel|>final<|message|>Sunny in Paris.<|return|>",
    ])


def _parallel(question: str, *, preamble: bool) -> str:
    """A turn of calls with no result between them: the call to get_time is the third message, the second call or the first."""
    first = ("<|start|>assistant<|channel|>commentary<|message|>Looking it up.<|end|>" if preamble
             else _CALL.format(to="functions.get_weather", args='{"city": "Paris"}'))
    return "".join([
        f"<|start|>user<|message|>{question}<|end|>",
        "<|start|>assistant<|channel|>analysis<|message|>Both at once.<|end|>",
        first,
        _CALL.format(to="functions.get_time", args='{"city": "Oslo"}'),
    ])


def _expected(trace: Trace) -> list[tuple[int, tuple[dict, dict]]]:
    """``(row, (correct, legacy))`` for every assistant message, each folded and shaped on its own."""
    row = {m.index: i for i, m in enumerate(trace.headers)}
    turn = Turn()
    out = []
    for r in trace.rare:
        e = r.event
        if type(e) is not MessageStart and type(e) is not ToolCallEnd:
            continue
        turn.add((e,))
        if type(e) is MessageStart and is_assistants(e.role, e.kind) and turn.messages and turn.messages[-1].message == e.message:
            msg, position = turn.messages[-1], len(turn.messages) - 1
            out.append((row[e.message], (open_parts(msg, position, legacy=False), open_parts(msg, position, legacy=True))))
    return out


def _check(trace: Trace) -> int:
    cols, meta = ApiViews(trace).page_data()
    expected = _expected(trace)
    for i, (correct, legacy) in expected:
        assert meta["parts"][cols["api.part.0"][i]] == correct
        assert meta["parts"][cols["api.part.1"][i]] == legacy
    return len(expected)


def test_every_message_gets_its_own_parts_in_a_stream_of_every_kind() -> None:
    # two turns of the same shapes: the second's messages repeat the first's keys, at the same positions
    trace = Trace.build(encode(_turn("Weather?") + _turn("And tomorrow?")), "token")
    assert _check(trace) == 14
    cols, meta = ApiViews(trace).page_data()
    # the function calls differ in their call ids (call_0, call_1) and the kinds in their fields: no two shapes merged
    assert len({cols["api.part.0"][i] for i, _ in _expected(trace)}) == 7


def test_a_call_keeps_its_own_id_where_another_call_came_before_it() -> None:
    # get_time is message 2 of both turns: call_1 after get_weather's call, call_0 after a preamble
    trace = Trace.build(encode(_parallel("Both?", preamble=False) + _parallel("Time?", preamble=True)), "token")
    assert _check(trace) == 6
    cols, meta = ApiViews(trace).page_data()
    ids = [meta["parts"][cols["api.part.0"][i]]["tool_call"]["id"] for i, (correct, _) in _expected(trace) if correct["tool_call"]]
    assert ids == ["call_0", "call_1", "call_0"]


def test_messages_with_one_key_have_the_same_parts() -> None:
    trace = Trace.build(encode(_turn("Weather?") + _turn("And tomorrow?")), "token")
    turn = Turn()
    by_key: dict[tuple, tuple[dict, dict]] = {}
    seen = 0
    for r in trace.rare:
        if type(r.event) in (MessageStart, ToolCallEnd):
            turn.add((r.event,))
        if type(r.event) is MessageStart and turn.messages and turn.messages[-1].message == r.event.message:
            msg, position = turn.messages[-1], len(turn.messages) - 1
            parts = (open_parts(msg, position, legacy=False), open_parts(msg, position, legacy=True))
            seen += by_key.setdefault(parts_key(msg, position), parts) == parts
    assert seen == 14


@pytest.mark.parametrize("trial", ["cities_3_cot_true_trial-1.md", "cities_15_cot_true_trial-0.md", "cities_10_cot_false_trial-2.md"])
def test_corpus_tool_calling_trials(corpus_dir: Path, trial: str) -> None:
    path = corpus_dir / "aldehir_tool_calling" / trial
    if not path.is_file():
        pytest.skip(f"{path} is not in this corpus")
    run = load_file(path)[-1]
    assert _check(Trace.build([*run.prompt_token_ids, *run.completion_token_ids], "token")) > 0
