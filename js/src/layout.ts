// Pure layout helpers: rows of token chips, the visible window, labels and colours.

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

/** The text a chip shows; with `whitespace` on, spaces, tabs and newlines become visible marks. */
export function chipLabel(text: string, whitespace: boolean): string {
  if (!whitespace) return text.length > 60 ? text.slice(0, 59) + "…" : text;
  const shown = text.replace(/ /g, "·").replace(/\t/g, "→").replace(/\r/g, "␍").replace(/\n/g, "↵");
  return shown.length > 60 ? shown.slice(0, 59) + "…" : shown;
}

/** A token's text with everything invisible escaped, as in a JSON string. */
export function escapeText(text: string): string {
  return JSON.stringify(text);
}

export function hexBytes(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");
}

// Okabe-Ito: distinguishable under the common colour-vision deficiencies.
export const OKABE_ITO = {
  orange: "#E69F00", sky: "#56B4E9", green: "#009E73", yellow: "#F0E442",
  blue: "#0072B2", vermillion: "#D55E00", purple: "#CC79A7", grey: "#999999",
} as const;

export const CHANNEL_COLOURS: Record<string, string> = {
  reasoning: OKABE_ITO.sky,
  preamble: OKABE_ITO.yellow,
  final: OKABE_ITO.green,
  tool_call: OKABE_ITO.orange,
  tool_result: OKABE_ITO.purple,
  other: OKABE_ITO.grey,
};

export const ROLE_COLOURS: Record<string, string> = {
  system: OKABE_ITO.grey,
  developer: OKABE_ITO.purple,
  user: OKABE_ITO.blue,
  assistant: OKABE_ITO.green,
  tool: OKABE_ITO.orange,
};

/** Legend entries for a colouring mode. */
export function legend(mode: "channel" | "role"): Array<[string, string]> {
  const table = mode === "channel" ? CHANNEL_COLOURS : ROLE_COLOURS;
  const names: Record<string, string> = { reasoning: "analysis (reasoning)", preamble: "preamble", final: "final",
    tool_call: "tool call", tool_result: "tool result", other: "other" };
  return Object.entries(table).map(([k, c]) => [mode === "channel" ? names[k] ?? k : k, c]);
}

/** Format a step position for the step readout. */
export function stepLabel(step: number, nSteps: number, fed: number, nTokens: number, flush: boolean): string {
  const tail = flush ? " · end of stream" : step === 0 ? " · nothing fed" : "";
  return `step ${step} / ${nSteps - 1} · ${fed} / ${nTokens} tokens fed${tail}`;
}
