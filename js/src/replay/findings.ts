// The findings of a stream as the browser holds them: columns decoded once, an index of the
// token segments they cover, and the cheap questions a step asks (which findings show by now,
// what marks a chip, the next one after a step). Pure logic, no DOM: unit-tested under node.
import type { FindingsMeta } from "./types";

/** Which findings show: a bit per severity index and one per source index (all set: every finding). */
export interface FindingFilter { severities: number; sources: number }

export const ALL: FindingFilter = { severities: 0xff, sources: 0xff };

/** One finding, as the panel and the token card show it. */
export interface FindingRow {
  index: number;
  step: number;
  /** its span as the lens wrote it, in tokens; null when it points at no token */
  start: number | null;
  end: number | null;
  code: string;
  severity: string;
  source: string;
  message: string;
}

/** What marks a chip at a step: the worst severity on it (its index, -1 for none) and its codes, space-separated. */
export interface ChipMark { severity: number; codes: string }

const NONE: ChipMark = { severity: -1, codes: "" };

/** The chips a span marks: [a, b) itself, or the one token at an empty span (the last for one past the end). */
export function chipSpan(start: number, end: number, nTokens: number): [number, number] | null {
  if (start < 0 || nTokens === 0) return null;
  const a = Math.min(start, nTokens - 1);
  return [a, Math.max(a + 1, Math.min(end, nTokens))];
}

/** First index i with arr[i] > x in a sorted array. */
function upperBound(arr: ArrayLike<number>, x: number, lo = 0, hi = arr.length): number {
  while (lo < hi) { const mid = (lo + hi) >> 1; if (arr[mid] <= x) lo = mid + 1; else hi = mid; }
  return lo;
}

export class Findings {
  readonly n: number;
  readonly meta: FindingsMeta;
  /** per finding, in the order they show (by step) */
  readonly step: Int32Array;
  readonly start: Int32Array;
  readonly end: Int32Array;
  readonly severity: Int32Array;
  readonly source: Int32Array;
  readonly code: Int32Array;
  readonly message: Int32Array;
  /** the chips each finding marks, [chipA, chipB); -1 where it marks none */
  readonly chipA: Int32Array;
  readonly chipB: Int32Array;
  // the token segments between span boundaries, and the findings covering each (CSR, ascending)
  private bounds: Int32Array;
  private segOffsets: Int32Array;
  private segItems: Int32Array;
  // a chip mark per segment, kept while neither the findings shown nor the filter change
  private segShown: Int32Array;
  private segMark: ChipMark[];
  private filterKey = -1;
  // counts of findings 0..i-1 per source and per severity
  private bySource: Int32Array[];
  private bySeverity: Int32Array[];

  constructor(meta: FindingsMeta | undefined, col: (name: string) => Int32Array, nTokens: number) {
    this.meta = meta ?? { count: 0, severities: ["error", "warning", "info"], sources: ["scanner", "lint", "server", "prompt"], codes: [], messages: [], error: null };
    const empty = new Int32Array(0);
    const has = meta !== undefined && meta.count > 0;
    this.step = has ? col("finding.step") : empty;
    this.start = has ? col("finding.start") : empty;
    const len = has ? col("finding.len") : empty;
    this.severity = has ? col("finding.severity") : empty;
    this.source = has ? col("finding.source") : empty;
    this.code = has ? col("finding.code") : empty;
    this.message = has ? col("finding.message") : empty;
    const n = this.n = this.step.length;
    this.end = new Int32Array(n);
    this.chipA = new Int32Array(n).fill(-1);
    this.chipB = new Int32Array(n).fill(-1);
    const edges: number[] = [];
    for (let i = 0; i < n; i++) {
      this.end[i] = this.start[i] < 0 ? -1 : this.start[i] + len[i];
      const span = chipSpan(this.start[i], this.end[i], nTokens);
      if (span) { this.chipA[i] = span[0]; this.chipB[i] = span[1]; edges.push(span[0], span[1]); }
    }
    edges.sort((x, y) => x - y);
    const bounds: number[] = [];
    for (const e of edges) if (bounds.length === 0 || bounds[bounds.length - 1] !== e) bounds.push(e);
    this.bounds = Int32Array.from(bounds);
    const nSeg = Math.max(0, bounds.length - 1);
    const seg = (x: number) => upperBound(this.bounds, x) - 1;  // the segment starting at boundary x
    const counts = new Int32Array(nSeg + 1);
    for (let i = 0; i < n; i++) if (this.chipA[i] >= 0) for (let k = seg(this.chipA[i]); k < seg(this.chipB[i]); k++) counts[k + 1]++;
    for (let k = 0; k < nSeg; k++) counts[k + 1] += counts[k];
    this.segOffsets = counts;
    this.segItems = new Int32Array(counts[nSeg]);
    const fill = counts.slice(0, nSeg);
    for (let i = 0; i < n; i++) if (this.chipA[i] >= 0) for (let k = seg(this.chipA[i]); k < seg(this.chipB[i]); k++) this.segItems[fill[k]++] = i;
    this.segShown = new Int32Array(nSeg).fill(-1);
    this.segMark = new Array<ChipMark>(nSeg).fill(NONE);
    const prefix = (of: Int32Array, value: number) => {
      const out = new Int32Array(n + 1);
      for (let i = 0; i < n; i++) out[i + 1] = out[i] + (of[i] === value ? 1 : 0);
      return out;
    };
    this.bySource = this.meta.sources.map((_, k) => prefix(this.source, k));
    this.bySeverity = this.meta.severities.map((_, k) => prefix(this.severity, k));
  }

  /** How many findings show at step s: findings 0..countAt(s)-1 (they are in step order). */
  countAt(s: number): number { return upperBound(this.step, s); }

  passes(i: number, f: FindingFilter): boolean {
    return ((f.severities >> this.severity[i]) & 1) === 1 && ((f.sources >> this.source[i]) & 1) === 1;
  }

  row(i: number): FindingRow {
    const spanned = this.start[i] >= 0;
    return {
      index: i, step: this.step[i], start: spanned ? this.start[i] : null, end: spanned ? this.end[i] : null,
      code: this.meta.codes[this.code[i]], severity: this.meta.severities[this.severity[i]],
      source: this.meta.sources[this.source[i]], message: this.meta.messages[this.message[i]],
    };
  }

  /** Findings showing at step s, per source and per severity (the panel's counts). */
  counts(s: number): { sources: number[]; severities: number[] } {
    const k = this.countAt(s);
    return { sources: this.bySource.map((p) => p[k]), severities: this.bySeverity.map((p) => p[k]) };
  }

  /** The findings on token t (ascending, which is step order), whatever the step. */
  on(t: number): Int32Array {
    const k = upperBound(this.bounds, t) - 1;
    if (k < 0 || k >= this.segShown.length) return new Int32Array(0);
    return this.segItems.subarray(this.segOffsets[k], this.segOffsets[k + 1]);
  }

  /** What marks chip t when the first `shown` findings show (countAt(step)), under filter f: its segment's mark, cached. */
  mark(t: number, shown: number, f: FindingFilter): ChipMark {
    if (this.n === 0) return NONE;
    const key = f.severities * 256 + f.sources;
    if (key !== this.filterKey) { this.filterKey = key; this.segShown.fill(-1); }
    const k = upperBound(this.bounds, t) - 1;
    if (k < 0 || k >= this.segShown.length) return NONE;
    const a = this.segOffsets[k], b = this.segOffsets[k + 1];
    const here = upperBound(this.segItems, shown - 1, a, b) - a;  // items are ascending: those that show are a prefix
    if (this.segShown[k] === here) return this.segMark[k];
    let worst = -1;
    const codes: string[] = [];
    for (let j = a; j < a + here; j++) {
      const i = this.segItems[j];
      if (!this.passes(i, f)) continue;
      if (worst < 0 || this.severity[i] < worst) worst = this.severity[i];
      const c = this.meta.codes[this.code[i]];
      if (!codes.includes(c)) codes.push(c);
    }
    const m: ChipMark = worst < 0 ? NONE : { severity: worst, codes: codes.join(" ") };
    this.segShown[k] = here;
    this.segMark[k] = m;
    return m;
  }

  /**
   * The finding n / Shift+n go to from step s (dir +1 / -1), wrapping; only those passing f.
   * From a focused finding that shows at s, its neighbour; else the first after step s, or the
   * last at or before it. -1 when no finding passes the filter.
   */
  next(s: number, dir: 1 | -1, f: FindingFilter, focused = -1): number {
    const n = this.n;
    if (n === 0) return -1;
    let i = focused >= 0 && focused < n && this.step[focused] <= s ? focused + dir : (dir > 0 ? this.countAt(s) : this.countAt(s) - 1);
    for (let tries = 0; tries < n; tries++, i += dir) {
      const j = ((i % n) + n) % n;
      if (this.passes(j, f)) return j;
    }
    return -1;
  }
}
