// Unit tests of the replay's pure logic. Run: npm test (pytest runs them too, with fixtures
// written by the Python side in HV_FIXTURES, so the browser's reading of a trace is checked
// against the Python trace that made it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import * as hv from "../build/replay.mjs";

function column(dtype, values, delta = false) {
  const size = { u1: 1, i1: 1, u2: 2, i2: 2, u4: 4, i4: 4 }[dtype];
  const buf = new DataView(new ArrayBuffer(values.length * size + 3));
  const setter = { u1: "setUint8", i1: "setInt8", u2: "setUint16", i2: "setInt16", u4: "setUint32", i4: "setInt32" }[dtype];
  let prev = 0;
  values.forEach((v, i) => {
    const stored = delta ? v - prev : v;
    prev = v;
    if (size === 1) buf[setter](3 + i, stored); else buf[setter](3 + i * size, stored, true);
  });
  return [buf, { name: "c", dtype, offset: 3, length: values.length, delta }];
}

test("readColumn reads every dtype, little-endian, at an unaligned offset", () => {
  const cases = { u1: [0, 7, 255], i1: [-128, 0, 127], u2: [0, 300, 65535], i2: [-32768, -1, 32767], u4: [0, 201087, 2 ** 31 - 1], i4: [-(2 ** 31), -5, 2 ** 31 - 1] };
  for (const [dtype, values] of Object.entries(cases)) {
    const [view, c] = column(dtype, values);
    assert.deepEqual(Array.from(hv.readColumn(view, c)), values, dtype);
  }
});

test("readColumn undoes delta coding", () => {
  const values = [3, 3, 10, 9, 40];
  const [view, c] = column("i1", values, true);
  assert.deepEqual(Array.from(hv.readColumn(view, c)), values);
});

test("lastAtMost is a binary search for the last element <= x", () => {
  const arr = [0, 2, 2, 5, 9];
  assert.equal(hv.lastAtMost(arr, -1), -1);
  assert.equal(hv.lastAtMost(arr, 0), 0);
  assert.equal(hv.lastAtMost(arr, 2), 2);
  assert.equal(hv.lastAtMost(arr, 4), 2);
  assert.equal(hv.lastAtMost(arr, 100), 4);
});

test("layoutRows breaks at message starts, after newlines and when a row is full", () => {
  const texts = ["a", "b\n", "c", "dddd", "eeee", "f"];
  const rows = hv.layoutRows(texts.length, (t) => texts[t], new Set([3]), 8);
  // row 0: a, b\n | row 1: c (message starts at 3) | row 2: dddd (5) | eeee would make 10 > 8 | f
  assert.deepEqual(Array.from(rows), [0, 2, 3, 4, 6]);
  assert.equal(hv.rowOf(rows, 0), 0);
  assert.equal(hv.rowOf(rows, 2), 1);
  assert.equal(hv.rowOf(rows, 5), 3);
});

test("visibleRows covers the viewport plus overscan, clamped", () => {
  assert.deepEqual(hv.visibleRows(0, 220, 22, 1000, 2), [0, 12]);
  assert.deepEqual(hv.visibleRows(2200, 220, 22, 1000, 2), [98, 112]);
  assert.deepEqual(hv.visibleRows(21990, 220, 22, 1000, 2), [997, 1000]);
});

test("chipLabel shows whitespace on request and never returns markup-interpreted text", () => {
  assert.equal(hv.chipLabel(" a\tb\n", true), "·a→b↵");
  assert.equal(hv.chipLabel(" a\n", false), " a\n");
  assert.equal(hv.chipLabel("<img src=x onerror=alert(1)>", false), "<img src=x onerror=alert(1)>");
  assert.equal(hv.chipLabel("x".repeat(100), false).length, 60);
});

test("escapeText and hexBytes", () => {
  assert.equal(hv.escapeText("a\n\"b"), '"a\\n\\"b"');
  assert.equal(hv.hexBytes(new Uint8Array([0xe6, 0x97, 0xa5])), "e6 97 a5");
});

test("stepLabel reads step k of n and the tokens fed", () => {
  assert.equal(hv.stepLabel(0, 401, 0, false), "step 0 of 400 · 0 tokens fed");
  assert.equal(hv.stepLabel(1, 401, 1, false), "step 1 of 400 · 1 token fed");
  assert.equal(hv.stepLabel(400, 401, 399, true), "step 400 of 400 · 399 tokens fed · end of stream");
});

test("searchAction and pyDumps mirror the Python projection", () => {
  assert.deepEqual(hv.searchAction("open", { id: 2 }), { type: "open_page", url: null });
  assert.deepEqual(hv.searchAction("open", { url: "https://x" }), { type: "open_page", url: "https://x" });
  assert.deepEqual(hv.searchAction("find", { pattern: ["é", 1] }), { type: "find_in_page", pattern: '["\\u00e9", 1]', url: "" });
  assert.deepEqual(hv.searchAction("search", null), { type: "search", query: "" });
  assert.equal(hv.pyDumps({ a: [1, true, null], b: "日" }), '{"a": [1, true, null], "b": "\\u65e5"}');
});

test("legend covers the six content kinds with distinct colours", () => {
  const entries = hv.legend("channel");
  assert.equal(entries.length, 6);
  assert.equal(new Set(entries.map((e) => e[1])).size, 6);
});

// ---- findings: columns, the segment index, marks, n / Shift+n ----------------------
/** A Findings over hand-made columns: rows of [step, start, len, severity, source, code]. */
function findingsOf(rows, nTokens, codes = ["a", "b", "c"]) {
  const cols = { "finding.step": [], "finding.start": [], "finding.len": [], "finding.severity": [], "finding.source": [], "finding.code": [], "finding.message": [] };
  for (const [step, start, len, sev, src, code] of rows) {
    cols["finding.step"].push(step); cols["finding.start"].push(start); cols["finding.len"].push(len);
    cols["finding.severity"].push(sev); cols["finding.source"].push(src); cols["finding.code"].push(code); cols["finding.message"].push(code);
  }
  const meta = { count: rows.length, severities: ["error", "warning", "info"], sources: ["scanner", "lint", "server", "prompt"], codes, messages: codes, error: null };
  return new hv.Findings(meta, (name) => Int32Array.from(cols[name]), nTokens);
}

test("chipSpan marks a span's tokens, or the one token at an empty span", () => {
  assert.deepEqual(hv.chipSpan(2, 5, 10), [2, 5]);
  assert.deepEqual(hv.chipSpan(4, 4, 10), [4, 5]);
  assert.deepEqual(hv.chipSpan(10, 10, 10), [9, 10]);  // at the end of the stream: its last token
  assert.deepEqual(hv.chipSpan(3, 99, 10), [3, 10]);
  assert.equal(hv.chipSpan(-1, -1, 10), null);
  assert.equal(hv.chipSpan(0, 0, 0), null);
});

test("a chip's mark is the worst severity and every code on it, of the findings shown by the step", () => {
  // a: warning on [2, 6) from step 3; b: error on [4, 5) from step 5; c: info, no tokens, step 9
  const f = findingsOf([[3, 2, 4, 1, 1, 0], [5, 4, 1, 0, 0, 1], [9, -1, 0, 2, 2, 2]], 10);
  assert.equal(f.countAt(2), 0);
  assert.equal(f.countAt(5), 2);
  assert.deepEqual(f.mark(4, f.countAt(2), hv.ALL), { severity: -1, codes: "" });
  assert.deepEqual(f.mark(4, f.countAt(3), hv.ALL), { severity: 1, codes: "a" });
  assert.deepEqual(f.mark(4, f.countAt(5), hv.ALL), { severity: 0, codes: "a b" });
  assert.deepEqual(f.mark(5, f.countAt(9), hv.ALL), { severity: 1, codes: "a" });
  assert.deepEqual(f.mark(6, f.countAt(9), hv.ALL), { severity: -1, codes: "" });
  assert.deepEqual(Array.from(f.on(4)), [0, 1]);
  // the filter: errors hidden, or the scanner's findings hidden
  assert.deepEqual(f.mark(4, f.countAt(9), { severities: 0b110, sources: 0xff }), { severity: 1, codes: "a" });
  assert.deepEqual(f.mark(4, f.countAt(9), { severities: 0xff, sources: 0b1110 }), { severity: 1, codes: "a" });
  assert.deepEqual(f.counts(5), { sources: [1, 1, 0, 0], severities: [1, 1, 0] });
  assert.deepEqual(f.row(2), { index: 2, step: 9, start: null, end: null, code: "c", severity: "info", source: "server", message: "c" });
});

test("marks come from a span lookup: thousands of findings, one segment per boundary", () => {
  const rows = [];
  for (let i = 0; i < 5000; i++) rows.push([i * 20, i * 20, 3, i % 3, i % 4, i % 3]);
  rows.push([100000, 0, 100000, 2, 1, 0]);  // one finding over the whole stream
  const f = findingsOf(rows, 100000);
  const t0 = performance.now();
  let marked = 0;
  for (let t = 50000; t < 52000; t++) if (f.mark(t, f.countAt(100000), hv.ALL).severity >= 0) marked++;
  assert.equal(marked, 2000);
  assert.equal(f.mark(50000, f.countAt(100000), hv.ALL).codes, `${["a", "b", "c"][2500 % 3]} a`);
  assert.ok(performance.now() - t0 < 200);
});

test("n / Shift+n go to the next / previous finding after the step, wrapping, through the filter", () => {
  const f = findingsOf([[3, 0, 1, 1, 1, 0], [5, 1, 1, 0, 0, 1], [5, 2, 1, 2, 0, 2], [8, 3, 1, 0, 1, 0]], 10);
  assert.equal(f.next(0, 1, hv.ALL), 0);
  assert.equal(f.next(3, 1, hv.ALL), 1);  // after step 3: the first found at step 5
  assert.equal(f.next(5, 1, hv.ALL, 1), 2);  // from the focused one: its neighbour at the same step
  assert.equal(f.next(9, 1, hv.ALL), 0);  // wraps
  assert.equal(f.next(9, -1, hv.ALL), 3);  // the last at or before the step
  assert.equal(f.next(3, -1, hv.ALL, 0), 3);  // wraps back
  assert.equal(f.next(0, 1, { severities: 0b001, sources: 0xff }), 1);  // errors only
  assert.equal(f.next(0, 1, { severities: 0, sources: 0xff }), -1);
});

// ---- checks against traces written by the Python side ----------------------------
const dir = process.env.HV_FIXTURES;
const fixtures = dir && existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".meta.json")) : [];

for (const file of fixtures) {
  const name = file.replace(/\.meta\.json$/, "");
  test(`trace ${name}: the browser reads back what Python recorded`, () => {
    const meta = JSON.parse(readFileSync(join(dir, file), "utf-8"));
    const raw = readFileSync(join(dir, `${name}.bin`));
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const want = JSON.parse(readFileSync(join(dir, `${name}.expected.json`), "utf-8"));
    const d = new hv.TraceData(meta, view);
    assert.deepEqual(Array.from(d.ids), want.ids);
    assert.equal(d.nSteps, want.steps.length);
    for (let t = 0; t < d.nTokens; t++) assert.equal(d.tokenText(t), want.token_text[t], `token ${t}`);
    want.steps.forEach((ws, s) => {
      assert.equal(d.fedAt(s).full, ws.fed_full, `step ${s} fed`);
      const got = d.eventsBetween(s, s, 1e9).events.map((e) => [e.type, e.message, e.start, e.end, e.type === "ContentDelta" ? e.text : null]);
      assert.deepEqual(got, ws.events, `step ${s} events`);
      for (const [field, value] of Object.entries(ws.snapshot)) assert.deepEqual(d.snapshotField(field, s), value, `step ${s} ${field}`);
      ws.content.forEach((text, mi) => assert.equal(d.contentAt(mi, s, 1e9).text, text, `step ${s} message ${mi}`));
      assert.equal(d.diagnosticCount(s), ws.snapshot.diagnostics, `step ${s} diagnostics so far`);
    });
    for (const [t, m] of want.message_of_token) assert.equal(d.messageOfToken(t)?.index ?? -1, m, `token ${t} message`);
    for (const [t, s] of want.step_of_token) assert.equal(d.stepOfToken(t), s, `token ${t} step`);
    // the findings as Python placed them, and what marks each chip at the last step
    const f = d.findings;
    assert.deepEqual(Array.from({ length: f.n }, (_, i) => f.row(i)).map((r) => [r.step, r.start, r.end, r.code, r.severity, r.source, r.message]), want.findings);
    const last = f.countAt(d.nSteps - 1);
    const marks = [];
    for (let t = 0; t < d.nTokens; t++) {
      const m = f.mark(t, last, hv.ALL);
      if (m.severity >= 0) marks.push([t, f.meta.severities[m.severity], m.codes]);
    }
    assert.deepEqual(marks, want.chip_marks);
    // the token card: every special token's sentence comes from Python's table, and it names the findings on its chip
    for (const [t, sentence] of want.sentences) assert.equal(hv.tokenCard(d, t, d.nSteps - 1).special?.sentence, sentence, `token ${t} sentence`);
    for (const [t, , codes] of want.chip_marks) assert.deepEqual([...new Set(hv.tokenCard(d, t, d.nSteps - 1).findings.map((r) => r.code))].join(" "), codes, `token ${t} card`);
  });
}

for (const file of fixtures) {
  const name = file.replace(/\.meta\.json$/, "");
  if (!existsSync(join(dir, `${name}.api.json`))) continue;
  test(`trace ${name}: the page's API view is Python's at every step`, () => {
    const meta = JSON.parse(readFileSync(join(dir, file), "utf-8"));
    const raw = readFileSync(join(dir, `${name}.bin`));
    const d = new hv.TraceData(meta, new DataView(raw.buffer, raw.byteOffset, raw.byteLength));
    const want = JSON.parse(readFileSync(join(dir, `${name}.api.json`), "utf-8"));
    assert.equal(want.length, d.nSteps);
    want.forEach((w, s) => assert.deepEqual(hv.apiViewAt(d, s), w, `step ${s}`));
    // backwards too: texts kept from a later step must not leak into an earlier one
    for (let s = want.length - 1; s >= 0; s -= 3) assert.deepEqual(hv.apiViewAt(d, s), want[s], `back to step ${s}`);
  });
}
