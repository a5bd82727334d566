// Numbers the stylesheets (widget.css, playground.css) or the encoding fix: change them together.
import { kinds, roles, severities } from "../../../harmony_viz/palette.json";

/** Height of one row of token chips, in px; the replay sets widget.css's `--hv-row-h` from it. */
export const ROW_H = 22;
/** Mean width of one chip character in px (widget.css `.hv-tok`: 12px monospace, plus the chip's padding share), for packing rows. */
export const CHAR_W = 8.6;
/** Width of the token pane that rows cannot use (the findings gutter, padding and scroll bar), in px. */
export const PANE_PAD = 36;
/** Width assumed for the token pane before it is in the page, in px. */
export const PANE_W = 900;
/** Streams with more rows than this fill the height of the side panels (widget.css `.hv-tall`). */
export const TALL_ROWS = 24;
/** Chip labels longer than this many characters end in an ellipsis. */
export const CHIP_CHARS = 60;
/** The first special token id of o200k_harmony: every id from here on is a control or reserved token. */
export const FIRST_SPECIAL = 199998;

// ---- colours: harmony_viz/palette.json, the one table every view reads (Python's charts too) ----------------------
// widget.css and playground.css use it as variables (--hv-kind-*, --hv-role-*, --hv-severity-*: js/palette.mjs writes
// src/shared/palette.css from it at build time); the legends take the colours from here.
/** Each content kind's colour (the kinds of the visibility rule: reasoning, preamble, final, tool_call, tool_result, other). */
export const KIND_COLOURS: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, v.colour]));
/** Each content kind's name in a legend. */
export const KIND_LABELS: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, v.label]));
/** Each role's colour (system, developer, user, assistant, tool). */
export const ROLE_COLOURS: Readonly<Record<string, string>> = roles;
/** Each severity's colour (error, warning, info). */
export const SEVERITY_COLOURS: Readonly<Record<string, string>> = severities;
