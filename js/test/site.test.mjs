// Unit tests of the published conformance site's pure logic: rates in words and classes, links, the order of results.
// Run: npm test (pytest: tests/test_matrix_js.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as site from "../build/site.mjs";

test("a rate says passing of served and its share; nothing served is a dash, classed none", () => {
  assert.equal(site.rateText({ passing: 40, served: 52, rate: 40 / 52 }), "40/52 (77%)");
  assert.equal(site.rateText({ passing: 0, served: 0, rate: null }), "–");
  assert.deepEqual([0.95, 0.8, 0.6, 0.1].map((rate) => site.rateClass({ passing: 1, served: 1, rate })), ["good", "fair", "poor", "bad"]);
  assert.equal(site.rateClass({ passing: 0, served: 0, rate: null }), "none");
});

test("links are relative to the page's way back to the top; results follow the APIs' order", () => {
  assert.equal(site.caseHref("../", "header--no-channel"), "../case/header--no-channel.html");
  assert.equal(site.engineHref("", "vllm-0.16.0"), "engine/vllm-0.16.0.html");
  const r = (api) => ({ case: "a/b", engine: "e", version: "1", api, status: "fail", codes: ["x"], level: "must", knownKind: "bug", family: "a", reason: "", link: "", draft: "", error: "" });
  assert.deepEqual(site.byApi([r("responses"), r("odd"), r("chat")], ["chat", "responses"]).map((x) => x.api), ["chat", "responses", "odd"]);
  assert.equal(site.resultWords(r("chat")), "fail: x [bug]");
  assert.deepEqual([...site.groupBy([r("chat"), r("responses")], (x) => x.case).keys()], ["a/b"]);
});
