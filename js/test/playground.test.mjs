// Unit tests of the playground's pure helpers. Run: npm test. pytest runs them too
// (tests/test_playground_js.py), with cases from real presets and what the Python side
// expects written to HV_PG_FIXTURES, so the browser's reading is checked against Python's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import * as pg from "../build/playground.mjs";

const msgs = () => [pg.newMessage("system"), pg.newMessage("user"), pg.newMessage("assistant")];

test("newMessage gives structured content to system and developer, text to the others", () => {
  assert.equal(pg.newMessage("system").content[0].type, "system_content");
  assert.equal(pg.newMessage("developer").content[0].type, "developer_content");
  const tool = pg.newMessage("tool");
  assert.deepEqual([tool.name, tool.channel, tool.recipient, tool.content[0].type], ["functions.my_tool", "commentary", "assistant", "text"]);
  assert.equal(pg.newMessage("assistant").channel, "final");
  assert.equal(pg.newMessage("user").channel, undefined);
});

test("moveMessage clamps and returns a new list; removeMessage drops one", () => {
  const m = msgs();
  assert.deepEqual(pg.moveMessage(m, 0, 1).map((x) => x.role), ["user", "system", "assistant"]);
  assert.deepEqual(pg.moveMessage(m, 2, 5).map((x) => x.role), ["system", "user", "assistant"]);
  assert.deepEqual(pg.moveMessage(m, 1, -9).map((x) => x.role), ["user", "system", "assistant"]);
  assert.deepEqual(m.map((x) => x.role), ["system", "user", "assistant"], "the input is left as it was");
  assert.deepEqual(pg.removeMessage(m, 1).map((x) => x.role), ["system", "assistant"]);
});

test("setHeader sets a field, and an empty value removes an optional one", () => {
  const a = pg.newMessage("assistant");
  assert.equal(pg.setHeader(a, "recipient", "functions.x").recipient, "functions.x");
  assert.equal("channel" in pg.setHeader(a, "channel", ""), false);
  assert.equal(pg.setHeader(a, "name", "").name, null);
  assert.equal(a.channel, "final", "the input is left as it was");
});

test("messageOfToken finds the message whose [start, end) holds the token", () => {
  const ms = [{ index: 0, start: 0, end: 3 }, { index: 1, start: 5, end: 8 }];
  assert.deepEqual(Array.from({ length: 9 }, (_, t) => pg.messageOfToken(ms, t)), [0, 0, 0, -1, -1, 1, 1, 1, -1]);
  assert.equal(pg.messageOfToken([], 0), -1);
});

test("diagnosticMarks keeps the worst severity per token and marks an empty span's token", () => {
  const diags = [{ severity: "info", start: 0, end: 3 }, { severity: "error", start: 1, end: 2 }, { severity: "warning", start: 4, end: 4 }];
  assert.deepEqual(Array.from(pg.diagnosticMarks(6, diags)), [1, 3, 1, 0, 2, 0]);
  assert.deepEqual(Array.from(pg.diagnosticMarks(2, [{ severity: "warning", start: 9, end: 9 }])), [0, 2]);
});

test("parseIds reads JSON lists and spaced or comma-separated ids, and names the bad one", () => {
  assert.deepEqual(pg.parseIds(" [200006, 1428] "), [200006, 1428]);
  assert.deepEqual(pg.parseIds("200006 1428,200008"), [200006, 1428, 200008]);
  assert.deepEqual(pg.parseIds(""), []);
  assert.throws(() => pg.parseIds("[1, 2.5]"), /token 1 is 2.5, not an integer id/);
  assert.throws(() => pg.parseIds("[1,"), /not a JSON list of ids/);
  assert.throws(() => pg.parseIds("12 abc"), /token 1 is "abc", not an integer id/);
});

test("diffStates marks each side's tokens with their opcode", () => {
  const ops = [{ tag: "equal", ref: [0, 2], model: [0, 2] }, { tag: "replace", ref: [2, 3], model: [2, 4] }, { tag: "delete", ref: [3, 4], model: [4, 4] }];
  assert.deepEqual(pg.diffStates(ops, 4, 4), { ref: ["equal", "equal", "replace", "delete"], model: ["equal", "equal", "replace", "replace"] });
});

test("diffRuns folds long unchanged runs and keeps context around changes", () => {
  const states = [...Array(10).fill("equal"), "insert", ...Array(10).fill("equal")];
  assert.deepEqual(pg.diffRuns(states, 2), [
    { start: 0, end: 8, folded: true }, { start: 8, end: 13, folded: false }, { start: 13, end: 21, folded: true }]);
  assert.deepEqual(pg.diffRuns(["equal", "equal"], 2), [{ start: 0, end: 2, folded: false }]);
});

test("codeMarks lists the difference codes covering each token on one side", () => {
  const diffs = [{ code: "A", ours_span: [0, 2], template_span: null }, { code: "B", ours_span: [1, 9], template_span: [0, 1] }];
  assert.deepEqual(pg.codeMarks(diffs, 3, "ours"), [["A"], ["A", "B"], ["B"]]);
  assert.deepEqual(pg.codeMarks(diffs, 2, "template"), [["B"], []]);
});

// ---- checks against presets written by the Python side -------------------------------
const dir = process.env.HV_PG_FIXTURES;
const file = dir ? join(dir, "cases.json") : "";
if (dir && existsSync(file)) {
  const { cases, expected } = JSON.parse(readFileSync(file, "utf-8"));

  test("presets: the message of each token and the diagnostic marks agree with Python", () => {
    cases.streams.forEach((c, k) => {
      const owner = Array.from({ length: c.n }, (_, t) => { const i = pg.messageOfToken(c.messages, t); return i < 0 ? -1 : c.messages[i].index; });
      assert.deepEqual(owner, expected.message_of[k], `stream ${k} owners`);
      assert.deepEqual(Array.from(pg.diagnosticMarks(c.n, c.diagnostics)), expected.marks[k], `stream ${k} marks`);
    });
  });

  test("presets: ids typed by hand read as Python reads them, bad ones with Python's sentence", () => {
    cases.ids.forEach((s, k) => {
      const want = expected.ids[k];
      if (typeof want === "string") assert.throws(() => pg.parseIds(s), { message: want });
      else assert.deepEqual(pg.parseIds(s), want);
    });
  });

  test("presets: the render diff's states and folds", () => {
    const d = cases.diff;
    const st = pg.diffStates(d.ops, d.reference.length, d.model.length);
    assert.deepEqual(st, expected.diff);
    for (const states of [st.ref, st.model]) {
      const runs = pg.diffRuns(states, 12);
      assert.equal(runs[0].start, 0);
      assert.equal(runs[runs.length - 1].end, states.length);
      runs.slice(1).forEach((r, i) => assert.equal(runs[i].end, r.start, "runs tile the side"));
      const changed = states.flatMap((s, i) => (s === "equal" ? [] : [i]));
      for (const r of runs.filter((x) => x.folded)) {  // only unchanged tokens fold, never those within 12 of a change
        for (let i = r.start; i < r.end; i++) {
          assert.equal(states[i], "equal");
          assert.ok(Math.min(...changed.map((c) => Math.abs(i - c))) > 12, `token ${i} folded near a change`);
        }
      }
      const folded = runs.filter((x) => x.folded).reduce((n, r) => n + r.end - r.start, 0);
      assert.ok(folded > states.length / 2, "most of the stream folds away");
    }
  });

  test("presets: editing the message list", () => {
    assert.deepEqual(pg.moveMessage(cases.msgs, 0, 2).map((m) => m.role), expected.moved);
    assert.deepEqual(pg.setHeader(cases.msgs[1], "recipient", "functions.x"), expected.header);
    assert.equal("channel" in pg.setHeader({ ...cases.msgs[1], channel: "final" }, "channel", ""), false);
  });
}
