// The conformance matrix page's data, as harmony_viz.conformance._page.matrix_data writes it into the page.

export type Status = "pass" | "fail" | "known" | "fixed" | "not-served" | "error";
export type Change = "" | "fixed" | "broke" | "changed";

/** A cell class (a status, a failure split by its worst severity), in the legend's order. */
export interface MatrixClass { cls: string; symbol: string; label: string; what: string }

/** One result: a case through one engine, version and API, as a report said it. */
export interface Result {
  case: string;
  engine: string;
  version: string;
  api: string;
  status: Status;
  codes: string[];
  severity: string;  // the worst finding's, "" for none
  href: string;  // the replay it opens, "" for none
  details: string[];  // its tooltip's lines: reason, findings, server error, link
  level?: string;  // the case's level: must, should or may ("" unrated)
  knownKind?: string;  // a failure's triage: bug, intentional, research-needed ("" none)
}

/** A known divergence's kind, in the legend's order. */
export interface KnownKindInfo { kind: string; label: string; what: string }

export interface CaseInfo { id: string; family: string; kind: string; description: string; level?: string }

export interface MatrixData {
  title: string;
  reports: number;
  engineLines: string[];
  notes: string[];
  live: boolean;  // a live run's page (replays written), not saved reports merged
  classes: MatrixClass[];
  engines: string[];  // in the registry's order
  versions: Record<string, string[]>;  // each engine's, in version order
  versionTitles: Record<string, Record<string, string>>;
  apis: string[];  // the preferred order of the API columns
  cases: CaseInfo[];
  results: Result[];  // one per case, engine, version and API
  twice: number;  // results given twice (the later report's kept)
  levels?: string[];  // must, should, may: the strictest first
  knownKinds?: KnownKindInfo[];
}

export interface Column { index: number; engine: string; version: string; api: string; served: boolean }

export interface Cell extends Result { col: number; cls: string; change: Change; was: string }

export interface Row extends CaseInfo { cells: Map<number, Cell>; changes: number }

export interface Model {
  data: MatrixData;
  columns: Column[];
  cells: Cell[];
  rows: Row[];  // grouped by family, each family's in the order first seen
  families: string[];
  counts: Record<string, number>;  // by cell class
  changes: Record<"fixed" | "broke" | "changed", number>;
  multiVersion: boolean;
}

/** What the filters ask: the checked values of each group and the switches. */
export interface FilterState {
  families: Set<string>;
  classes: Set<string>;
  engines: Set<string>;
  apis: Set<string>;
  text: string;
  hideUnserved: boolean;
  onlyChanged: boolean;
  levels?: Set<string>;  // the case levels shown (absent: every level)
}

/** What the filters show: each column and row, each cell's match, each column's passing / served in the rows shown. */
export interface Shown {
  columns: boolean[];
  rows: boolean[];
  match: Map<Cell, boolean>;
  totals: Array<[number, number]>;
  count: number;
}
