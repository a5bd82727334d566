// The matrix's pure logic (no DOM): columns from the results, cell classes, the marks of what changed
// across an engine's versions, the counts and the words the page says. node's tests run it (js/test/matrix.test.mjs).
import type { Cell, Change, Column, MatrixData, Model, Result, Row } from "./types";

const PASSING = new Set(["pass", "fixed"]);
const FAILING = new Set(["fail", "known"]);
export const CHANGES: Record<Exclude<Change, "">, [string, string]> = { fixed: ["▲", "fixed in"], broke: ["▼", "broke in"], changed: ["◆", "changed in"] };

/** A cell's class: its status, a failure split by its worst finding's severity. */
export function cellClass(status: string, severity: string): string {
  if (status === "fail") return severity === "error" ? "fail-error" : "fail-warning";
  return status;
}

/** pass and fixed pass, fail and known fail; not served and error are each their own. */
export function bucket(status: string): string {
  return PASSING.has(status) ? "pass" : FAILING.has(status) ? "fail" : status;
}

/** `seen` in the `preferred` order, the others after them as first seen. */
export function ordered(seen: Iterable<string>, preferred: readonly string[]): string[] {
  const unique = [...new Set(seen)];
  return [...preferred.filter((x) => unique.includes(x)), ...unique.filter((x) => !preferred.includes(x))];
}

/** A column per engine, version and API: engines in their order, versions in theirs, each version's APIs in the preferred order. */
export function columnsOf(data: MatrixData): Column[] {
  const apisOf = new Map<string, string[]>();
  for (const r of data.results) {
    const key = `${r.engine}\u0000${r.version}`;
    if (!apisOf.has(key)) apisOf.set(key, []);
    apisOf.get(key)!.push(r.api);
  }
  const out: Column[] = [];
  for (const engine of data.engines) {
    for (const version of data.versions[engine] ?? []) {
      for (const api of ordered(apisOf.get(`${engine}\u0000${version}`) ?? [], data.apis)) {
        const served = data.results.some((r) => r.engine === engine && r.version === version && r.api === api && r.status !== "not-served");
        out.push({ index: out.length, engine, version, api, served });
      }
    }
  }
  return out;
}

/** The class's label and the codes: "fail (error) (text-dropped)". */
export function describe(c: Cell, labels: Record<string, string>): string {
  return `${labels[c.cls] ?? c.cls}${c.codes.length ? ` (${c.codes.join(", ")})` : ""}`;
}

/** Walking each engine's versions in order, mark a cell whose result (pass or fail, and the codes) differs from the previous version's. */
export function markChanges(cells: Cell[], versions: Record<string, string[]>, labels: Record<string, string>): void {
  const by = new Map<string, Map<string, Cell>>();
  for (const c of cells) {
    const key = JSON.stringify([c.case, c.engine, c.api]);
    if (!by.has(key)) by.set(key, new Map());
    by.get(key)!.set(c.version, c);
  }
  for (const of of by.values()) {
    const engine = of.values().next().value!.engine;
    let prev: Cell | undefined;
    for (const v of versions[engine] ?? []) {
      const now = of.get(v);
      if (!now) continue;
      if (prev && (bucket(prev.status) !== bucket(now.status) || prev.codes.join(" ") !== now.codes.join(" "))) {
        const [before, after] = [bucket(prev.status), bucket(now.status)];
        now.change = before === "fail" && after === "pass" ? "fixed" : before === "pass" && after === "fail" ? "broke" : "changed";
        now.was = `${prev.version}: ${describe(prev, labels)}`;
      }
      prev = now;
    }
  }
}

/** Everything the page draws, from its data. */
export function buildModel(data: MatrixData): Model {
  const labels = Object.fromEntries(data.classes.map((c) => [c.cls, c.label]));
  const columns = columnsOf(data);
  const colOf = new Map(columns.map((c) => [`${c.engine}\u0000${c.version}\u0000${c.api}`, c.index]));
  const cells: Cell[] = data.results.map((r: Result) => ({
    ...r, col: colOf.get(`${r.engine}\u0000${r.version}\u0000${r.api}`) ?? -1, cls: cellClass(r.status, r.severity), change: "", was: "",
  }));
  markChanges(cells, data.versions, labels);
  const families = [...new Set(data.cases.map((c) => c.family))];
  const byCase = new Map<string, Map<number, Cell>>();
  for (const c of cells) {
    if (!byCase.has(c.case)) byCase.set(c.case, new Map());
    byCase.get(c.case)!.set(c.col, c);
  }
  const rows: Row[] = families.flatMap((f) => data.cases.filter((c) => c.family === f).map((c) => {
    const mine = byCase.get(c.id) ?? new Map<number, Cell>();
    return { ...c, cells: mine, changes: [...mine.values()].filter((x) => x.change).length };
  }));
  const counts = Object.fromEntries(data.classes.map((k) => [k.cls, cells.filter((c) => c.cls === k.cls).length]));
  const changes = { fixed: 0, broke: 0, changed: 0 };
  for (const c of cells) if (c.change) changes[c.change] += 1;
  const multiVersion = Object.values(data.versions).some((vs) => vs.length > 1);
  return { data, columns, cells, rows, families, counts, changes, multiVersion };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The summary line: results, cases by columns, each class's count; across versions, each change's; results given twice. */
export function summaryText(m: Model): string {
  let text = `${m.cells.length} results, ${m.data.cases.length} cases × ${m.columns.length} columns: `
    + m.data.classes.map((k) => `${m.counts[k.cls]} ${k.label}`).join(", ");
  const kinds = knownKindCounts(m).filter(([, , n]) => n > 0);
  if (kinds.length) text += "; triaged failures: " + kinds.map(([, label, n]) => `${n} ${label}`).join(", ");
  if (m.multiVersion) text += "; across versions: " + (Object.keys(CHANGES) as Array<keyof typeof CHANGES>).map((k) => `${m.changes[k]} ${k}`).join(", ");
  if (m.data.twice) text += `; ${plural(m.data.twice, "result")} given twice (the later report's kept)`;
  return text + ".";
}

/** How many failing cells carry each triage kind (a known divergence's kind), in the data's order. */
export function knownKindCounts(m: Model): Array<[string, string, number]> {
  return (m.data.knownKinds ?? []).map((k) => [k.kind, k.label, m.cells.filter((c) => c.knownKind === k.kind).length]);
}

export interface LevelRate { engine: string; version: string; level: string; passing: number; served: number }

/** The pass rate per engine, version and level: passing (pass, fixed) of the results served, as the column totals count. */
export function levelRates(m: Model): LevelRate[] {
  const levelOf = new Map(m.rows.map((r) => [r.id, r.level ?? ""]));
  const out = new Map<string, LevelRate>();
  for (const engine of m.data.engines) {
    for (const version of m.data.versions[engine] ?? []) {
      for (const level of [...(m.data.levels ?? []), ""]) out.set(`${engine}\u0000${version}\u0000${level}`, { engine, version, level, passing: 0, served: 0 });
    }
  }
  for (const c of m.cells) {
    if (c.status === "not-served") continue;
    const r = out.get(`${c.engine}\u0000${c.version}\u0000${c.level || levelOf.get(c.case) || ""}`);
    if (!r) continue;
    r.served += 1;
    if (PASSING.has(c.status)) r.passing += 1;
  }
  return [...out.values()].filter((r) => r.served > 0);
}

/** A rate in words: "40/52 (77%)". */
export function rateText(passing: number, served: number): string {
  return `${passing}/${served}` + (served ? ` (${Math.round((100 * passing) / served)}%)` : "");
}

/** The line that names the reports' engines. */
export function enginesText(data: MatrixData): string {
  return `${plural(data.reports, "report")}: ${data.engineLines.join(", ") || "no engine"}.`;
}

/** A cell's tooltip: where it is, what it says, what changed, then the result's own lines and what a click does. */
export function tooltip(c: Cell, labels: Record<string, string>): string {
  const lines = [`${c.case} · ${c.engine} ${c.version} · ${c.api}`, describe(c, labels)];
  if (c.change) lines.push(`${CHANGES[c.change][1]} ${c.version}; was ${c.was}`);
  if (c.level) lines.push(`level: ${c.level}`);
  if (c.knownKind) lines.push(`triage: ${c.knownKind}`);
  lines.push(...c.details);
  if (c.href) lines.push(c.api !== "prompt" ? "click: the replay, at this engine and API" : "click: the replay of this prompt check");
  return lines.join("\n");
}
