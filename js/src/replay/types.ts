// The trace model as it travels from Python: one interface per trait group.
import type { TraitModel } from "../shared/model";

export interface ColumnDescriptor {
  name: string;
  /** f2 / f4: IEEE floats (the log-prob columns), read with readFloats */
  dtype: "u1" | "i1" | "u2" | "i2" | "u4" | "i4" | "f2" | "f4";
  offset: number;
  length: number;
  delta: boolean;
}

export interface MessageMeta {
  index: number;
  role: string | null;
  name: string | null;
  recipient: string | null;
  channel: string | null;
  content_type: string | null;
  kind: string;
  start: number;
  header_end: number;
  end: number | null;
  terminator: string | null;
  step_started: number;
  step_ended: number | null;
  call_id: string | null;
  tool_name: string | null;
  arguments: string | null;
  parsed: unknown;
  arguments_error: string | null;
  t_start: number;
  t_header_end: number;
  t_end: number;
}

export interface RawEvent {
  type: string;
  message?: number;
  start: number;
  end: number;
  [field: string]: unknown;
}

export interface TraceMeta {
  version: number;
  unit: "tokens" | "chars";
  chunking: string;
  n_tokens: number;
  n_steps: number;
  n_messages: number;
  columns: ColumnDescriptor[];
  /** interned strings; columns refer to them by index, -1 for null */
  strings: string[];
  event_types: string[];
  /** interned JSON objects of event-specific fields */
  event_extras: string[];
  message_fields: { ints: string[]; strings: string[] };
  snapshot_fields: Record<string, "str" | "int" | "fed">;
  /** delta index -> its text, where it differs from the text of its span */
  overrides: Record<string, string>;
  /** delta index -> its kind, where it differs from its message's */
  delta_kinds: Record<string, string>;
  tool_calls: Record<string, { arguments: string | null; parsed: unknown; error: string | null }>;
  specials: Record<string, string>;
  /** each special token of the stream: its kind and what it does in the format (harmony_viz.tokens.SENTENCES) */
  special_info: Record<string, SpecialInfo>;
  /** content kind -> visible / reasoning / call / other: the one visibility rule (scanner/_visibility.py) */
  visibility: Record<string, string>;
  /** the string tables of the finding.* columns (harmony_viz/trace/_payload.py) */
  findings: FindingsMeta;
  /** a saved page only: what the browser needs to build the API view at any step (see apiview.ts) */
  api?: ApiMeta;
  /** each server check's fate of every token (chips.ts; fate.I.* columns), null without a server lens */
  fates?: FatesMeta | null;
  /** the model's log-probs and alternatives (chips.ts; lp.* columns), null when the stream carries none */
  logprobs?: LogprobsMeta | null;
}

export interface SpecialInfo { kind: "structural" | "stop" | "reserved"; sentence: string }

/** The findings of a stream (every lens), beside their columns: finding.step/start/len/severity/source/code/message. */
export interface FindingsMeta {
  count: number;
  /** worst first: "error", "warning", "info" */
  severities: string[];
  /** "scanner", "lint", "server", "prompt" */
  sources: string[];
  codes: string[];
  messages: string[];
  /** what kept a lens from reporting (a lint that failed), or null */
  error: string | null;
}

/** One turn message's part of the API objects, its body left open (harmony_viz.projections.open_parts). */
export interface ApiPart {
  field: "content" | "reasoning_content" | null;
  tool_call: Record<string, unknown> | null;
  item: Record<string, unknown>;
  type: string;
}

/** The API view data of a saved page (harmony_viz/_replay/_api_view.py, ApiViews.page_data). */
export interface ApiMeta {
  flavours: Array<{ name: string; kind: "chat" | "responses"; legacy: boolean }>;
  /** each view at step 0: the objects to fill */
  shells: Record<string, Record<string, unknown>>;
  /** what only the last step has, per view: usage, finish_reason / status, incomplete_details */
  finals: Record<string, Record<string, unknown>>;
  parts: ApiPart[];
  error: string | null;
}

/** The API view at one step (apiview.ts builds it; ApiViews.at in Python gives the same). */
export interface ApiView {
  step?: number;
  views?: Record<string, unknown>;
  error?: string;
}

/** The synced traits (Python <-> browser). UI-only state (hover, scroll, play) stays in the view. */
export interface ReplayTraits {
  step: number;
  selected: number;
  chunking: string;
  chunkings: string[];
  error: string;
  _meta: TraceMeta;
  _columns: DataView;
  _live: boolean;
}

/** One event as shown in the panels. */
export interface ShownEvent {
  step: number;
  type: string;
  message: number;
  start: number;
  end: number;
  text?: string;
  raw?: RawEvent;
}

/** The replay widget's model: anywidget's, or the saved page's stand-in. */
export type ReplayModel = TraitModel<ReplayTraits>;

/** The fates meta entry: the code names (index 0: none) and, per server check, whether it has columns. */
export interface FatesMeta { codes: string[]; checks: boolean[] }

/** The log-probs meta entry: who reported them, the most alternatives a token has, the special tokens among them. */
export interface LogprobsMeta { source: string; k: number; reported: number; start: number; specials: Record<string, string> }
