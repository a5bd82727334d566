// The token card's DOM: what tokenCard() says about a token, as text (never markup).
import { h } from "../../shared/dom";
import { escapeText } from "../../shared/labels";
import { NO_LOGPROBS, type TokenCardData } from "../card";
import { formatP } from "../chips";

/** A glyph per severity: findings differ in shape, not only in colour. */
export const SEVERITY_GLYPH: Record<string, string> = { error: "✖", warning: "▲", info: "●" };

export function cardElement(c: TokenCardData, pinned: boolean): HTMLElement {
  const el = h("div", { class: "hv-tcard", "data-hv": "token-card", "data-pinned": String(pinned) });
  el.append(h("div", { class: "hv-tcard-title" }, c.title));
  if (c.special) {
    const sp = h("div", { class: `hv-tcard-special hv-tcard-${c.special.kind}`, "data-hv": "token-sentence", "data-kind": c.special.kind });
    sp.append(h("b", {}, c.special.literal), h("span", { class: "hv-tcard-kind" }, ` ${c.special.kind} · `), h("span", {}, c.special.sentence));
    el.append(sp);
  }
  const table = h("div", { class: "hv-tcard-rows" });
  for (const [k, v] of c.rows) {
    const row = h("div", { "data-field": k });
    row.append(h("b", {}, k + " "), h("span", {}, v));
    table.append(row);
  }
  el.append(table);
  if (c.fate) {
    const f = c.fate;
    const row = h("div", { class: `hv-tcard-fate${f.mismatch ? " hv-tcard-mismatch" : ""}`, "data-hv": "card-fate", "data-fate": f.fate,
      "data-expected": f.expected, "data-mismatch": String(f.mismatch) });
    row.append(h("b", {}, "fate "), h("span", {}, `${f.fate} (${f.check})`),
      h("span", { class: "hv-tcard-src" }, f.mismatch ? ` ✖ the format says ${f.expected}` : " (as the format says)"));
    el.append(row);
  }
  if (c.logprob) {
    const row = h("div", { class: "hv-tcard-logprob", "data-hv": "card-logprob", "data-logprob": String(c.logprob.logprob) });
    row.append(h("b", {}, "log p "), h("span", {}, `${c.logprob.logprob.toFixed(3)} · p ${formatP(c.logprob.p)}`),
      h("span", { class: "hv-tcard-src" }, ` ${c.logprob.source}`));
    el.append(row);
  }
  if (c.alternatives.length) {
    const list = h("div", { class: "hv-tcard-alts", "data-hv": "alternatives" });
    for (const a of c.alternatives) {
      const row = h("div", { class: `hv-tcard-alt${a.chosen ? " hv-tcard-chosen" : ""}`, "data-hv": "alternative", "data-id": String(a.id),
        "data-logprob": String(a.logprob), "data-p": String(a.p), "data-chosen": String(a.chosen) });
      if (a.special) row.dataset.special = a.special;
      const bar = h("span", { class: "hv-tcard-bar" });
      bar.style.width = `${Math.max(1, Math.round(a.p * 60))}px`;
      row.append(h(a.special ? "b" : "code", { class: "hv-tcard-alt-tok" }, a.special ?? escapeText(a.text)), bar,
        h("span", { class: "hv-tcard-alt-p" }, `p ${formatP(a.p)}${a.chosen ? " · this token" : ""}`));
      list.append(row);
    }
    el.append(h("div", { class: "hv-tcard-alts-title" }, "the model's top alternatives"), list);
  }
  if (c.logprobNote) el.append(h("div", { class: "hv-tcard-note", "data-hv": "no-logprobs", "data-scope": c.logprobNote === NO_LOGPROBS ? "stream" : "token" }, c.logprobNote));
  if (c.findings.length) {
    const list = h("div", { class: "hv-tcard-findings" });
    for (const f of c.findings) {
      const row = h("div", { class: `hv-tcard-finding hv-sev-${f.severity}`, "data-hv": "card-finding", "data-code": f.code, "data-severity": f.severity, "data-source": f.source });
      row.append(h("span", { class: "hv-diag-sev" }, `${SEVERITY_GLYPH[f.severity] ?? ""} ${f.severity}`), h("code", {}, f.code),
        h("span", { class: "hv-tcard-src" }, f.source), h("div", { class: "hv-tcard-msg" }, f.message));
      list.append(row);
    }
    el.append(list);
  }
  if (pinned) el.append(h("div", { class: "hv-tcard-hint" }, "←/→ ↑/↓ move the selection · Esc closes"));
  return el;
}
