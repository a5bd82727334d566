// Writes src/shared/palette.css from ../harmony_viz/palette.json, the one table of colours (run by `npm run build`).
// The stylesheets use its variables; the TypeScript imports the JSON itself; Python reads it too (harmony_viz.palette).
import { readFileSync, writeFileSync } from "node:fs";

const here = new URL(".", import.meta.url);
const palette = JSON.parse(readFileSync(new URL("../harmony_viz/palette.json", here), "utf-8"));
const hex = /^#[0-9A-Fa-f]{6}$/;
const lines = [];
const add = (group, name, colour) => {
  if (!hex.test(colour)) throw new Error(`palette.json: ${group}.${name} is ${JSON.stringify(colour)}, not a #RRGGBB colour`);
  lines.push(`  --hv-${group}-${name}: ${colour};`);
};
for (const [kind, entry] of Object.entries(palette.kinds)) add("kind", kind, entry.colour);
for (const [role, colour] of Object.entries(palette.roles)) add("role", role, colour);
for (const [severity, colour] of Object.entries(palette.severities)) add("severity", severity, colour);
for (const [change, colour] of Object.entries(palette.diff)) add("diff", change, colour);
// the conformance matrix: each result's status (a cell's background and text) and each change across versions
for (const [status, entry] of Object.entries(palette.statuses)) {
  add("status", `${status}-bg`, entry.background);
  add("status", `${status}-fg`, entry.text);
}
for (const [change, colour] of Object.entries(palette.changes)) add("change", change, colour);
const css = "/* Written by js/palette.mjs from harmony_viz/palette.json at build time: change the colours there, not here. */\n"
  + `:root, .hv-root {\n${lines.join("\n")}\n}\n`;
const out = new URL("src/shared/palette.css", here);
let old = "";
try { old = readFileSync(out, "utf-8"); } catch { /* first build */ }
if (old !== css) writeFileSync(out, css);
