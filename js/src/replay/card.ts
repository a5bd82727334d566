// What the token card says about one token at a step: pure, no DOM (unit-tested under node).
// Its sentences come from Python (the payload's special_info and visibility), never from here.
import { escapeText, hexBytes } from "../shared/labels";
import type { Alternative, TokenFate } from "./chips";
import type { FindingRow } from "./findings";
import type { TraceData } from "./trace";

/** What a stream without log-probs says in the card, in one line. */
export const NO_LOGPROBS = "no log-probs: this stream carries none (a run recorded with --top-logprobs K, or a capture of a server asked for logprobs, has them)";
/** What a token without one says, in a stream that has them. */
export const NO_TOKEN_LOGPROB = "no log-prob for this token (a prompt token, one the harness inserted, or one the server did not report)";

export interface TokenCardData {
  /** "token #12 · id 200005" */
  title: string;
  /** [label, value] rows: text, bytes, the character it is part of, where it sits, when it was fed */
  rows: Array<[string, string]>;
  /** a special token: its spelling, kind and what it does in the format */
  special: { literal: string; kind: string; sentence: string } | null;
  /** every finding on it that shows at the step */
  findings: FindingRow[];
  /** what the chosen server check's answer made of it, beside the format (`check` names engine and api); null without */
  fate: (TokenFate & { check: string }) | null;
  /** the model's log-prob of it, or null */
  logprob: { logprob: number; p: number; source: string } | null;
  /** its top alternatives, most likely first (special tokens named) */
  alternatives: Alternative[];
  /** why there is no log-prob: the stream has none (said once, the same line on every card), or this token has none */
  logprobNote: string | null;
}

/** "vllm chat" for the server tab's check i. */
export function checkLabel(d: TraceData, i: number): string {
  const checks = (d.meta as { server?: { checks?: Array<{ engine: string | null; api: string }> } }).server?.checks;
  const c = checks?.[i];
  return c ? `${c.engine ?? "server"} ${c.api}` : `check ${i}`;
}

/** Which part of its message token t is: the header, the body, or the stop token that ends it. */
export function partOf(d: TraceData, t: number): "header" | "body" | "stop token" | null {
  const m = d.messageOfToken(t);
  if (!m) return null;
  if (t < m.t_header_end) return "header";
  if (m.terminator !== null && t === m.t_end - 1 && d.special(t) !== null) return "stop token";
  return "body";
}

export function tokenCard(d: TraceData, t: number, step: number, check = 0): TokenCardData {
  const rows: Array<[string, string]> = [
    ["text", escapeText(d.tokenText(t))],
    ["bytes", hexBytes(d.tokenBytes(t)) || "(none)"],
  ];
  const [ga, gb] = d.charGroup(t);
  if (gb - ga > 1) rows.push(["character", `${escapeText(d.unitTextTokens(ga, gb))} split across tokens ${ga}–${gb - 1}`]);
  const m = d.messageOfToken(t);
  if (m) {
    rows.push(["message", `#${m.index} ${m.role ?? "?"}${m.name ? ` (${m.name})` : ""}`]);
    rows.push(["channel", m.channel ?? "(none)"]);
    rows.push(["recipient", m.recipient ?? "(none)"]);
    if (m.content_type) rows.push(["content type", m.content_type]);
    rows.push(["part", partOf(d, t) ?? "body"]);
    rows.push(["visibility", `${d.meta.visibility?.[m.kind] ?? m.kind} (${m.kind})`]);
  } else rows.push(["message", "(outside any message)"]);
  rows.push(["fed at", `step ${d.stepOfToken(t)}`]);
  const literal = d.special(t);
  const info = d.specialInfo(t);
  const special = literal ? { literal, kind: info?.kind ?? "special", sentence: info?.sentence ?? "" } : null;
  const f = d.findings, shown = f.countAt(step);
  const findings = Array.from(f.on(t)).filter((i) => i < shown).map((i) => f.row(i));
  const at = d.fates.at(check, t);
  const fate = at ? { ...at, check: checkLabel(d, check) } : null;
  const lp = d.logprobs, value = lp.logprob(t);
  const logprob = value === null ? null : { logprob: value, p: Math.exp(value), source: lp.meta?.source ?? "" };
  const alternatives = lp.alternatives(t, d.ids[t]);
  const logprobNote = !lp.present ? NO_LOGPROBS : value === null && alternatives.length === 0 ? NO_TOKEN_LOGPROB : null;
  return { title: `token #${t} · id ${d.ids[t]}`, rows, special, findings, fate, logprob, alternatives, logprobNote };
}
