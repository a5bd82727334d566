// Pure helpers of the playground (no DOM): editing the message list, mapping tokens, reading ids.
import type { DiagnosticDict, DiffOp, MessageDict, StreamMessage, TemplateDifference } from "./types";

export const ROLES = ["system", "developer", "user", "assistant", "tool"] as const;
export const EFFORTS = ["Low", "Medium", "High"] as const;

export function clone<T>(x: T): T { return JSON.parse(JSON.stringify(x)) as T; }

/** A fresh message for the "add" menu: structured content for system and developer, text otherwise. */
export function newMessage(role: string): MessageDict {
  if (role === "system") {
    return { role, name: null, content: [{ reasoning_effort: "Medium", knowledge_cutoff: "2024-06",
      model_identity: "You are ChatGPT, a large language model trained by OpenAI.",
      channel_config: { valid_channels: ["analysis", "commentary", "final"], channel_required: true }, type: "system_content" }] };
  }
  if (role === "developer") return { role, name: null, content: [{ instructions: "", type: "developer_content" }] };
  if (role === "tool") return { role, name: "functions.my_tool", content: [{ type: "text", text: "" }], channel: "commentary", recipient: "assistant" };
  if (role === "assistant") return { role, name: null, content: [{ type: "text", text: "" }], channel: "final" };
  return { role, name: null, content: [{ type: "text", text: "" }] };
}

/** The list with message i moved by `by` places (clamped); a new array. */
export function moveMessage(msgs: MessageDict[], i: number, by: number): MessageDict[] {
  const j = Math.max(0, Math.min(msgs.length - 1, i + by));
  const out = msgs.slice();
  const [m] = out.splice(i, 1);
  out.splice(j, 0, m);
  return out;
}

export function removeMessage(msgs: MessageDict[], i: number): MessageDict[] {
  return msgs.filter((_, k) => k !== i);
}

/** Set a header field; an empty string removes an optional one (channel, recipient, content type, name). */
export function setHeader(m: MessageDict, field: "name" | "channel" | "recipient" | "content_type", value: string): MessageDict {
  const out = clone(m);
  if (field === "name") out.name = value === "" ? null : value;
  else if (value === "") delete out[field];
  else out[field] = value;
  return out;
}

/** Index into `messages` of the message token t belongs to, or -1. Messages are sorted by start. */
export function messageOfToken(messages: StreamMessage[], t: number): number {
  let lo = 0, hi = messages.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (messages[mid].start <= t) { found = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return found >= 0 && t < messages[found].end ? found : -1;
}

/** Per token, the worst diagnostic severity covering it (0 none, 1 info, 2 warning, 3 error); an empty span marks its start token. */
export function diagnosticMarks(n: number, diags: DiagnosticDict[]): Uint8Array {
  const rank = { info: 1, warning: 2, error: 3 } as const;
  const out = new Uint8Array(n);
  for (const d of diags) {
    const a = Math.max(0, Math.min(n - 1, d.start));
    const b = Math.min(n, Math.max(d.end, a + 1));
    for (let t = a; t < b; t++) out[t] = Math.max(out[t], rank[d.severity] ?? 1);
  }
  return out;
}

/** Token ids from what the user typed (a JSON list, or ids split by spaces/commas); throws with a sentence. */
export function parseIds(text: string): number[] {
  const s = text.trim();
  let value: unknown;
  if (s.startsWith("[")) {
    try { value = JSON.parse(s); } catch (e) { throw new Error(`not a JSON list of ids: ${(e as Error).message}; write e.g. [200006, 1428]`); }
  } else value = s === "" ? [] : s.split(/[\s,]+/).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (!Array.isArray(value)) throw new Error("token ids must be a list, e.g. [200006, 1428]");
  value.forEach((v, i) => {
    if (typeof v !== "number" || !Number.isInteger(v)) throw new Error(`token ${i} is ${JSON.stringify(v)}, not an integer id`);
  });
  return value as number[];
}

/** Per token of each side, its diff state: "equal", "delete"/"insert" or "replace". */
export function diffStates(ops: DiffOp[], nRef: number, nModel: number): { ref: string[]; model: string[] } {
  const ref = new Array<string>(nRef).fill("equal");
  const model = new Array<string>(nModel).fill("equal");
  for (const op of ops) {
    for (let i = op.ref[0]; i < op.ref[1]; i++) ref[i] = op.tag;
    for (let j = op.model[0]; j < op.model[1]; j++) model[j] = op.tag;
  }
  return { ref, model };
}

/** What a diff side draws: runs of tokens to show, and long unchanged runs folded to a count (keeping `context` tokens around changes). */
export function diffRuns(states: string[], context: number): Array<{ start: number; end: number; folded: boolean }> {
  const out: Array<{ start: number; end: number; folded: boolean }> = [];
  const push = (start: number, end: number, folded: boolean) => {
    if (end <= start) return;
    const last = out[out.length - 1];
    if (last && last.folded === folded && last.end === start) last.end = end; else out.push({ start, end, folded });
  };
  let t = 0;
  while (t < states.length) {
    if (states[t] !== "equal") { push(t, t + 1, false); t++; continue; }
    let e = t;
    while (e < states.length && states[e] === "equal") e++;
    const keepBefore = t === 0 ? 0 : context, keepAfter = e === states.length ? 0 : context;
    if (e - t > keepBefore + keepAfter + 3) {
      push(t, t + keepBefore, false);
      push(t + keepBefore, e - keepAfter, true);
      push(e - keepAfter, e, false);
    } else push(t, e, false);
    t = e;
  }
  return out;
}

/** Per token of one side, the codes of the template differences whose span on that side covers it. */
export function codeMarks(diffs: TemplateDifference[], n: number, which: "ours" | "template"): string[][] {
  const out: string[][] = Array.from({ length: n }, () => []);
  for (const d of diffs) {
    const span = which === "ours" ? d.ours_span : d.template_span;
    if (!span) continue;
    for (let t = Math.max(0, span[0]); t < Math.min(n, span[1]); t++) if (!out[t].includes(d.code)) out[t].push(d.code);
  }
  return out;
}
