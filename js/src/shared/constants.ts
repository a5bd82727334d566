// Numbers the stylesheets (widget.css, playground.css) or the encoding fix: change them together.

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
