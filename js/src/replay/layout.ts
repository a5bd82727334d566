// Pure layout helpers of the replay: rows of token chips, the visible window, the step readout.

/** Where each row of chips starts: a new row at every message start, after a newline, or when the row is full. */
export function layoutRows(n: number, textOf: (t: number) => string, breaksBefore: Set<number>, maxChars: number): Int32Array {
  const starts: number[] = [0];
  let width = 0;
  for (let t = 0; t < n; t++) {
    const w = Math.min(textOf(t).length, 40) + 1;
    if (t > 0 && (breaksBefore.has(t) || width + w > maxChars)) { starts.push(t); width = 0; }
    width += w;
    if (textOf(t).endsWith("\n") && t + 1 < n) { starts.push(t + 1); width = 0; }
  }
  // collapse duplicates (a newline token right before a message start)
  const out: number[] = [];
  for (const s of starts) if (out.length === 0 || out[out.length - 1] !== s) out.push(s);
  out.push(n);
  return Int32Array.from(out);
}

/** Rows to draw for a scroll position, with some overscan above and below. */
export function visibleRows(scrollTop: number, height: number, rowHeight: number, nRows: number, overscan = 4): [number, number] {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(nRows, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  return [first, Math.max(first, last)];
}

/** Row containing token t. */
export function rowOf(rows: Int32Array, t: number): number {
  let lo = 0, hi = rows.length - 1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (rows[mid] <= t) lo = mid; else hi = mid - 1; }
  return Math.min(lo, Math.max(0, rows.length - 2));
}

/** The step readout: "step k of n · t tokens fed" (steps count from 0 to n; the last is the end of the stream). */
export function stepLabel(step: number, nSteps: number, fed: number, flush: boolean): string {
  return `step ${step} of ${nSteps - 1} · ${fed} ${fed === 1 ? "token" : "tokens"} fed${flush ? " · end of stream" : ""}`;
}
