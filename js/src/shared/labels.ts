// Pure text helpers both views use: chip labels, escaped text, bytes, and the colour legend.
import { CHIP_CHARS } from "./constants";

/** The text a chip shows; with `whitespace` on, spaces, tabs and newlines become visible marks. */
export function chipLabel(text: string, whitespace: boolean): string {
  const shown = whitespace ? text.replace(/ /g, "·").replace(/\t/g, "→").replace(/\r/g, "␍").replace(/\n/g, "↵") : text;
  return shown.length > CHIP_CHARS ? shown.slice(0, CHIP_CHARS - 1) + "…" : shown;
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

export type ColourMode = "channel" | "role";

/** Legend entries for a colouring mode. */
export function legend(mode: ColourMode): Array<[string, string]> {
  const table = mode === "channel" ? CHANNEL_COLOURS : ROLE_COLOURS;
  const names: Record<string, string> = { reasoning: "analysis (reasoning)", preamble: "preamble", final: "final",
    tool_call: "tool call", tool_result: "tool result", other: "other" };
  return Object.entries(table).map(([k, c]) => [mode === "channel" ? names[k] ?? k : k, c]);
}
