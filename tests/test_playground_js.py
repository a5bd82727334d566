"""The playground's pure TypeScript helpers under node's test runner agree with the Python side on real presets.

Python writes the cases (real preset streams, diagnostics, a render diff, typed ids) and what it
expects of each; js/test/playground.test.mjs reads them from HV_PG_FIXTURES and checks the
helpers against them, beside its own unit tests.
"""

from __future__ import annotations

import json
from pathlib import Path

from _js import node, run_node_tests

from harmony_viz import playground
from harmony_viz._playground import parse_ids_text

UNIT_TESTS = 9  # the fixed-input tests in playground.test.mjs
FIXTURE_TESTS = 4  # the tests that read HV_PG_FIXTURES


def _marks(n: int, diagnostics: list[dict]) -> list[int]:
    rank = {"info": 1, "warning": 2, "error": 3}
    marks = [0] * n
    for d in diagnostics:
        a = max(0, min(n - 1, d["start"]))
        for t in range(a, min(n, max(d["end"], a + 1))):
            marks[t] = max(marks[t], rank[d["severity"]])
    return marks


def _states(ops: list[dict], n_ref: int, n_model: int) -> dict:
    ref, model = ["equal"] * n_ref, ["equal"] * n_model
    for op in ops:
        for i in range(*op["ref"]):
            ref[i] = op["tag"]
        for j in range(*op["model"]):
            model[j] = op["tag"]
    return {"ref": ref, "model": model}


def test_pure_helpers_agree_with_python(tmp_path: Path) -> None:
    node()  # skip early, before the presets are built
    streams, owners, marks = [], [], []
    for name in ("tool-call", "sample-bad-channel"):
        w = playground(preset=name)
        n = len(w.tokens)
        msgs = w._stream["messages"]
        streams.append({"n": n, "messages": msgs, "diagnostics": w.diagnostics})
        owners.append([next((m["index"] for m in msgs if m["start"] <= t < m["end"]), -1) for t in range(n)])
        marks.append(_marks(n, w.diagnostics))
    assert any(3 in m or 2 in m for m in marks)  # the sample stream has findings to mark
    w = playground(preset="tool-call")
    w.show_diff = True
    ids_inputs = ["[200006, 1428]", "200006 1428, 200008", "", "[1, 2.5]", "12 abc"]
    expected_ids = [parse_ids_text(s) for s in ids_inputs[:2]] + [[], "token 1 is 2.5, not an integer id",
                                                                   'token 1 is "abc", not an integer id']
    roles = [m["role"] for m in w.messages]
    expected = {
        "message_of": owners,
        "marks": marks,
        "ids": expected_ids,
        "diff": _states(w._diff["ops"], len(w._diff["reference"]), len(w._diff["model"])),
        "moved": [roles[1], roles[2], roles[0], *roles[3:]],
        "header": {**w.messages[1], "recipient": "functions.x"},
    }
    cases = {"streams": streams, "ids": ids_inputs, "diff": w._diff, "msgs": w.messages}
    (tmp_path / "cases.json").write_text(json.dumps({"cases": cases, "expected": expected}), encoding="utf-8")
    out = run_node_tests("test/playground.test.mjs", {"HV_PG_FIXTURES": str(tmp_path)})
    # the preset checks really ran, next to the unit tests
    assert f"# pass {UNIT_TESTS + FIXTURE_TESTS}" in out, out[-2000:]
