"""Template lens, over generated conversations: "identical" means byte-identical, and every quote is real."""

from __future__ import annotations

import pytest
from _templates import DATE, conversations, real_template
from hypothesis import assume, event, given
from hypothesis import strategies as st

from harmony_viz.findings import Sides
from harmony_viz.templates import CODES, LensError, compare

pytest.importorskip("transformers")

TEMPLATE = None


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
        assert d.theirs in theirs, (d.code, d.theirs)
        assert d.ours or d.theirs
        assert d.severity == CODES[d.code][0] and (d.where is None or isinstance(d.where, Sides))
        if d.where is not None and d.where.ours is not None:
            assert result.ours.quote(d.where.ours.start, d.where.ours.end) == d.ours or d.code in ("date-varies", "schema-text", "whitespace")
    has_string_args = any(isinstance(c["function"]["arguments"], str) and c["function"]["arguments"]
                          for m in request["messages"] for c in m.get("tool_calls", []))
    if not has_string_args:
        assert "arguments-double-encoded" not in result.codes
