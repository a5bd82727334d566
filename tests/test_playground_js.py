"""The playground's pure TypeScript helpers under node agree with the Python side on real presets."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harmony_viz.playground import playground
from harmony_viz.playground._convert import parse_ids_text

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "js"

RUNNER = """
import * as pg from "./pure.mjs";
import { readFileSync } from "node:fs";
const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = { message_of: [], marks: [], ids: [], diff: null, moved: null, header: null };
for (const c of cases.streams) {
  out.message_of.push(Array.from({ length: c.n }, (_, t) => { const i = pg.messageOfToken(c.messages, t); return i < 0 ? -1 : c.messages[i].index; }));
  out.marks.push(Array.from(pg.diagnosticMarks(c.n, c.diagnostics)));
}
for (const s of cases.ids) { try { out.ids.push(pg.parseIds(s)); } catch (e) { out.ids.push("error: " + e.message); } }
out.diff = pg.diffStates(cases.diff.ops, cases.diff.reference.length, cases.diff.model.length);
out.runs = [pg.diffRuns(out.diff.ref, 12), pg.diffRuns(out.diff.model, 12)];
out.moved = pg.moveMessage(cases.msgs, 0, 2).map((m) => m.role);
out.header = [pg.setHeader(cases.msgs[1], "recipient", "functions.x"), pg.setHeader({ ...cases.msgs[1], channel: "final" }, "channel", "")];
console.log(JSON.stringify(out));
"""


def _node() -> str:
    node = shutil.which("node")
    if node is None or not (JS / "node_modules" / ".bin" / "esbuild").exists():
        why = "node and js/node_modules are needed (cd js && npm install)"
        if os.environ.get("CI") or os.environ.get("HARMONY_VIZ_REQUIRE_BROWSER"):
            pytest.fail(why + "; CI installs them with the package")
        pytest.skip(why)
    return node


def test_pure_helpers_agree_with_python(tmp_path: Path) -> None:
    node = _node()
    subprocess.run([str(JS / "node_modules" / ".bin" / "esbuild"), str(JS / "playground" / "pure.ts"), "--bundle", "--format=esm",
                    "--platform=node", f"--outfile={tmp_path / 'pure.mjs'}"], check=True, capture_output=True)
    streams, expected_owner, expected_marks = [], [], []
    for name in ("tool-call", "sample-bad-channel"):
        w = playground(preset=name)
        n = len(w.tokens)
        msgs = w._stream["messages"]
        streams.append({"n": n, "messages": msgs, "diagnostics": w.diagnostics})
        expected_owner.append([next((m["index"] for m in msgs if m["start"] <= t < m["end"]), -1) for t in range(n)])
        rank = {"info": 1, "warning": 2, "error": 3}
        marks = [0] * n
        for d in w.diagnostics:
            a = max(0, min(n - 1, d["start"]))
            for t in range(a, min(n, max(d["end"], a + 1))):
                marks[t] = max(marks[t], rank[d["severity"]])
        expected_marks.append(marks)
    w = playground(preset="tool-call")
    w.show_diff = True
    ids_inputs = ["[200006, 1428]", "200006 1428, 200008", "", "[1, 2.5]", "12 abc"]
    cases = {"streams": streams, "ids": ids_inputs, "diff": w._diff, "msgs": w.messages}
    (tmp_path / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    (tmp_path / "run.mjs").write_text(RUNNER, encoding="utf-8")
    got = json.loads(subprocess.run([node, str(tmp_path / "run.mjs"), str(tmp_path / "cases.json")], check=True,
                                    capture_output=True, text=True).stdout)
    assert got["message_of"] == expected_owner
    assert got["marks"] == expected_marks
    assert any(3 in m or 2 in m for m in got["marks"])  # the sample stream has findings to mark
    assert got["ids"][:3] == [parse_ids_text(s) for s in ids_inputs[:2]] + [[]]
    assert got["ids"][3] == "error: token 1 is 2.5, not an integer id"
    assert got["ids"][4] == 'error: token 1 is "abc", not an integer id'
    ref_states = ["equal"] * len(w._diff["reference"])
    model_states = ["equal"] * len(w._diff["model"])
    for op in w._diff["ops"]:
        for i in range(*op["ref"]):
            ref_states[i] = op["tag"]
        for j in range(*op["model"]):
            model_states[j] = op["tag"]
    assert got["diff"] == {"ref": ref_states, "model": model_states}
    for runs, states in zip(got["runs"], (ref_states, model_states)):
        assert runs[0]["start"] == 0 and runs[-1]["end"] == len(states)
        assert all(a["end"] == b["start"] for a, b in zip(runs, runs[1:]))
        changed = [i for i, s in enumerate(states) if s != "equal"]
        for r in runs:
            if r["folded"]:  # only unchanged tokens fold, and never those within 12 of a change
                assert all(states[i] == "equal" and min(abs(i - c) for c in changed) > 12 for i in range(r["start"], r["end"]))
        assert sum(r["end"] - r["start"] for r in runs if r["folded"]) > len(states) // 2  # most of the stream folds away
    roles = [m["role"] for m in w.messages]
    assert got["moved"] == [roles[1], roles[2], roles[0], *roles[3:]]
    assert got["header"][0] == {**w.messages[1], "recipient": "functions.x"}
    assert "channel" not in got["header"][1]
