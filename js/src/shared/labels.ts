// Pure text helpers both views use: chip labels, escaped text, bytes, and the colour legend.
import { CHIP_CHARS, KIND_COLOURS, KIND_LABELS, ROLE_COLOURS } from "./constants";

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

// The colours are harmony_viz/palette.json's (constants.ts): the stylesheets and Python's charts read the same table.
export const CHANNEL_COLOURS: Readonly<Record<string, string>> = KIND_COLOURS;
export { ROLE_COLOURS };

export type ColourMode = "channel" | "role";

/** Legend entries for a colouring mode: [name, colour, the kind or role it stands for]. */
export function legend(mode: ColourMode): Array<[string, string, string]> {
  const table = mode === "channel" ? CHANNEL_COLOURS : ROLE_COLOURS;
  return Object.entries(table).map(([k, c]) => [mode === "channel" ? KIND_LABELS[k] ?? k : k, c, k]);
}
