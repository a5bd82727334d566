// The API view's "server" tab (server lens): the server's answer beside ours, and the
// discrepancies between them. Pure DOM building; the view supplies the jump-to-tokens action.
import { h, scrollRegion } from "../../shared/dom";
import type { DiffPayload } from "../../playground/types";

export interface ServerCall { name: string; arguments: string; kind: string }

export interface ServerAnswer {
  content: string;
  reasoning: string;
  reasoning_fields: string[];
  calls: ServerCall[];
  finish: string | null;
  reasoning_tokens: number | null;
}

export interface ServerDiscrepancy {
  code: string;
  severity: "error" | "warning" | "info";
  message: string;
  /** token span [start, end) in the replayed stream, or null */
  where: { start: number; end: number; message: number } | null;
}

export interface ServerCheck {
  file: string;
  /** "vllm", "llama.cpp", "sglang", or null when unknown */
  engine: string | null;
  /** how the replay differed from the request, e.g. tools not sent */
  notes: string[];
  api: string;
  replayed: boolean | null;
  error: string | null;
  answer: ServerAnswer | null;
  expected_answer: ServerAnswer | null;
  server: unknown;
  expected: unknown;
  discrepancies: ServerDiscrepancy[];
  /** the prompt lens: a capture's prompt against the format's (prompt-check), with its render diff */
  prompt?: PromptView | null;
}

export interface PromptView { identical: boolean; prompt_source: string; diff: DiffPayload | null; error: string | null }

/** The prompt check a trace payload carries: a replayed prompt check's own, or the first capture check's; null without. */
export function serverPrompt(meta: unknown): PromptView | null {
  const server = (meta as { server?: { prompt?: PromptView; checks?: ServerCheck[] } } | null)?.server;
  return server?.prompt ?? server?.checks?.find((c) => c.prompt)?.prompt ?? null;
}

/** The server checks a trace payload carries, or null when the trace is not from a server. */
export function serverChecks(meta: unknown): ServerCheck[] | null {
  const server = (meta as { server?: { checks?: ServerCheck[] } } | null)?.server;
  return server && Array.isArray(server.checks) ? server.checks : null;
}

function field(label: string, value: string | null, cls = ""): HTMLElement {
  const row = h("div", { class: `hv-srv-field ${cls}`.trim() });
  row.append(h("span", { class: "hv-srv-label" }, label));
  row.append(value ? scrollRegion(h("pre", { class: "hv-srv-text" }, value), label) : h("span", { class: "hv-empty" }, "none"));
  return row;
}

function answerColumn(title: string, a: ServerAnswer | null, side: string): HTMLElement {
  const col = h("div", { class: "hv-srv-col", "data-hv": `server-${side}` });
  col.append(h("div", { class: "hv-srv-title" }, title));
  if (!a) { col.append(h("div", { class: "hv-empty" }, "no answer")); return col; }
  col.append(field("content", a.content || null, "hv-srv-content"));
  const fieldName = a.reasoning_fields && a.reasoning_fields.length ? `reasoning (${a.reasoning_fields.join(", ")})` : "reasoning";
  col.append(field(fieldName, a.reasoning || null, "hv-srv-reasoning"));
  const calls = a.calls.map((c) => `${c.name}(${c.arguments})${c.kind !== "function" ? ` [${c.kind}]` : ""}`).join("\n");
  col.append(field("tool calls", calls || null, "hv-srv-calls"));
  col.append(field("finish", a.finish));
  if (a.reasoning_tokens !== null && a.reasoning_tokens !== undefined) col.append(field("reasoning tokens", String(a.reasoning_tokens)));
  return col;
}

function discrepancyList(check: ServerCheck, jump: (start: number, end: number) => void): HTMLElement {
  const list = h("div", { class: "hv-srv-discrepancies", "data-hv": "discrepancies" });
  if (check.discrepancies.length === 0) {
    list.append(h("div", { class: "hv-empty", "data-hv": "no-discrepancies" }, "no discrepancies"));
    return list;
  }
  for (const d of check.discrepancies) {
    const row = h("div", { class: `hv-diag hv-sev-${d.severity}`, "data-hv": "discrepancy", "data-code": d.code });
    row.append(h("span", { class: "hv-diag-sev" }, d.severity), h("code", {}, d.code), h("span", { class: "hv-diag-msg" }, d.message));
    if (d.where) {
      const where = d.where;
      row.append(h("a", { class: "hv-diag-span", href: "#", title: "show these tokens" }, `tokens [${where.start}, ${where.end})`));
      row.addEventListener("click", (ev) => { ev.preventDefault(); jump(where.start, where.end); });
    }
    list.append(row);
  }
  return list;
}

function raw(title: string, value: unknown): HTMLElement {
  const det = h("details", { class: "hv-srv-raw" });
  det.append(h("summary", {}, title), scrollRegion(h("pre", { class: "hv-json" }, JSON.stringify(value, null, 2)), title));
  return det;
}

/**
 * Draw the server tab into `body`: an engine selector when the checks come from several
 * engines, an api picker when that engine has several checks, both answers side by side,
 * the discrepancy list (always present), and the raw objects.
 */
export function renderServerPanel(body: HTMLElement, checks: ServerCheck[], chosen: number, choose: (i: number) => void,
  jump: (start: number, end: number) => void): void {
  const i = Math.max(0, Math.min(chosen, checks.length - 1));
  const panel = h("div", { class: "hv-srv", "data-hv": "server-panel" });
  const engineOf = (c: ServerCheck): string => c.engine ?? "server";
  const engines = [...new Set(checks.map(engineOf))];
  const engine = engineOf(checks[i]);
  if (engines.length > 1) {
    const select = h("select", { class: "hv-select", "data-hv": "engine-select", title: "which engine's answers" }) as HTMLSelectElement;
    for (const e of engines) {
      const opt = h("option", { value: e }, e) as HTMLOptionElement;
      opt.selected = e === engine;
      select.append(opt);
    }
    // Keep the api when the other engine checked it too.
    select.addEventListener("change", () => {
      const same = checks.findIndex((c) => engineOf(c) === select.value && c.api === checks[i].api);
      choose(same >= 0 ? same : checks.findIndex((c) => engineOf(c) === select.value));
    });
    const row = h("div", { class: "hv-srv-engine" });
    row.append(h("span", { class: "hv-srv-label" }, "engine"), select);
    panel.append(row);
  }
  const mine = checks.map((c, k) => [c, k] as const).filter(([c]) => engineOf(c) === engine);
  if (mine.length > 1) {
    const picker = h("div", { class: "hv-tabs" });
    for (const [c, k] of mine) {
      const b = h("button", { type: "button", class: k === i ? "hv-tab hv-tab-on" : "hv-tab", "data-hv": "server-api", "data-api": c.api }, c.api);
      b.addEventListener("click", () => choose(k));
      picker.append(b);
    }
    panel.append(picker);
  }
  const check = checks[i];
  const replayed = check.replayed === null ? "no token ids returned" : check.replayed ? "the server returned exactly these tokens" : "the server returned other tokens";
  const who = check.engine ? `${check.engine} · ` : "";
  panel.append(h("div", { class: "hv-note" }, `${check.file} · ${who}${check.api} · ${replayed}`));
  for (const note of check.notes ?? []) panel.append(h("div", { class: "hv-note", "data-hv": "server-note" }, `note: ${note}`));
  if (check.error) panel.append(h("div", { class: "hv-error", "data-hv": "server-error" }, `server error: ${check.error}`));
  const cols = h("div", { class: "hv-srv-cols" });
  cols.append(answerColumn(check.engine ?? "server", check.answer, "answer"), answerColumn("ours (from the tokens)", check.expected_answer, "expected"));
  panel.append(cols);
  const n = check.discrepancies.length;
  panel.append(h("div", { class: "hv-srv-title" }, n ? `discrepancies (${n})` : "discrepancies"));
  panel.append(discrepancyList(check, jump));
  panel.append(raw("server's object as received", check.server), raw("our projection", check.expected));
  body.append(panel);
}
