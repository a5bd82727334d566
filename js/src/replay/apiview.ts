// The API view of a saved page: the objects a streaming client holds at a step, built in the
// browser from data Python wrote (harmony_viz/_replay/_api_view.py, ApiViews.page_data).
// Python decides every shape (the empty objects, each message's part with its body left
// open); this code only fills in the text streamed so far, the items' statuses and, at the
// last step, what the last chunk brings. Pure logic: checked equal to ApiViews.at at every
// step of real streams (tests/test_widget_js.py).
import type { TraceData } from "./trace";
import type { ApiMeta, ApiView } from "./types";

/** The placeholder Python puts where a message's body goes (harmony_viz.projections.BODY). */
export const BODY = "\u0000body\u0000";

function fill(value: unknown, body: string): unknown {
  if (value === BODY) return body;
  if (Array.isArray(value)) return value.map((v) => fill(v, body));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = fill(v, body);
    return out;
  }
  return value;
}

/** JSON as Python's json.dumps writes it by default (", " and ": ", non-ASCII escaped). */
export function pyDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (typeof value === "number" || typeof value === "boolean") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pyDumps).join(", ")}]`;
  return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pyDumps(k)}: ${pyDumps(v)}`).join(", ")}}`;
}

function pyStr(value: unknown): string {
  return typeof value === "string" ? value : value === null || value === undefined ? "" : pyDumps(value);
}

/** A web search call's action from its arguments (mirrors projections._responses._search_action). */
export function searchAction(verb: string, args: unknown): Record<string, unknown> {
  const a = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const get = (k: string, fallback: unknown): unknown => (k in a ? a[k] : fallback);
  if (verb === "open") {
    const url = get("url", a.id);
    return { type: "open_page", url: typeof url === "string" ? url : null };
  }
  if (verb === "find") return { type: "find_in_page", pattern: pyStr(a.pattern), url: pyStr(get("url", a.cursor)) };
  return { type: "search", query: pyStr(a.query) };
}

function parseJson(text: string): unknown {
  try { return JSON.parse(text); } catch { return null; }
}

/** Message texts as last built, per trace: a step forward only appends the new deltas (a long message is not joined again). */
const built = new WeakMap<TraceData, Map<number, { n: number; text: string }>>();

function textUntil(d: TraceData, mi: number, k: number): string {
  let texts = built.get(d);
  if (!texts) { texts = new Map(); built.set(d, texts); }
  const n = d.deltasUntil(mi, k);
  const last = texts.get(mi);
  const from = last && last.n <= n ? last : { n: 0, text: "" };
  if (from.n === n) return from.text;
  const list = d.messageDeltas[mi];
  const parts = [from.text];
  for (let i = from.n; i < n; i++) parts.push(d.deltaText(list[i]));
  const text = parts.join("");
  texts.set(mi, { n, text });
  return text;
}

interface TurnMessage {
  mi: number;
  text: string;
  body: string;
  terminator: string | null;
  parsed: unknown;
}

/** The assistant messages of the turn on show at step k (a message from anyone else starts a new turn). */
function turnAt(d: TraceData, k: number, final: boolean): TurnMessage[] {
  const api = d.api!;
  let lo = 0, hi = d.messages.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (d.messageStepStarted[mid] <= k) lo = mid + 1; else hi = mid; }
  const out: TurnMessage[] = [];
  if (lo === 0) return out;
  const turn = api.turn[lo - 1];
  for (let mi = lo - 1; mi >= 0 && api.turn[mi] === turn; mi--) {
    if (api.position[mi] < 0) continue;
    const m = d.messages[mi];
    const text = textUntil(d, mi, k);
    const callDone = api.call_step[mi] >= 0 && api.call_step[mi] <= k;
    const ended = m.step_ended !== null && m.step_ended <= k;
    out.push({
      mi, text,
      body: callDone && m.arguments !== null ? m.arguments : text,
      terminator: ended ? m.terminator : final ? "eos" : null,
      parsed: callDone ? m.parsed : null,
    });
  }
  return out.reverse();
}

function status(terminator: string | null): string {
  return terminator === null ? "in_progress" : terminator === "eos" ? "incomplete" : "completed";
}

/** The views at step k, as ApiViews.at(k) gives them in Python. */
export function apiViewAt(d: TraceData, k: number): ApiView {
  const meta = d.meta.api as ApiMeta;
  if (meta.error) return { step: k, views: {}, error: meta.error };
  const final = k === d.nSteps - 1;
  const turn = turnAt(d, k, final);
  const views: Record<string, unknown> = {};
  for (const f of meta.flavours) {
    const obj = structuredClone(meta.shells[f.name]) as Record<string, unknown>;
    const ending = meta.finals[f.name];
    const parts = turn.map((t) => meta.parts[(f.legacy ? d.api!.part1 : d.api!.part0)[t.mi]]);
    if (f.kind === "chat") {
      const fields: Record<string, string[]> = { content: [], reasoning_content: [] };
      const calls: unknown[] = [];
      turn.forEach((t, i) => {
        const p = parts[i];
        if (p.field !== null && t.text) fields[p.field].push(t.text);
        if (p.tool_call) calls.push(fill(p.tool_call, t.body));
      });
      const choice = (obj.choices as Array<Record<string, unknown>>)[0];
      const message = choice.message as Record<string, unknown>;
      for (const key of Object.keys(message)) {
        if (key === "content") message[key] = fields.content.join("\n") || null;
        else if (key.startsWith("reasoning")) message[key] = fields.reasoning_content.join("\n") || null;
        else if (key === "tool_calls") message[key] = calls.length ? calls : null;
      }
      choice.finish_reason = final ? ending.finish_reason : null;
    } else {
      obj.output = turn.map((t, i) => {
        const item = fill(parts[i].item, t.body) as Record<string, unknown>;
        item.status = status(t.terminator);
        if (parts[i].type === "web_search_call") {
          const verb = String((item.action as Record<string, unknown>).verb ?? "");
          // as Python's build_item: a client learns a search's action only when the item is done
          const args = t.terminator === null ? null : t.parsed !== null && t.parsed !== undefined ? t.parsed : parseJson(t.body);
          item.action = searchAction(verb, args);
        }
        return item;
      });
      if (final) { obj.status = ending.status; obj.incomplete_details = ending.incomplete_details; }
    }
    obj.usage = final ? ending.usage : null;
    views[f.name] = obj;
  }
  return { step: k, views };
}
