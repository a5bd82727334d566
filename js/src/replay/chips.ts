// What each chip carries beyond the trace, decoded from the payload's columns (harmony_viz/_replay/_chips.py):
// its fate in each server answer (the server lens's alignment, done in Python) and the model's log-probs.
// Pure logic, no DOM: unit-tested under node.
import type { ColumnDescriptor, FatesMeta, LogprobsMeta } from "./types";

/** A run value's bits: fate | expected << 3 | mismatch << 6 (Python's servers._view.fate_runs). */
const MISMATCH = 0x40;

export interface TokenFate { fate: string; expected: string; mismatch: boolean }

/** IEEE 754 half-precision bits as a number. */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** A float column (f2: halves, f4: singles, little-endian) as a Float32Array. */
export function readFloats(view: DataView, c: ColumnDescriptor): Float32Array {
  const out = new Float32Array(c.length);
  if (c.dtype === "f2") for (let i = 0; i < c.length; i++) out[i] = halfToFloat(view.getUint16(c.offset + 2 * i, true));
  else if (c.dtype === "f4") for (let i = 0; i < c.length; i++) out[i] = view.getFloat32(c.offset + 4 * i, true);
  else throw new Error(`column ${c.name} is ${c.dtype}, not a float column`);
  return out;
}

/** Each server check's fate of every token, expanded from its runs. */
export class Fates {
  readonly codes: string[];
  /** per check (as the server tab lists them), per token: the run value; null where the check has no fates */
  private perCheck: Array<Uint8Array | null>;

  constructor(meta: FatesMeta | null | undefined, col: (name: string) => Int32Array, nTokens: number) {
    this.codes = meta?.codes ?? [];
    this.perCheck = (meta?.checks ?? []).map((present, i) => {
      if (!present) return null;
      const lengths = col(`fate.${i}.len`), values = col(`fate.${i}.value`);
      const out = new Uint8Array(nTokens);
      let t = 0;
      for (let r = 0; r < lengths.length && t < nTokens; r++) { out.fill(values[r], t, Math.min(nTokens, t + lengths[r])); t += lengths[r]; }
      return out;
    });
  }

  /** How many checks there are (with fates or not). */
  get nChecks(): number { return this.perCheck.length; }

  has(check: number): boolean { return (this.perCheck[check] ?? null) !== null; }

  /** The first check with fates at or after `check`, else the first with any, else -1. */
  pick(check: number): number {
    if (this.has(check)) return check;
    return this.perCheck.findIndex((c) => c !== null);
  }

  /** What check `check`'s answer made of token t, beside the format's; null for none (a prompt token, no fates). */
  at(check: number, t: number): TokenFate | null {
    const col = this.perCheck[check];
    if (!col || t < 0 || t >= col.length) return null;
    const v = col[t];
    const fate = v & 7;
    if (fate === 0) return null;
    return { fate: this.codes[fate], expected: this.codes[(v >> 3) & 7], mismatch: (v & MISMATCH) !== 0 };
  }
}

/** One alternative of a token, as the card lists it. */
export interface Alternative { id: number; text: string; special: string | null; logprob: number; p: number; chosen: boolean }

const decoder = new TextDecoder("utf-8");

/** The model's log-prob of each token and its alternatives, or none (then `meta` is null). */
export class Logprobs {
  readonly meta: LogprobsMeta | null;
  private value: Float32Array;
  /** alternatives of token t are altIndex/altValue[altStart[t] .. altStart[t + 1]] */
  private altStart: Int32Array;
  private altIndex: Int32Array;
  private altValue: Float32Array;
  private vocabIds: Int32Array;
  private vocabText: string[];
  /** the columns begin at this token (the first with a log-prob) */
  private start = 0;

  constructor(meta: LogprobsMeta | null | undefined, col: (name: string) => Int32Array, floats: (name: string) => Float32Array) {
    this.meta = meta ?? null;
    if (!this.meta) {
      this.value = new Float32Array(0); this.altStart = new Int32Array(1); this.altIndex = new Int32Array(0);
      this.altValue = new Float32Array(0); this.vocabIds = new Int32Array(0); this.vocabText = [];
      return;
    }
    this.start = this.meta.start ?? 0;
    this.value = floats("lp.value");
    const counts = col("lp.alt.n");
    this.altStart = new Int32Array(counts.length + 1);
    for (let t = 0; t < counts.length; t++) this.altStart[t + 1] = this.altStart[t] + counts[t];
    this.altIndex = col("lp.alt.id");
    this.altValue = floats("lp.alt.value");
    this.vocabIds = col("lp.vocab.gap");
    for (let i = 1; i < this.vocabIds.length; i++) this.vocabIds[i] += this.vocabIds[i - 1];
    const lens = col("lp.vocab.len"), bytes = col("lp.vocab.bytes");
    this.vocabText = [];
    let pos = 0;
    for (let i = 0; i < lens.length; i++) { this.vocabText.push(decoder.decode(Uint8Array.from(bytes.subarray(pos, pos + lens[i])))); pos += lens[i]; }
  }

  /** Does the stream carry log-probs at all? */
  get present(): boolean { return this.meta !== null; }

  /** log p of token t as the model produced it, or null where none was reported. */
  logprob(t: number): number | null {
    t -= this.start;
    if (t < 0 || t >= this.value.length) return null;
    const v = this.value[t];
    return Number.isNaN(v) ? null : v;
  }

  /** Token t's alternatives, most likely first; `id` marks the one the stream has. */
  alternatives(t: number, id = -1): Alternative[] {
    t -= this.start;
    if (t < 0 || t + 1 >= this.altStart.length) return [];
    const out: Alternative[] = [];
    for (let j = this.altStart[t]; j < this.altStart[t + 1]; j++) {
      const v = this.altIndex[j], altId = this.vocabIds[v], logprob = this.altValue[j];
      out.push({ id: altId, text: this.vocabText[v], special: this.meta?.specials[String(altId)] ?? null, logprob, p: Math.exp(logprob), chosen: altId === id });
    }
    return out;
  }
}

/** The bins of −log p (nats) the "surprise" colour mode paints, and the legend's names for them. */
export const SURPRISE_BINS = [0.5, 1, 2, 4, 8];
export const SURPRISE_NAMES = ["< 0.5", "0.5–1", "1–2", "2–4", "4–8", "≥ 8"];

/** The bin (0 = expected, 5 = most surprising) of a token with log-prob `logprob`. */
export function surpriseBin(logprob: number): number {
  const s = -logprob;
  let b = 0;
  while (b < SURPRISE_BINS.length && s >= SURPRISE_BINS[b]) b++;
  return b;
}

/** A probability as the card writes it: 3 significant digits, or a power of ten when tiny. */
export function formatP(p: number): string {
  if (p >= 0.001) return String(Number(p.toPrecision(3)));
  return p.toExponential(1);
}

// The colours of the two modes; js/src/replay/chips.css paints the chips with the same ones.
/** The "server" mode: each fate's colour (a mismatch is hatched over it in vermillion, #D55E00). */
export const FATE_LEGEND: Array<[string, string]> = [
  ["content", "#009E73"], ["reasoning", "#56B4E9"], ["call name", "#CC79A7"], ["call arguments", "#E69F00"],
  ["dropped", "#999999"], ["control", "#DDDDDD"],
];
/** The "surprise" mode: one colour per bin of −log p, light (expected) to dark (surprising). */
export const SURPRISE_COLOURS = ["#FFF5EB", "#FDD0A2", "#FDAE6B", "#FD8D3C", "#E6550D", "#A63603"];
