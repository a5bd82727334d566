// Unit tests of the conformance matrix's levels and triage (issue 34): the level filter, the pass rate per engine,
// version and level, the failures counted by their known kind. Run: npm test (pytest: tests/test_matrix_js.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as mx from "../build/matrix.mjs";

const CLASSES = [["pass", "✓", "pass"], ["fail-error", "✗", "fail (error)"], ["known", "≈", "known"], ["fixed", "★", "fixed"],
  ["not-served", "–", "not served"]].map(([cls, symbol, label]) => ({ cls, symbol, label, what: label }));

function result(c, engine, version, api, status, codes = []) {
  return { case: c, engine, version, api, status, codes, severity: codes.length ? "error" : "", href: "", details: [] };
}

function data(results, { cases } = {}) {
  const engines = [...new Set(results.map((r) => r.engine))];
  const versions = Object.fromEntries(engines.map((e) => [e, [...new Set(results.filter((r) => r.engine === e).map((r) => r.version))]]));
  cases ??= [...new Set(results.map((r) => r.case))].map((id) => ({ id, family: id.split("/")[0], kind: "answer", description: "" }));
  return { title: "t", reports: 1, engineLines: [], notes: [], live: false, classes: CLASSES, engines, versions, versionTitles: {},
    apis: ["chat", "responses"], cases, results, twice: 0 };
}

test("levels: the filter shows only the rows at the levels checked; the rate per engine, version and level counts passing of served", () => {
  const r = (c, v, api, status, level, codes = []) => ({ ...result(c, "e", v, api, status, codes), level });
  const cases = [["m/1", "must"], ["m/2", "must"], ["s/1", "should"], ["y/1", "may"]].map(([id, level]) => ({ id, family: id[0], kind: "answer", description: "", level }));
  const m = mx.buildModel({ ...data([
    r("m/1", "1", "chat", "pass", "must"), r("m/2", "1", "chat", "fail", "must", ["a"]), r("m/2", "1", "responses", "not-served", "must"),
    r("s/1", "1", "chat", "known", "should", ["b"]), r("y/1", "1", "chat", "fixed", "may"),
  ], { cases }), levels: ["must", "should", "may"] });
  assert.deepEqual(mx.levelsOf(m), ["must", "should", "may"]);
  const f = mx.allOn(m);
  assert.equal(mx.applyFilters(m, f).count, 4);
  f.levels = new Set(["must"]);
  assert.deepEqual(mx.applyFilters(m, f).rows, [true, true, false, false]);
  f.levels = new Set(["should", "may"]);
  assert.deepEqual(mx.applyFilters(m, f).rows, [false, false, true, true]);
  assert.deepEqual(mx.levelRates(m).map((x) => [x.level, x.passing, x.served]), [["must", 1, 2], ["should", 0, 1], ["may", 1, 1]]);
  assert.equal(mx.rateText(1, 2), "1/2 (50%)");
});

test("triage: failing cells count by their known kind, in the summary line before the version changes", () => {
  const kinds = [{ kind: "bug", label: "bug", what: "" }, { kind: "intentional", label: "intentional", what: "" }, { kind: "research-needed", label: "research needed", what: "" }];
  const k = (c, kind) => ({ ...result(c, "e", "1", "chat", "fail", ["a"]), knownKind: kind });
  const m = mx.buildModel({ ...data([k("a/1", "bug"), k("a/2", "bug"), k("a/3", "research-needed"), result("a/4", "e", "1", "chat", "pass")]), knownKinds: kinds });
  assert.deepEqual(mx.knownKindCounts(m).map(([kind, , n]) => [kind, n]), [["bug", 2], ["intentional", 0], ["research-needed", 1]]);
  assert.match(mx.summaryText(m), /; triaged failures: 2 bug, 1 research needed\.$/);
  assert.ok(mx.tooltip(m.cells[0], {}).split("\n").includes("triage: bug"));
});
