// Unit tests of what the chips carry beyond the trace (chips.ts): fates and log-probs, and the card's lines on them.
// pytest (tests/test_token_fates_js.py) runs them too, with payloads of shipped captures written by the Python side
// in HV_CHIP_FIXTURES, so the browser's reading is checked against the server lens's own fates and the log-probs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import * as hv from "../build/replay.mjs";

test("halfToFloat reads IEEE halves: normal, subnormal, zero, infinities, NaN", () => {
  assert.equal(hv.halfToFloat(0x3c00), 1);
  assert.equal(hv.halfToFloat(0xc000), -2);
  assert.equal(hv.halfToFloat(0x3555), 0.333251953125);
  assert.equal(hv.halfToFloat(0x0001), 2 ** -24);
  assert.equal(hv.halfToFloat(0x0000), 0);
  assert.equal(hv.halfToFloat(0x7c00), Infinity);
  assert.equal(hv.halfToFloat(0xfc00), -Infinity);
  assert.ok(Number.isNaN(hv.halfToFloat(0x7e00)));
  assert.equal(hv.halfToFloat(0xca0e), -12.109375);
});

test("readFloats reads f2 and f4 columns little-endian at any offset", () => {
  const view = new DataView(new ArrayBuffer(16));
  view.setUint16(2, 0x3c00, true); view.setUint16(4, 0xc000, true);
  view.setFloat32(8, -11.5, true);
  assert.deepEqual(Array.from(hv.readFloats(view, { name: "h", dtype: "f2", offset: 2, length: 2, delta: false })), [1, -2]);
  assert.deepEqual(Array.from(hv.readFloats(view, { name: "s", dtype: "f4", offset: 8, length: 1, delta: false })), [-11.5]);
  assert.throws(() => hv.readFloats(view, { name: "i", dtype: "u1", offset: 0, length: 1, delta: false }), /not a float column/);
});

const CODES = ["", "control", "content", "reasoning", "call-name", "call-arguments", "dropped"];

test("Fates expand each check's runs: fate | expected << 3 | mismatch << 6, 0 for none", () => {
  // check 0: 2 prompt tokens, 1 control, 3 reasoning shown as content (mismatch), 1 control; check 1 has no fates
  const runs = { "fate.0.len": [2, 1, 3, 1], "fate.0.value": [0, 1 | 1 << 3, 2 | 3 << 3 | 64, 1 | 1 << 3] };
  const f = new hv.Fates({ codes: CODES, checks: [true, false] }, (n) => Int32Array.from(runs[n]), 7);
  assert.equal(f.nChecks, 2);
  assert.equal(f.at(0, 0), null);
  assert.deepEqual(f.at(0, 2), { fate: "control", expected: "control", mismatch: false });
  assert.deepEqual(f.at(0, 4), { fate: "content", expected: "reasoning", mismatch: true });
  assert.equal(f.at(1, 4), null);
  assert.equal(f.pick(1), 0);  // the check shown has none: the first that has
  assert.equal(new hv.Fates(null, () => new Int32Array(0), 3).pick(0), -1);
});

test("surpriseBin and formatP", () => {
  assert.deepEqual([-0.1, -0.5, -0.9, -1.5, -3, -6, -12].map(hv.surpriseBin), [0, 1, 1, 2, 3, 4, 5]);
  assert.equal(hv.SURPRISE_NAMES.length, hv.SURPRISE_COLOURS.length);
  assert.equal(hv.formatP(0.5), "0.5");
  assert.equal(hv.formatP(0.05), "0.05");
  assert.equal(hv.formatP(1), "1");
  assert.equal(hv.formatP(0.123456), "0.123");
  assert.equal(hv.formatP(5.5e-6), "5.5e-6");
});

// ---- payloads of shipped captures, written by the Python side --------------------------
const dir = process.env.HV_CHIP_FIXTURES;
const fixtures = dir && existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".meta.json")) : [];

function load(name) {
  const meta = JSON.parse(readFileSync(join(dir, `${name}.meta.json`), "utf-8"));
  const raw = readFileSync(join(dir, `${name}.bin`));
  const want = JSON.parse(readFileSync(join(dir, `${name}.expected.json`), "utf-8"));
  return { d: new hv.TraceData(meta, new DataView(raw.buffer, raw.byteOffset, raw.byteLength)), want };
}

for (const file of fixtures) {
  const name = file.replace(/\.meta\.json$/, "");
  test(`capture ${name}: every token's fate per check, its log-prob and alternatives, its card`, () => {
    const { d, want } = load(name);
    assert.equal(d.fates.nChecks, want.fates.length);
    want.fates.forEach((rows, i) => {
      for (let t = 0; t < d.nTokens; t++) {
        const got = d.fates.at(i, t);
        assert.deepEqual(got ? [got.fate, got.expected, got.mismatch] : null, rows[t], `check ${i} token ${t}`);
      }
    });
    assert.equal(d.logprobs.present, want.logprobs !== null);
    const last = d.nSteps - 1;
    for (let t = 0; t < d.nTokens; t++) {
      const card = hv.tokenCard(d, t, last, 0);
      if (want.logprobs === null) {
        assert.equal(card.logprobNote, hv.NO_LOGPROBS);
        assert.equal(card.logprob, null);
        continue;
      }
      const [value, alts] = want.logprobs[t];
      if (value === null) assert.equal(d.logprobs.logprob(t), null, `token ${t}`);
      else assert.ok(Math.abs(d.logprobs.logprob(t) - value) <= Math.abs(value) * 1e-3 + 1e-3, `token ${t}: ${d.logprobs.logprob(t)} vs ${value}`);
      const got = d.logprobs.alternatives(t, d.ids[t]);
      assert.deepEqual(got.map((a) => a.id), alts.map((a) => a[0]), `token ${t} alternatives`);
      got.forEach((a, j) => {
        assert.ok(Math.abs(a.logprob - alts[j][1]) <= Math.abs(alts[j][1]) * 1e-3 + 1e-3);
        assert.equal(a.text, alts[j][2]);
        assert.equal(a.special, alts[j][3]);
        assert.equal(a.chosen, a.id === d.ids[t]);
      });
      assert.deepEqual(card.alternatives.map((a) => a.id), alts.map((a) => a[0]));
      assert.equal(card.logprobNote, value === null && alts.length === 0 ? hv.NO_TOKEN_LOGPROB : null);
    }
    for (const [t, fate] of want.cards) assert.deepEqual(hv.tokenCard(d, t, last, 0).fate, fate, `card ${t}`);
  });
}
