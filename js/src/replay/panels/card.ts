// The token card's DOM: what tokenCard() says about a token, as text (never markup).
import { h } from "../../shared/dom";
import type { TokenCardData } from "../card";

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
