// The matrix page's DOM: the lines, the filters, the table, the legend; and the filters applied to it.
// Every row, column and cell carries data- attributes a script (or a test) can drive.
import { h, scrollRegion } from "../shared/dom";
import { levelsOf } from "./filter";
import { CHANGES, enginesText, knownKindCounts, levelRates, ordered, rateText, summaryText, tooltip } from "./model";
import type { Cell, Column, FilterState, Model } from "./types";

type Labels = Record<string, string>;

function checkbox(group: string, value: string | null, label: string, title = ""): HTMLLabelElement {
  const box = h("label", title ? { title } : {});
  const input = h("input", { type: "checkbox", "data-filter": group, ...(value === null ? {} : { value }) });
  input.defaultChecked = input.checked = group !== "changes";
  box.append(input, document.createTextNode(` ${label}`));
  return box;
}

function allNone(group: string): DocumentFragment {
  const out = document.createDocumentFragment();
  out.append(" ", h("button", { type: "button", "data-filter-all": group }, "all"), h("button", { type: "button", "data-filter-none": group }, "none"));
  return out;
}

function fieldset(group: string, legend: string, items: HTMLElement[], withAllNone: boolean): HTMLFieldSetElement {
  const set = h("fieldset", { "data-filter-group": group });
  set.append(h("legend", {}, legend), ...items);
  if (withAllNone) set.append(allNone(group));
  return set;
}

function filters(m: Model): HTMLFormElement {
  const form = h("form", { class: "filters", "data-hv": "filters" });
  form.addEventListener("submit", (ev) => ev.preventDefault());
  const fams = m.families.map((f) => {
    const box = checkbox("family", f, f);
    box.append(" ", h("small", {}, `(${m.rows.filter((r) => r.family === f).length})`));
    return box;
  });
  const classes = m.data.classes.map((k) => {
    const box = h("label", { title: k.what });
    const input = h("input", { type: "checkbox", "data-filter": "status", value: k.cls });
    input.defaultChecked = input.checked = true;
    box.append(input, " ", h("span", { class: `c c-${k.cls} chip` }, k.symbol), ` ${k.label} `, h("small", {}, `(${m.counts[k.cls]})`));
    return box;
  });
  const engines = [...new Set(m.columns.map((c) => c.engine))].map((e) => checkbox("engine", e, e));
  const apis = ordered(m.columns.map((c) => c.api), m.data.apis).map((a) => checkbox("api", a, a));
  const levels = levelsOf(m).map((l) => {
    const box = checkbox("level", l, l || "unrated");
    box.append(" ", h("small", {}, `(${m.rows.filter((r) => (r.level ?? "") === l).length})`));
    return box;
  });
  const more = [
    checkbox("unserved", null, "hide columns nothing is served in",
      "columns with no served result in the rows shown (the engine has no such API, or the cases shown do not ask it)"),
    checkbox("codes", null, "codes", "off: symbols only, the codes in each cell's tooltip"),
    ...(m.multiVersion ? [checkbox("changes", null, "only rows that changed across versions")] : []),
  ];
  const search = h("label", {}, "case ");
  search.append(h("input", { type: "search", "data-filter": "text", placeholder: "id contains…", size: "16" }));
  more.push(search);
  form.append(fieldset("family", "family", fams, true), ...(levels.length ? [fieldset("level", "level", levels, false)] : []),
    fieldset("status", "status", classes, true), fieldset("engine", "engine", engines, false),
    fieldset("api", "API", apis, false), fieldset("more", "show", more, false),
    h("span", { class: "shown", "data-hv": "shown" }, `${m.rows.length} of ${m.rows.length} cases shown`));
  return form;
}

function groups(columns: Column[], key: (c: Column) => string): Map<string, Column[]> {
  const out = new Map<string, Column[]>();
  for (const c of columns) {
    if (!out.has(key(c))) out.set(key(c), []);
    out.get(key(c))!.push(c);
  }
  return out;
}

function head(m: Model): HTMLTableSectionElement {
  const thead = h("thead");
  const top = h("tr");
  const corner = h("th", { class: "corner", rowspan: String(m.multiVersion ? 3 : 2) }, "case");
  top.appendChild(corner);
  for (const [engine, cols] of groups(m.columns, (c) => c.engine)) {
    const label = m.multiVersion ? engine : `${engine} ${m.data.versions[engine][0]}`;
    top.appendChild(h("th", { class: "grp", colspan: String(cols.length), "data-hv": "engine-head", "data-engine": engine,
      "data-cols": cols.map((c) => c.index).join(" ") }, label));
  }
  thead.appendChild(top);
  if (m.multiVersion) {
    const row = h("tr");
    for (const cols of groups(m.columns, (c) => `${c.engine}\u0000${c.version}`).values()) {
      const { engine, version } = cols[0];
      row.appendChild(h("th", { class: "grp ver", colspan: String(cols.length), "data-hv": "version-head", "data-engine": engine, "data-version": version,
        "data-cols": cols.map((c) => c.index).join(" "), title: m.data.versionTitles[engine]?.[version] ?? "" }, version));
    }
    thead.appendChild(row);
  }
  const apis = h("tr");
  for (const c of m.columns) {
    apis.appendChild(h("th", { class: "api", "data-hv": "column", "data-col": String(c.index), "data-engine": c.engine, "data-version": c.version,
      "data-api": c.api, "data-served": c.served ? "1" : "0", title: `${c.engine} ${c.version} · ${c.api}` }, c.api));
  }
  thead.appendChild(apis);
  return thead;
}

function cell(c: Cell, labels: Labels, symbols: Labels): HTMLTableCellElement {
  const td = h("td", { class: `c c-${c.cls}`, title: tooltip(c, labels), "data-hv": "cell", "data-col": String(c.col), "data-case": c.case,
    "data-engine": c.engine, "data-version": c.version, "data-api": c.api, "data-status": c.status, "data-severity": c.severity,
    "data-class": c.cls, "data-codes": c.codes.join(" "), ...(c.change ? { "data-change": c.change } : {}),
    ...(c.knownKind ? { "data-known-kind": c.knownKind } : {}), ...(c.level ? { "data-level": c.level } : {}) });
  const inner: Node[] = [h("span", { class: "sym", "aria-hidden": "true" }, symbols[c.cls]), h("span", { class: "lbl" }, labels[c.cls])];
  if (c.codes.length) {
    const codes = h("span", { class: "codes" });
    codes.append(...c.codes.map((code) => h("span", {}, code)));
    inner.push(codes);
  }
  if (c.knownKind) inner.push(h("span", { class: `kk kk-${c.knownKind}`, "data-hv": "known-kind" }, c.knownKind === "research-needed" ? "research" : c.knownKind));
  if (c.change) inner.push(h("span", { class: `chg chg-${c.change}`, "data-hv": "change" }, `${CHANGES[c.change][0]} ${CHANGES[c.change][1]} ${c.version}`));
  if (c.href) {
    const a = h("a", { href: c.href, "data-hv": "replay-link" });
    a.append(...inner);
    td.appendChild(a);
  } else td.append(...inner);
  return td;
}

function body(m: Model, labels: Labels, symbols: Labels): HTMLTableSectionElement[] {
  return m.families.map((f) => {
    const rows = m.rows.filter((r) => r.family === f);
    const tbody = h("tbody", { "data-family": f });
    const famRow = h("tr", { class: "fam", "data-hv": "family", "data-family": f });
    const th = h("th", { colspan: String(m.columns.length + 1) }, `${f} `);
    th.appendChild(h("small", {}, `· ${rows.length} case${rows.length === 1 ? "" : "s"}`));
    famRow.appendChild(th);
    tbody.appendChild(famRow);
    for (const r of rows) {
      const tr = h("tr", { "data-hv": "case", "data-case": r.id, "data-family": f, "data-kind": r.kind, "data-changes": String(r.changes),
        ...(r.level ? { "data-level": r.level } : {}) });
      const name = h("th", { class: "case", title: r.id + (r.description ? `: ${r.description}` : ""), "data-description": r.description },
        r.id.split("/").slice(1).join("/") || r.id);
      if (r.kind === "prompt") name.append(" ", h("small", { class: "kind" }, "prompt"));
      if (r.level) name.append(" ", h("small", { class: `lvl lvl-${r.level}`, title: `level ${r.level}` }, r.level));
      tr.appendChild(name);
      m.columns.forEach((c) => {
        const found = r.cells.get(c.index);
        tr.appendChild(found ? cell(found, labels, symbols)
          : h("td", { class: "c c-absent", "data-hv": "absent", "data-col": String(c.index), title: "not in this report" }));
      });
      tbody.appendChild(tr);
    }
    return tbody;
  });
}

function foot(m: Model): HTMLTableSectionElement {
  const tr = h("tr");
  tr.appendChild(h("th", { class: "case", title: "passing (pass, fixed) of the results served, in the rows shown" }, "passing / served"));
  for (const c of m.columns) {
    const mine = m.cells.filter((x) => x.col === c.index && x.status !== "not-served");
    const ok = mine.filter((x) => x.status === "pass" || x.status === "fixed").length;
    tr.appendChild(h("td", { "data-hv": "column-total", "data-col": String(c.index), "data-passing": String(ok), "data-served": String(mine.length) },
      `${ok}/${mine.length}`));
  }
  const tfoot = h("tfoot");
  tfoot.appendChild(tr);
  return tfoot;
}

function legend(m: Model): HTMLElement {
  const section = h("section", { class: "legend", "data-hv": "legend" });
  const list = h("ul");
  for (const k of m.data.classes) {
    const li = h("li");
    li.append(h("span", { class: `c c-${k.cls} chip` }, k.symbol), " ", h("b", {}, k.label), `: ${k.what}`);
    list.appendChild(li);
  }
  const kinds = m.data.knownKinds ?? [];
  const kindList = h("ul", { "data-hv": "known-kinds" });
  for (const k of kinds) {
    const li = h("li");
    li.append(h("span", { class: `kk kk-${k.kind}` }, k.kind === "research-needed" ? "research" : k.kind), " ", h("b", {}, k.label), `: ${k.what}`);
    kindList.appendChild(li);
  }
  section.append(h("h2", {}, "Legend"), list, ...(kinds.length ? [h("p", {}, "A failing cell that a known divergence covers says its triage:"), kindList] : []),
    h("p", {}, "Levels: must (the format decides, on a well-formed stream), should (recovery from malformed model output), may (our choice where the format leaves it open)."),
    h("p", {}, "A cell shows its symbol and the codes of its failing findings (warning or above); "
    + "its tooltip gives the findings' messages. A row's tooltip is the case's description."));
  if (m.multiVersion) {
    const p = h("p", {}, "Versions: each engine's versions are ordered numerically; a cell that differs from the same engine and API's previous version is marked ");
    p.append(h("span", { class: "chg chg-fixed" }, "▲ fixed in X"), " (it failed there, it passes here), ", h("span", { class: "chg chg-broke" }, "▼ broke in X"),
      " (it passed, it fails) or ", h("span", { class: "chg chg-changed" }, "◆ changed in X"), " (other codes, or served/not served/error).");
    section.appendChild(p);
  }
  const linked = m.cells.some((c) => c.href);
  section.appendChild(h("p", {}, linked
    ? "Links: an answer case's cell opens the case's replay page, every engine's answers in its server tab, at that engine and API; "
      + "a prompt case's cell opens the replay of that engine's prompt check, its prompt tab showing the server's render against ours. "
      + "Not-served and error cells link nothing."
    : "No cell links to a replay: " + (m.data.live ? "none was written." : "these are saved reports (a live run writes replays: conformance --html).")));
  return section;
}

/** The whole page into `host`. */
export function drawPage(host: HTMLElement, m: Model): void {
  const labels = Object.fromEntries(m.data.classes.map((k) => [k.cls, k.label]));
  const symbols = Object.fromEntries(m.data.classes.map((k) => [k.cls, k.symbol]));
  const summary = h("p", { class: "line summary", "data-hv": "summary", "data-results": String(m.cells.length), "data-cases": String(m.rows.length) },
    summaryText(m));
  for (const k of m.data.classes) summary.setAttribute(`data-${k.cls}`, String(m.counts[k.cls]));
  for (const k of Object.keys(CHANGES) as Array<keyof typeof CHANGES>) summary.setAttribute(`data-changes-${k}`, String(m.changes[k]));
  const rates = levelRates(m).filter((r) => r.level);
  const ratesLine = h("p", { class: "line", "data-hv": "level-rates" },
    rates.length ? "pass rate by level: " + rates.map((r) => `${r.engine} ${r.version} ${r.level} ${rateText(r.passing, r.served)}`).join(" · ") : "");
  for (const [kind, , n] of knownKindCounts(m)) summary.setAttribute(`data-kind-${kind}`, String(n));
  host.append(h("h1", { "data-hv": "page-title" }, m.data.title), h("p", { class: "line", "data-hv": "engines" }, enginesText(m.data)), summary, ratesLine,
    ...m.data.notes.map((n) => h("p", { class: "line", "data-hv": "replay-problem" }, n)), filters(m));
  const table = h("table", { "data-hv": "matrix" });
  table.append(head(m), ...body(m, labels, symbols), foot(m));
  // the table scrolls in its box: a named keyboard stop, so the arrows scroll it without a mouse
  const wrap = scrollRegion(h("div", { class: "wrap" }), "the conformance matrix");
  wrap.appendChild(table);
  host.append(wrap, legend(m));
}

/** The filters as the form's inputs say them. */
export function readFilters(form: HTMLFormElement): FilterState {
  const checked = (name: string): Set<string> =>
    new Set([...form.querySelectorAll<HTMLInputElement>(`input[data-filter=${name}]`)].filter((i) => i.checked).map((i) => i.value));
  const flag = (name: string): boolean => !!form.querySelector<HTMLInputElement>(`input[data-filter=${name}]`)?.checked;
  return {
    families: checked("family"), classes: checked("status"), engines: checked("engine"), apis: checked("api"),
    text: form.querySelector<HTMLInputElement>("input[data-filter=text]")?.value ?? "", hideUnserved: flag("unserved"), onlyChanged: flag("changes"),
    ...(form.querySelector("input[data-filter=level]") ? { levels: checked("level") } : {}),
  };
}
