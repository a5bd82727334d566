// The published conformance site's data, as harmony_viz.conformance._site writes each page's JSON island.

export interface Rate { passing: number; served: number; rate: number | null }

export interface KnownKindInfo { kind: string; label: string; what: string }

/** One engine and version: its rates per level and family, the triaged failures counted by kind. */
export interface EngineRow {
  engine: string;
  version: string;
  slug: string;
  apis: string[];
  levels: Record<string, Rate>;
  families: Record<string, Rate>;
  all: Rate;
  kinds: Record<string, number>;
}

/** One result: a case through one engine, version and API. */
export interface SiteResult {
  case: string;
  engine: string;
  version: string;
  api: string;
  status: string;
  codes: string[];
  level: string;
  knownKind: string;
  family: string;
  reason: string;
  link: string;
  draft: string;  // a bug's report, drafted where none exists upstream yet
  error: string;
}

export interface CaseRef { id: string; slug: string; level: string; family?: string; description?: string; rules?: string[] }

export interface CaseFull extends CaseRef {
  kind: string;
  description: string;
  rules: string[];
  provenance: string;
  stream: string;
  request: Record<string, unknown>;
  replay: boolean;
}

export interface Rule { id: string; level: string; text: string; source: string }

interface Common {
  generator: string;
  root: string;  // the way back to the site's top from this page: "" or "../"
  levels: string[];
  knownKinds: KnownKindInfo[];
  engines: Array<{ engine: string; version: string; slug: string }>;
}

export interface IndexPage extends Common {
  page: "index";
  families: string[];
  sources: string[];
  notes: string[];
  engineRows: EngineRow[];
  cases: CaseRef[];
  failures: SiteResult[];  // the must-level failures, each linked to its case
}

export interface EnginePage extends Common { page: "engine"; row: EngineRow; families: string[]; results: SiteResult[]; cases: CaseRef[] }

export interface CasePage extends Common { page: "case"; case: CaseFull; results: SiteResult[]; rules: Rule[]; unknownRules: string[] }

export interface RulesPage extends Common { page: "rules"; rules: Rule[]; cases: CaseRef[] }

export type SitePage = IndexPage | EnginePage | CasePage | RulesPage;
