// Unit tests of the conformance matrix's pure logic: its columns, the marks of what changed across an
// engine's versions, and its filters. Run: npm test (pytest runs them too: tests/test_matrix_js.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as mx from "../build/matrix.mjs";

const CLASSES = [["pass", "✓", "pass"], ["fail-error", "✗", "fail (error)"], ["fail-warning", "!", "fail (warning)"], ["known", "≈", "known"],
  ["fixed", "★", "fixed"], ["not-served", "–", "not served"], ["error", "⚠", "error"]].map(([cls, symbol, label]) => ({ cls, symbol, label, what: label }));
const APIS = ["chat", "chat-stream", "responses", "responses-stream", "prompt"];

function result(c, engine, version, api, status, codes = [], severity = "") {
  return { case: c, engine, version, api, status, codes, severity: severity || (codes.length ? "error" : ""), href: "", details: [] };
}

function data(results, { versions, engines, cases } = {}) {
  engines ??= [...new Set(results.map((r) => r.engine))];
  versions ??= Object.fromEntries(engines.map((e) => [e, [...new Set(results.filter((r) => r.engine === e).map((r) => r.version))]]));
  cases ??= [...new Set(results.map((r) => r.case))].map((id) => ({ id, family: id.split("/")[0], kind: "answer", description: "" }));
  return { title: "t", reports: 1, engineLines: [], notes: [], live: false, classes: CLASSES, engines, versions, versionTitles: {}, apis: APIS,
    cases, results, twice: 0 };
}

const marks = (m) => m.cells.filter((c) => c.change).map((c) => [c.case, c.version, c.api, c.change, c.was]);

test("a failure's class is its worst severity; pass and fixed pass, fail and known fail", () => {
  assert.deepEqual([mx.cellClass("fail", "error"), mx.cellClass("fail", "warning"), mx.cellClass("fail", ""), mx.cellClass("known", "error")],
    ["fail-error", "fail-warning", "fail-warning", "known"]);
  assert.deepEqual(["pass", "fixed", "fail", "known", "not-served", "error"].map(mx.bucket), ["pass", "pass", "fail", "fail", "not-served", "error"]);
});

test("columns: engines in their order, each one's versions in theirs, a version's APIs in the preferred order, others after", () => {
  const m = mx.buildModel(data([
    result("a/1", "sglang", "0.5.9", "odd"), result("a/1", "sglang", "0.5.9", "chat-stream"), result("a/1", "sglang", "0.5.9", "chat", "not-served"),
    result("a/1", "vllm", "0.16.0", "responses"), result("a/1", "sglang", "0.5.10", "chat"),
  ], { engines: ["vllm", "sglang"], versions: { vllm: ["0.16.0"], sglang: ["0.5.9", "0.5.10"] } }));
  assert.deepEqual(m.columns.map((c) => [c.index, c.engine, c.version, c.api, c.served]), [
    [0, "vllm", "0.16.0", "responses", true], [1, "sglang", "0.5.9", "chat", false], [2, "sglang", "0.5.9", "chat-stream", true],
    [3, "sglang", "0.5.9", "odd", true], [4, "sglang", "0.5.10", "chat", true]]);
  assert.ok(m.multiVersion);
  assert.deepEqual(m.cells.map((c) => c.col), [3, 2, 1, 0, 4]);
});

test("merge marks: walking an engine's versions, fixed (fail -> pass), broke (pass -> fail), changed (other codes, or served -> not)", () => {
  const versions = { e: ["1", "2", "3"] };
  const m = mx.buildModel(data([
    result("x/fixed", "e", "1", "chat", "fail", ["text-dropped"]), result("x/fixed", "e", "2", "chat", "pass"), result("x/fixed", "e", "3", "chat", "pass"),
    result("x/broke", "e", "1", "chat", "pass"), result("x/broke", "e", "3", "chat", "fail", ["tool-call-extra"]),  // 2 has none: 3 is compared with 1
    result("x/codes", "e", "1", "chat", "fail", ["a"]), result("x/codes", "e", "2", "chat", "fail", ["a", "b"]),
    result("x/gone", "e", "2", "chat", "pass"), result("x/gone", "e", "3", "chat", "not-served"),
    result("x/same", "e", "1", "chat", "fail", ["a"]), result("x/same", "e", "2", "chat", "known", ["a"]),  // known fails as fail does: no mark
    result("x/fixedk", "e", "1", "chat", "known", ["a"]), result("x/fixedk", "e", "2", "chat", "fixed"),
    result("x/api", "e", "1", "chat", "pass"), result("x/api", "e", "2", "responses", "fail", ["a"]),  // another API: not the same cell
  ], { versions }));
  assert.deepEqual(marks(m), [
    ["x/fixed", "2", "chat", "fixed", "1: fail (error) (text-dropped)"], ["x/broke", "3", "chat", "broke", "1: pass"],
    ["x/codes", "2", "chat", "changed", "1: fail (error) (a)"], ["x/gone", "3", "chat", "changed", "2: pass"],
    ["x/fixedk", "2", "chat", "fixed", "1: known (a)"]]);
  assert.deepEqual(m.changes, { fixed: 2, broke: 1, changed: 2 });
  assert.deepEqual(m.rows.filter((r) => r.changes).map((r) => r.id), ["x/fixed", "x/broke", "x/codes", "x/gone", "x/fixedk"]);
  assert.match(mx.summaryText(m), /; across versions: 2 fixed, 1 broke, 2 changed\.$/);
  const fixed = m.cells.find((c) => c.case === "x/fixed" && c.version === "2");
  assert.equal(mx.tooltip(fixed, { pass: "pass" }).split("\n")[2], "fixed in 2; was 1: fail (error) (text-dropped)");
});

test("merge marks: two engines, or two versions of one engine's other API, are never compared", () => {
  const m = mx.buildModel(data([result("x/a", "one", "1", "chat", "pass"), result("x/a", "two", "1", "chat", "fail", ["a"])]));
  assert.deepEqual(marks(m), []);
  assert.equal(m.multiVersion, false);
  assert.doesNotMatch(mx.summaryText(m), /across versions/);
});

test("rows are grouped by family, each family's cases in the order first seen; counts by class", () => {
  const m = mx.buildModel(data([
    result("b/1", "e", "1", "chat", "pass"), result("a/1", "e", "1", "chat", "fail", ["x"], "warning"), result("b/2", "e", "1", "chat", "error"),
  ]));
  assert.deepEqual(m.families, ["b", "a"]);
  assert.deepEqual(m.rows.map((r) => r.id), ["b/1", "b/2", "a/1"]);
  assert.deepEqual(m.counts, { pass: 1, "fail-error": 0, "fail-warning": 1, known: 0, fixed: 0, "not-served": 0, error: 1 });
  assert.equal(mx.summaryText(m), "3 results, 3 cases × 1 columns: 1 pass, 0 fail (error), 1 fail (warning), 0 known, 0 fixed, 0 not served, 1 error.");
});

function sample() {
  // two engines; "e" serves chat only (its responses column is all not-served); "f" serves responses
  return mx.buildModel(data([
    result("h/glued", "e", "1", "chat", "fail", ["c"]), result("h/glued", "e", "1", "responses", "not-served"),
    result("h/space", "e", "1", "chat", "pass"), result("h/space", "e", "1", "responses", "not-served"),
    result("c/final", "e", "1", "chat", "pass"), result("c/final", "e", "1", "responses", "not-served"),
    result("p/two", "f", "1", "responses", "not-served"), result("p/only", "f", "1", "prompt", "fixed"),
  ]));
}
const rowsOf = (m, shown) => m.rows.filter((_, k) => shown.rows[k]).map((r) => r.id);
const colsOf = (m, shown) => m.columns.filter((_, i) => shown.columns[i]).map((c) => `${c.engine}:${c.api}`);

test("filters: all on hides the columns nothing is served in, and the rows left with no cell shown", () => {
  const m = sample();
  const f = mx.allOn(m);
  let shown = mx.applyFilters(m, f);
  assert.deepEqual(colsOf(m, shown), ["e:chat", "f:prompt"]);
  assert.deepEqual(rowsOf(m, shown), ["h/glued", "h/space", "c/final", "p/only"]);
  assert.equal(shown.count, 4);
  assert.deepEqual(shown.totals, [[2, 3], [0, 0], [0, 0], [1, 1]]);  // passing / served per column, in the rows shown
  shown = mx.applyFilters(m, { ...f, hideUnserved: false });
  assert.deepEqual(colsOf(m, shown), ["e:chat", "e:responses", "f:responses", "f:prompt"]);
  assert.deepEqual(rowsOf(m, shown), ["h/glued", "h/space", "c/final", "p/two", "p/only"]);
});

test("filters: family, case text, status, engine and API", () => {
  const m = sample();
  const f = mx.allOn(m);
  assert.deepEqual(rowsOf(m, mx.applyFilters(m, { ...f, families: new Set(["c", "p"]) })), ["c/final", "p/only"]);
  assert.deepEqual(rowsOf(m, mx.applyFilters(m, { ...f, text: "  GLU " })), ["h/glued"]);
  const fails = mx.applyFilters(m, { ...f, classes: new Set(["fail-error"]) });
  assert.deepEqual(rowsOf(m, fails), ["h/glued"]);
  assert.deepEqual(m.cells.filter((c) => fails.match.get(c)).map((c) => c.case), ["h/glued"]);  // the other cells are dimmed
  assert.deepEqual(rowsOf(m, mx.applyFilters(m, { ...f, classes: new Set() })), []);
  const noF = mx.applyFilters(m, { ...f, engines: new Set(["e"]) });
  assert.deepEqual([colsOf(m, noF), rowsOf(m, noF)], [["e:chat"], ["h/glued", "h/space", "c/final"]]);
  const noChat = mx.applyFilters(m, { ...f, apis: new Set(["responses", "prompt"]) });
  assert.deepEqual([colsOf(m, noChat), rowsOf(m, noChat)], [["f:prompt"], ["p/only"]]);
  // a column whose served rows are all filtered out goes too: only family c left, f's prompt column has nothing served in it
  const onlyC = mx.applyFilters(m, { ...f, families: new Set(["c"]) });
  assert.deepEqual([colsOf(m, onlyC), rowsOf(m, onlyC)], [["e:chat"], ["c/final"]]);
});

test("filters: only the rows that changed across versions", () => {
  const m = mx.buildModel(data([result("x/a", "e", "1", "chat", "pass"), result("x/a", "e", "2", "chat", "fail", ["k"]),
    result("x/b", "e", "1", "chat", "pass"), result("x/b", "e", "2", "chat", "pass")], { versions: { e: ["1", "2"] } }));
  const f = mx.allOn(m);
  assert.deepEqual(rowsOf(m, mx.applyFilters(m, f)), ["x/a", "x/b"]);
  assert.deepEqual(rowsOf(m, mx.applyFilters(m, { ...f, onlyChanged: true })), ["x/a"]);
  // the change must be in a column shown: with chat off there is no column, and no row changed in one
  assert.deepEqual(rowsOf(m, mx.applyFilters(m, { ...f, onlyChanged: true, hideUnserved: false, apis: new Set(["responses"]) })), []);
});
