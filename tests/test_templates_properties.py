"""Template lens, over generated conversations: "identical" means byte-identical, and every quote is real."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st

from harmony_viz.templates import CODES, LensError, compare

from tests._templates import DATE, WEATHER, real_template

pytest.importorskip("transformers")

TEMPLATE = None

# Plain text with the separators templates trip on (newlines, quotes, backslashes, non-ASCII).
text = st.text(alphabet=st.sampled_from(list("ab Z09\n\"\\{}:,é日")), min_size=1, max_size=12).filter(lambda s: s.strip())
arguments = st.one_of(
    st.dictionaries(st.sampled_from(["city", "days", "q"]), st.one_of(text, st.integers(-5, 99)), max_size=2),
    st.dictionaries(st.sampled_from(["city", "q"]), text, max_size=2).map(lambda d: json.dumps(d, ensure_ascii=False)),
)


@st.composite
def conversations(draw):
    messages = []
    if draw(st.booleans()):
        messages.append({"role": draw(st.sampled_from(["system", "developer"])), "content": draw(text)})
    n_call = 0
    for _turn in range(draw(st.integers(1, 3))):
        messages.append({"role": "user", "content": draw(text)})
        for _step in range(draw(st.integers(0, 2))):
            msg = {"role": "assistant"}
            # the template refuses content and thinking together beside tool calls
            lead = draw(st.sampled_from(["none", "content", "thinking"]))
            if lead != "none":
                msg[lead] = draw(text)
            calls = []
            for _ in range(draw(st.integers(1, 2))):
                n_call += 1
                calls.append({"id": f"c{n_call}", "type": "function",
                              "function": {"name": draw(st.sampled_from(["get_weather", "lookup"])), "arguments": draw(arguments)}})
            msg["tool_calls"] = calls
            messages.append(msg)
            for c in calls:
                result = draw(st.one_of(text, st.dictionaries(st.sampled_from(["ok", "v"]), st.integers(0, 9), max_size=2)))
                messages.append({"role": "tool", "tool_call_id": c["id"], "content": result})
        if draw(st.booleans()) or _turn == 0:
            final = {"role": "assistant", "content": draw(text)}
            if draw(st.booleans()):
                final[draw(st.sampled_from(["thinking", "reasoning_content"]))] = draw(text)
            messages.append(final)
    request = {"messages": messages}
    if draw(st.booleans()):
        request["tools"] = [WEATHER]
    if draw(st.booleans()):
        request["reasoning_effort"] = draw(st.sampled_from(["low", "medium", "high"]))
    return request


@given(conversations(), st.booleans())
def test_identical_means_byte_identical_and_quotes_are_real(request, for_completion):
    global TEMPLATE
    TEMPLATE = TEMPLATE or real_template()
    try:
        result = compare(request, TEMPLATE, date=DATE, for_completion=for_completion)
    except LensError:
        assume(False)  # a conversation one side refuses says nothing about the comparison
        return
    ours, theirs = result.ours.text, result.template.text
    event(f"identical={result.identical}")
    for code in sorted(set(result.codes)):
        event(code)
    assert result.identical == (ours.encode() == theirs.encode())
    for d in result.differences:
        assert d.code in CODES
        assert d.ours in ours, (d.code, d.ours)
        assert d.template in theirs, (d.code, d.template)
        assert d.ours or d.template
        if d.ours_span is not None:
            assert result.ours.quote(*d.ours_span) == d.ours or d.code in ("date-varies", "schema-text", "whitespace")
    has_string_args = any(isinstance(c["function"]["arguments"], str) and c["function"]["arguments"]
                          for m in request["messages"] for c in m.get("tool_calls", []))
    if not has_string_args:
        assert "arguments-double-encoded" not in result.codes
