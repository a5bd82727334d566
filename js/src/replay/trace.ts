// The trace as the browser holds it: columns decoded once, then cheap lookups per step.
// Pure logic, no DOM: unit-tested under node.
import { Fates, Logprobs, readFloats } from "./chips";
import { Findings } from "./findings";
import type { ColumnDescriptor, MessageMeta, RawEvent, ShownEvent, SpecialInfo, TraceMeta } from "./types";

/** The payload layout this code reads; harmony_viz/trace/_payload.py writes the same number. */
export const FORMAT_VERSION = 4;

const SIZES: Record<string, number> = { u1: 1, i1: 1, u2: 2, i2: 2, u4: 4, i4: 4 };

/** Read one column out of the buffer into a fresh Int32Array (or Uint8Array for raw bytes), undoing delta coding. */
export function readColumn(view: DataView, c: ColumnDescriptor): Int32Array {
  const out = new Int32Array(c.length);
  const size = SIZES[c.dtype];
  if (size === undefined) throw new Error(`unknown column type ${c.dtype} in column ${c.name}`);
  let pos = c.offset;
  for (let i = 0; i < c.length; i++, pos += size) {
    switch (c.dtype) {
      case "u1": out[i] = view.getUint8(pos); break;
      case "i1": out[i] = view.getInt8(pos); break;
      case "u2": out[i] = view.getUint16(pos, true); break;
      case "i2": out[i] = view.getInt16(pos, true); break;
      case "u4": out[i] = view.getUint32(pos, true); break;
      case "i4": out[i] = view.getInt32(pos, true); break;
    }
  }
  if (c.delta) for (let i = 1; i < out.length; i++) out[i] += out[i - 1];
  return out;
}

export function readBytes(view: DataView, c: ColumnDescriptor): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset + c.offset, c.length);
}

/** Index of the last element <= x in a sorted array, or -1. */
export function lastAtMost(arr: ArrayLike<number>, x: number): number {
  let lo = 0, hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (arr[mid] <= x) lo = mid + 1; else hi = mid;
  }
  return lo - 1;
}

const decoder = new TextDecoder("utf-8");
const strict = new TextDecoder("utf-8", { fatal: true });

export function isCompleteUtf8(bytes: Uint8Array): boolean {
  try { strict.decode(bytes); return true; } catch { return false; }
}

export class TraceData {
  readonly meta: TraceMeta;
  readonly nTokens: number;
  readonly nSteps: number;
  readonly ids: Int32Array;
  readonly stepEnds: Int32Array;
  /** per-token index into the vocabulary table */
  readonly vocabIndex: Int32Array;
  readonly vocabText: string[];
  readonly vocabBytes: Uint8Array[];
  readonly vocabComplete: boolean[];
  readonly tokenChars: Int32Array | null;
  readonly text: string | null;
  /** the text as code points: Python counts characters, JS strings count UTF-16 units */
  private chars: string[] | null;
  readonly deltaStep: Int32Array;
  readonly deltaMessage: Int32Array;
  readonly deltaStart: Int32Array;
  readonly deltaEnd: Int32Array;
  /** deltas of step s are deltaByStep[s] .. deltaByStep[s+1] */
  readonly deltaByStep: Int32Array;
  readonly eventStep: Int32Array;
  readonly eventAfter: Int32Array;
  private eventCols: Record<string, Int32Array>;
  private extras: Array<Record<string, unknown>>;
  /** rare events of step s are eventStep-indices rareByStep[s] .. rareByStep[s+1] */
  readonly rareByStep: Int32Array;
  readonly diagnosticEvents: Int32Array;
  readonly messages: MessageMeta[];
  readonly messageStarts: Int32Array;
  /** per message (by position in `messages`), its delta indices in order */
  readonly messageDeltas: Int32Array[];
  private snap: Record<string, { steps: Int32Array; values: Int32Array; kind: string }>;
  /** a saved page's API view columns, per message (see apiview.ts), or null */
  readonly api: Record<"turn" | "position" | "call_step" | "part0" | "part1", Int32Array> | null;
  readonly messageStepStarted: Int32Array;
  /** every finding of the stream (scanner, lints, server and prompt lenses), placed on its tokens */
  readonly findings: Findings;
  /** what each server check's answer made of every token (none without a server lens) */
  readonly fates: Fates;
  /** the model's log-prob of each token and its alternatives (`present` false when the stream has none) */
  readonly logprobs: Logprobs;

  constructor(meta: TraceMeta, view: DataView) {
    if (meta.version !== FORMAT_VERSION) {
      throw new Error(`trace format ${meta.version} but this frontend reads ${FORMAT_VERSION}; rebuild the frontend (npm run build in js/) or reinstall harmony-viz`);
    }
    this.meta = meta;
    const byName = new Map(meta.columns.map((c) => [c.name, c]));
    const col = (name: string): Int32Array => {
      const c = byName.get(name);
      if (!c) throw new Error(`trace payload lacks column ${name}; rebuild the trace with this version of harmony_viz`);
      return readColumn(view, c);
    };
    const bytes = (name: string): Uint8Array => readBytes(view, byName.get(name)!);
    const vocabIds = col("vocab_ids");
    [this.vocabBytes, this.vocabText, this.vocabComplete] = readVocabulary(vocabIds.length, col("vocab_offsets"), bytes("vocab_bytes"));
    this.vocabIndex = col("tokens");
    this.nTokens = this.vocabIndex.length;
    this.ids = new Int32Array(this.nTokens);
    for (let t = 0; t < this.nTokens; t++) this.ids[t] = vocabIds[this.vocabIndex[t]];
    this.stepEnds = col("step_ends");
    this.nSteps = this.stepEnds.length;
    this.tokenChars = byName.has("token_chars") ? col("token_chars") : null;
    this.text = this.tokenChars ? this.unitTextTokens(0, this.nTokens) : null;
    this.chars = this.text === null ? null : Array.from(this.text);

    this.deltaStep = col("delta.step");
    this.deltaMessage = col("delta.message");
    [this.deltaStart, this.deltaEnd] = deltaSpans(col("delta.gap"), col("delta.len"));
    this.deltaByStep = offsetsByStep(this.deltaStep, this.nSteps);

    this.eventStep = col("event.step");
    this.eventAfter = col("event.after");
    this.eventCols = { type: col("event.type"), message: col("event.message"), start: col("event.start"), len: col("event.len"), extra: col("event.extra") };
    this.extras = meta.event_extras.map((x) => JSON.parse(x) as Record<string, unknown>);
    this.rareByStep = offsetsByStep(this.eventStep, this.nSteps);
    const diagType = meta.event_types.indexOf("Diagnostic");
    this.diagnosticEvents = Int32Array.from(this.eventCols.type.keys()).filter((j) => this.eventCols.type[j] === diagType);

    this.messages = readMessages(meta, col);
    this.messageStarts = Int32Array.from(this.messages.map((m) => m.t_start));
    this.messageDeltas = deltasByMessage(this.messages, this.deltaMessage);

    this.messageStepStarted = Int32Array.from(this.messages.map((m) => m.step_started));
    this.api = meta.api ? { turn: col("api.turn"), position: col("api.position"), call_step: col("api.call_step"), part0: col("api.part.0"), part1: col("api.part.1") } : null;

    this.snap = {};
    for (const [f, kind] of Object.entries(meta.snapshot_fields)) {
      if (kind === "fed") continue;
      this.snap[f] = { steps: col(`snap.${f}.step`), values: col(`snap.${f}.value`), kind };
    }
    this.findings = new Findings(meta.findings, col, this.nTokens);
    this.fates = new Fates(meta.fates, col, this.nTokens);
    this.logprobs = new Logprobs(meta.logprobs, col, (name) => readFloats(view, byName.get(name)!));
  }

  tokenText(t: number): string { return this.vocabText[this.vocabIndex[t]]; }
  tokenBytes(t: number): Uint8Array { return this.vocabBytes[this.vocabIndex[t]]; }
  special(t: number): string | null { return this.meta.specials[String(this.ids[t])] ?? null; }
  /** A special token's kind and what it does in the format, or null for an ordinary token. */
  specialInfo(t: number): SpecialInfo | null { return this.meta.special_info?.[String(this.ids[t])] ?? null; }

  /** Position in the scanner's unit where token t starts. */
  unitOfToken(t: number): number { return this.tokenChars ? this.tokenChars[t] : t; }

  /** The token containing unit position u (the token itself for token units). */
  tokenOfUnit(u: number): number {
    if (!this.tokenChars) return u;
    return Math.max(0, lastAtMost(this.tokenChars, u));
  }

  /** Tokens fully fed after step s, and how many are at least partly fed (text chunkings cut inside tokens). */
  fedAt(s: number): { full: number; partial: number } {
    const end = this.stepEnds[Math.max(0, Math.min(s, this.nSteps - 1))];
    if (!this.tokenChars) return { full: end, partial: end };
    const full = Math.min(this.nTokens, Math.max(0, lastAtMost(this.tokenChars, end)));
    const partial = full < this.nTokens && this.tokenChars[full] < end ? full + 1 : full;
    return { full, partial };
  }

  /** Step at which token t was (fully) fed. */
  stepOfToken(t: number): number {
    const u = this.tokenChars ? this.tokenChars[t + 1] : t + 1;
    let lo = 0, hi = this.nSteps - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.stepEnds[mid] >= u) hi = mid; else lo = mid + 1;
    }
    return lo;
  }

  /** The message token t belongs to, or null. */
  messageOfToken(t: number): MessageMeta | null {
    const i = lastAtMost(this.messageStarts, t);
    if (i < 0) return null;
    const m = this.messages[i];
    if (t >= m.t_start && t < m.t_end) return m;
    return null;
  }

  unitText(a: number, b: number): string {
    if (this.chars !== null) return this.chars.slice(a, b).join("");
    return this.unitTextTokens(a, b);
  }

  /** Decoded text of tokens [a, b), whatever the unit. */
  unitTextTokens(a: number, b: number): string {
    let size = 0;
    for (let t = a; t < b; t++) size += this.tokenBytes(t).length;
    const buf = new Uint8Array(size);
    let pos = 0;
    for (let t = a; t < b; t++) { const tb = this.tokenBytes(t); buf.set(tb, pos); pos += tb.length; }
    return decoder.decode(buf);
  }

  deltaText(i: number): string {
    const o = this.meta.overrides[String(i)];
    return o !== undefined ? o : this.unitText(this.deltaStart[i], this.deltaEnd[i]);
  }

  private shownDelta(i: number): ShownEvent {
    return { step: this.deltaStep[i], type: "ContentDelta", message: this.deltaMessage[i], start: this.deltaStart[i],
      end: this.deltaEnd[i], text: this.deltaText(i) };
  }

  /** Non-delta event j, rebuilt from its columns and interned fields. */
  rareEvent(j: number): RawEvent {
    const c = this.eventCols;
    const x = c.extra[j] >= 0 ? this.extras[c.extra[j]] : {};
    const e: RawEvent = { type: this.meta.event_types[c.type[j]], start: c.start[j], end: c.start[j] + c.len[j], ...x };
    if (c.message[j] >= 0) e.message = c.message[j];
    return e;
  }

  private shownRare(j: number): ShownEvent {
    const e = this.rareEvent(j);
    return { step: this.eventStep[j], type: e.type, message: typeof e.message === "number" ? e.message : -1, start: e.start, end: e.end, raw: e };
  }

  /** Events of steps [from, to], deltas and the rest interleaved in scanner order; at most `limit`, the latest kept. */
  eventsBetween(from: number, to: number, limit: number): { events: ShownEvent[]; skipped: number } {
    from = Math.max(0, from); to = Math.min(this.nSteps - 1, to);
    if (to < from) return { events: [], skipped: 0 };
    let d0 = this.deltaByStep[from], d1 = this.deltaByStep[to + 1];
    let r0 = this.rareByStep[from], r1 = this.rareByStep[to + 1];
    const total = d1 - d0 + r1 - r0;
    const skipped = Math.max(0, total - limit);
    // walk back from the end, so only `limit` events are materialised
    const out: ShownEvent[] = [];
    let d = d1 - 1, r = r1 - 1;
    while (out.length < limit && (d >= d0 || r >= r0)) {
      // a rare event placed after k deltas comes after delta k-1
      if (r >= r0 && (d < d0 || this.eventAfter[r] > d)) { out.push(this.shownRare(r)); r--; }
      else { out.push(this.shownDelta(d)); d--; }
    }
    out.reverse();
    return { events: out, skipped };
  }

  /** The value of snapshot field `name` after step s. */
  snapshotField(name: string, s: number): unknown {
    const kind = this.meta.snapshot_fields[name];
    if (kind === undefined) return undefined;
    if (kind === "fed") return this.stepEnds[s];
    const { steps, values } = this.snap[name];
    const i = lastAtMost(steps, s);
    if (i < 0) return undefined;
    const v = values[i];
    return kind === "str" ? (v < 0 ? null : this.meta.strings[v]) : v;
  }

  /** How many deltas of message mi (its position in `messages`) arrived up to step s. */
  deltasUntil(mi: number, s: number): number {
    const list = this.messageDeltas[mi];
    let lo = 0, hi = list.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (this.deltaStep[list[mid]] <= s) lo = mid + 1; else hi = mid; }
    return lo;
  }

  /** Body text of message m (its index in `messages`) as streamed up to step s: the last `maxChars`, and whether more came before. */
  contentAt(mi: number, s: number, maxChars: number): { text: string; truncated: boolean; deltas: number } {
    const list = this.messageDeltas[mi];
    let lo = 0, hi = list.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (this.deltaStep[list[mid]] <= s) lo = mid + 1; else hi = mid; }
    const parts: string[] = [];
    let size = 0, k = lo - 1;
    for (; k >= 0 && size < maxChars; k--) { const t = this.deltaText(list[k]); parts.push(t); size += t.length; }
    parts.reverse();
    let text = parts.join("");
    let truncated = k >= 0;
    if (text.length > maxChars) { text = text.slice(text.length - maxChars); truncated = true; }
    return { text, truncated, deltas: lo };
  }

  /** How many diagnostics were reported up to step s (they are in step order). */
  diagnosticCount(s: number): number {
    const ev = this.diagnosticEvents;
    let lo = 0, hi = ev.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (this.eventStep[ev[mid]] <= s) lo = mid + 1; else hi = mid; }
    return lo;
  }

  /** Token span [a, b) covered by a span in the scanner's unit. */
  tokenSpan(start: number, end: number): [number, number] {
    if (!this.tokenChars) return [start, Math.max(start, end)];
    const a = this.tokenOfUnit(start);
    const b = end > start ? this.tokenOfUnit(end - 1) + 1 : a;
    return [a, b];
  }

  /** The tokens forming the character group around token t (characters split across tokens), as [a, b). */
  charGroup(t: number): [number, number] {
    if (this.vocabComplete[this.vocabIndex[t]]) return [t, t + 1];
    let a = t;
    while (a > 0 && a > t - 4 && startsWithContinuation(this.tokenBytes(a)) && !this.vocabComplete[this.vocabIndex[a - 1]]) a--;
    for (let b = t + 1; b <= Math.min(this.nTokens, a + 8); b++) {
      if (b <= t) continue;
      let size = 0;
      for (let k = a; k < b; k++) size += this.tokenBytes(k).length;
      const buf = new Uint8Array(size); let pos = 0;
      for (let k = a; k < b; k++) { buf.set(this.tokenBytes(k), pos); pos += this.tokenBytes(k).length; }
      if (isCompleteUtf8(buf)) return [a, b];
    }
    return [t, t + 1];
  }
}

function startsWithContinuation(b: Uint8Array): boolean {
  return b.length > 0 && (b[0] & 0xc0) === 0x80;
}

/** The `n` distinct tokens' bytes, their text, and whether those bytes are whole UTF-8 characters. */
function readVocabulary(n: number, offsets: Int32Array, blob: Uint8Array): [Uint8Array[], string[], boolean[]] {
  const bytes: Uint8Array[] = [], text: string[] = [], complete: boolean[] = [];
  for (let i = 0; i < n; i++) {
    const b = blob.slice(offsets[i], offsets[i + 1]);
    bytes.push(b);
    text.push(decoder.decode(b));
    complete.push(isCompleteUtf8(b));
  }
  return [bytes, text, complete];
}

/** Each content delta's span (start, end), from the gap before it and its length, as the payload codes them. */
function deltaSpans(gap: Int32Array, len: Int32Array): [Int32Array, Int32Array] {
  const start = new Int32Array(gap.length), end = new Int32Array(gap.length);
  let prevEnd = 0;
  for (let i = 0; i < gap.length; i++) {
    start[i] = prevEnd + gap[i];
    end[i] = start[i] + len[i];
    prevEnd = end[i];
  }
  return [start, end];
}

/** The messages' records from their columns (-1 is null for an open message's end), each tool call's arguments beside it. */
function readMessages(meta: TraceMeta, col: (name: string) => Int32Array): MessageMeta[] {
  const mcols: Record<string, Int32Array> = {};
  for (const f of [...meta.message_fields.ints, ...meta.message_fields.strings]) mcols[f] = col(`message.${f}`);
  const nullable = (v: number) => (v < 0 ? null : v);
  const messages: MessageMeta[] = [];
  for (let i = 0; i < meta.n_messages; i++) {
    const m: Record<string, unknown> = {};
    for (const f of meta.message_fields.ints) m[f] = f === "end" || f === "step_ended" ? nullable(mcols[f][i]) : mcols[f][i];
    for (const f of meta.message_fields.strings) m[f] = mcols[f][i] < 0 ? null : meta.strings[mcols[f][i]];
    const call = meta.tool_calls[String(m.index)];
    m.arguments = call?.arguments ?? null;
    m.parsed = call?.parsed ?? null;
    m.arguments_error = call?.error ?? null;
    messages.push(m as unknown as MessageMeta);
  }
  return messages;
}

/** Per message (by position in `messages`), the indices of its deltas in order. */
function deltasByMessage(messages: MessageMeta[], deltaMessage: Int32Array): Int32Array[] {
  const position = new Map(messages.map((m, i) => [m.index, i]));
  const lists: number[][] = messages.map(() => []);
  for (let i = 0; i < deltaMessage.length; i++) {
    const p = position.get(deltaMessage[i]);
    if (p !== undefined) lists[p].push(i);
  }
  return lists.map((l) => Int32Array.from(l));
}

function offsetsByStep(stepOf: Int32Array, nSteps: number): Int32Array {
  const out = new Int32Array(nSteps + 1);
  for (let i = 0; i < stepOf.length; i++) out[stepOf[i] + 1]++;
  for (let s = 0; s < nSteps; s++) out[s + 1] += out[s];
  return out;
}
