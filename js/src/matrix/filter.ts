// The matrix's filters as a pure function (no DOM): which columns and rows show, which cells match, each column's tally.
import type { Cell, FilterState, Model, Shown } from "./types";

function rowsShown(m: Model, f: FilterState, cols: boolean[]): boolean[] {
  const text = f.text.trim().toLowerCase();
  return m.rows.map((r) => {
    if (!f.families.has(r.family)) return false;
    if (f.levels && !f.levels.has(r.level ?? "")) return false;
    if (text && !r.id.toLowerCase().includes(text)) return false;
    let any = false;
    let changed = false;
    for (const c of r.cells.values()) {
      if (!cols[c.col]) continue;
      if (f.classes.has(c.cls)) any = true;
      if (c.change) changed = true;
    }
    return any && (!f.onlyChanged || changed);
  });
}

/**
 * What the page shows under the filters. A column shows when its engine and API are checked (and,
 * hiding unserved columns, something is served in it); a row when its family is checked, its id
 * holds the text, one of its shown cells is of a checked class (and, asked, one of them changed).
 * Hiding unserved columns also drops a column with nothing served in the rows shown, then picks
 * the rows again (a few rounds: each round only drops).
 */
export function applyFilters(m: Model, f: FilterState): Shown {
  const cols = m.columns.map((c) => f.engines.has(c.engine) && f.apis.has(c.api) && !(f.hideUnserved && !c.served));
  let rows = rowsShown(m, f, cols);
  if (f.hideUnserved) {
    for (let round = 0; round < 3; round++) {
      const used = new Set<number>();
      m.rows.forEach((r, k) => { if (rows[k]) for (const c of r.cells.values()) if (c.status !== "not-served") used.add(c.col); });
      let dropped = false;
      cols.forEach((on, i) => { if (on && !used.has(i)) { cols[i] = false; dropped = true; } });
      if (!dropped) break;
      rows = rowsShown(m, f, cols);
    }
  }
  const match = new Map<Cell, boolean>(m.cells.map((c) => [c, f.classes.has(c.cls)]));
  const totals: Array<[number, number]> = m.columns.map(() => [0, 0]);
  m.rows.forEach((r, k) => {
    if (!rows[k]) return;
    for (const c of r.cells.values()) {
      if (c.status === "not-served") continue;
      totals[c.col][1] += 1;
      if (c.status === "pass" || c.status === "fixed") totals[c.col][0] += 1;
    }
  });
  return { columns: cols, rows, match, totals, count: rows.filter(Boolean).length };
}

/** Every filter on: every family, class, engine and API checked, unserved columns hidden, no text. */
export function allOn(m: Model): FilterState {
  return {
    families: new Set(m.families), classes: new Set(m.data.classes.map((k) => k.cls)), engines: new Set(m.columns.map((c) => c.engine)),
    apis: new Set(m.columns.map((c) => c.api)), text: "", hideUnserved: true, onlyChanged: false, levels: new Set(levelsOf(m)),
  };
}

/** The levels the rows have, in the data's order (strictest first), an unrated row's "" last. */
export function levelsOf(m: Model): string[] {
  const seen = new Set(m.rows.map((r) => r.level ?? ""));
  return [...(m.data.levels ?? []).filter((l) => seen.has(l)), ...[...seen].filter((l) => !(m.data.levels ?? []).includes(l))];
}
