// Entry point of the conformance matrix page (harmony-viz conformance --html / --merge): its data is a JSON
// island in the page (harmony_viz.conformance._page.matrix_data); this draws the table and runs its filters.
import "./src/matrix/matrix.css";
import { drawPage, readFilters } from "./src/matrix/draw";
import { applyFilters } from "./src/matrix/filter";
import { buildModel } from "./src/matrix/model";
import type { MatrixData, Model } from "./src/matrix/types";

declare global {
  interface Window { harmonyVizMatrix?: { apply: () => void } }
}

function all<E extends Element>(root: ParentNode, selector: string): E[] {
  return [...root.querySelectorAll<E>(selector)];
}

/** Show what the filters ask: columns (through one style rule), rows, family rows, the dimmed cells, the tallies, the count. */
function applier(m: Model, form: HTMLFormElement, table: HTMLTableElement, colStyle: HTMLStyleElement): () => void {
  const rows = all<HTMLTableRowElement>(table, "tr[data-hv=case]");
  const cellsOf = rows.map((r) => all<HTMLTableCellElement>(r, "td[data-hv=cell]"));
  const fams = all<HTMLTableRowElement>(table, "tr[data-hv=family]");
  const groups = all<HTMLTableCellElement>(table, "th[data-cols]");
  const totals = all<HTMLTableCellElement>(table, "td[data-hv=column-total]");
  const shownLine = document.querySelector<HTMLElement>("[data-hv=shown]")!;
  return () => {
    const f = readFilters(form);
    const shown = applyFilters(m, f);
    const hidden = shown.columns.flatMap((on, i) => (on ? [] : [`[data-col="${i}"]`]));
    const codes = form.querySelector<HTMLInputElement>("input[data-filter=codes]")?.checked ?? true;
    colStyle.textContent = (hidden.length ? `${hidden.join(",")}{display:none}` : "") + (codes ? "" : ".codes{display:none}");
    for (const g of groups) {
      const n = (g.dataset.cols ?? "").split(" ").filter((i) => shown.columns[Number(i)]).length;
      g.colSpan = Math.max(n, 1);
      g.hidden = n === 0;
    }
    const families = new Set<string>();
    rows.forEach((r, k) => {
      for (const c of cellsOf[k]) c.dataset.match = f.classes.has(c.dataset.class ?? "") ? "1" : "0";
      r.hidden = !shown.rows[k];
      r.dataset.shown = shown.rows[k] ? "1" : "0";
      if (shown.rows[k]) families.add(r.dataset.family ?? "");
    });
    const nCols = shown.columns.filter(Boolean).length;
    for (const fam of fams) {
      fam.hidden = !families.has(fam.dataset.family ?? "");
      (fam.firstElementChild as HTMLTableCellElement).colSpan = nCols + 1;
    }
    for (const td of totals) {
      const [passing, served] = shown.totals[Number(td.dataset.col)];
      td.textContent = `${passing}/${served}`;
      td.dataset.passing = String(passing);
      td.dataset.served = String(served);
    }
    shownLine.textContent = `${shown.count} of ${rows.length} cases shown`;
    shownLine.dataset.shown = String(shown.count);
  };
}

function boot(): void {
  const script = document.getElementById("hv-data");
  const host = document.getElementById("hv-app");
  if (!script || !host) return;
  const m = buildModel(JSON.parse(script.textContent ?? "{}") as MatrixData);
  drawPage(host, m);
  const colStyle = document.createElement("style");
  colStyle.id = "hv-cols";
  document.head.appendChild(colStyle);
  const form = host.querySelector<HTMLFormElement>("[data-hv=filters]")!;
  const apply = applier(m, form, host.querySelector<HTMLTableElement>("[data-hv=matrix]")!, colStyle);
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("click", (ev) => {
    const b = (ev.target as Element).closest("button");
    const group = b?.dataset.filterAll ?? b?.dataset.filterNone;
    if (!b || !group) return;
    for (const i of all<HTMLInputElement>(form, `input[data-filter=${group}]`)) i.checked = b.dataset.filterAll !== undefined;
    apply();
  });
  window.harmonyVizMatrix = { apply };
  apply();
  performance.mark("hv-rendered");
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
