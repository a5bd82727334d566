// What the token card says about one token at a step: pure, no DOM (unit-tested under node).
// Its sentences come from Python (the payload's special_info and visibility), never from here.
import { escapeText, hexBytes } from "../shared/labels";
import type { FindingRow } from "./findings";
import type { TraceData } from "./trace";

export interface TokenCardData {
  /** "token #12 · id 200005" */
  title: string;
  /** [label, value] rows: text, bytes, the character it is part of, where it sits, when it was fed */
  rows: Array<[string, string]>;
  /** a special token: its spelling, kind and what it does in the format */
  special: { literal: string; kind: string; sentence: string } | null;
  /** every finding on it that shows at the step */
  findings: FindingRow[];
}

/** Which part of its message token t is: the header, the body, or the stop token that ends it. */
export function partOf(d: TraceData, t: number): "header" | "body" | "stop token" | null {
  const m = d.messageOfToken(t);
  if (!m) return null;
  if (t < m.t_header_end) return "header";
  if (m.terminator !== null && t === m.t_end - 1 && d.special(t) !== null) return "stop token";
  return "body";
}

export function tokenCard(d: TraceData, t: number, step: number): TokenCardData {
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
  return { title: `token #${t} · id ${d.ids[t]}`, rows, special, findings };
}
