// Findings so far, every lens in one list: counts per source and severity, a filter by both,
// the newest LOG_LIMIT rows that pass it. Redrawn only when what it shows changes.
import { h } from "../../shared/dom";
import type { FindingFilter } from "../findings";
import type { TraceData } from "../trace";
import { SEVERITY_GLYPH } from "./card";
import { LOG_LIMIT, section, type Panel, type ViewActions } from "./panel";

export class FindingsPanel implements Panel {
  readonly box = section("findings", "Findings");
  /** which findings show, here and on the chips (UI state, never synced) */
  filter: FindingFilter = { severities: 0xff, sources: 0xff };
  /** the finding clicked or reached with n / Shift+n, or -1 */
  focused = -1;
  private shownKey = "";
  /** redrawn since the last scrollToCurrent: bring the newest (or the focused) row into view */
  private redrawn = false;
  private data: TraceData | null = null;
  private step = 0;

  constructor(private actions: ViewActions) {}

  reset(): void { this.shownKey = ""; this.focused = -1; }

  render(d: TraceData, s: number): void {
    const f = d.findings;
    const count = f.countAt(s);
    const key = `${count} ${this.filter.severities} ${this.filter.sources} ${this.focused}`;
    this.data = d;
    this.step = s;
    if (key === this.shownKey) return;  // findings only change when one is found, the filter or the focus changes
    this.shownKey = key;
    this.redrawn = true;
    const body = this.box.body;
    body.textContent = "";
    this.box.title.textContent = `Findings (${count})`;
    body.append(this.bar(d, s));
    if (f.meta.error) body.append(h("div", { class: "hv-error", "data-hv": "findings-error" }, f.meta.error));
    // the newest LOG_LIMIT that pass the filter; with every finding shown, the count needs no walk over them all
    const all = (this.filter.severities & 7) === 7 && (this.filter.sources & 15) === 15;
    const rows: number[] = [];
    let passing = all ? count : 0;
    for (let k = count - 1; k >= 0 && (!all || rows.length < LOG_LIMIT); k--) {
      if (!f.passes(k, this.filter)) continue;
      if (!all) passing++;
      if (rows.length < LOG_LIMIT) rows.push(k);
    }
    if (count === 0) body.append(h("div", { class: "hv-empty" }, "none so far"));
    else if (passing === 0) body.append(h("div", { class: "hv-empty" }, "none that the filter shows"));
    if (passing > rows.length) body.append(h("div", { class: "hv-more" }, `… ${passing - rows.length} earlier`));
    for (const i of rows.reverse()) body.append(this.row(d, i));
  }

  private redraw(): void { this.shownKey = ""; if (this.data) this.render(this.data, this.step); }

  /** After a redraw: the focused row in view, else the newest (called after the frame, as the log scrolls to its end). */
  scrollToCurrent(): void {
    if (!this.redrawn) return;
    this.redrawn = false;
    const body = this.box.body;
    const row = body.querySelector<HTMLElement>("[data-hv=finding][data-focus=true]");
    body.scrollTop = row ? Math.max(0, row.offsetTop - body.clientHeight / 2) : body.scrollHeight;
  }

  /** The counts per source and severity, each a toggle of the filter. */
  private bar(d: TraceData, s: number): HTMLElement {
    const f = d.findings, m = f.meta;
    const counts = f.counts(s);
    const total = f.counts(d.nSteps - 1);
    const bar = h("div", { class: "hv-fd-bar", "data-hv": "finding-counts" });
    const toggle = (kind: "sources" | "severities", k: number, label: string, n: number): HTMLElement => {
      const on = ((this.filter[kind] >> k) & 1) === 1;
      const attr = kind === "sources" ? "data-source" : "data-severity";
      const b = h("button", { type: "button", class: `hv-fd-toggle${kind === "severities" ? ` hv-sev-${label}` : ""}`, "data-hv": "finding-filter",
        [attr]: label, "aria-pressed": String(on), title: `${on ? "hide" : "show"} ${label} findings` },
        `${kind === "severities" ? `${SEVERITY_GLYPH[label] ?? ""} ` : ""}${label} ${n}`);
      b.dataset.count = String(n);
      b.addEventListener("click", () => { this.filter = { ...this.filter, [kind]: this.filter[kind] ^ (1 << k) }; this.redraw(); this.actions.refilter(); });
      return b;
    };
    m.sources.forEach((src, k) => {
      if (src === "scanner" || src === "lint" || total.sources[k] > 0) bar.append(toggle("sources", k, src, counts.sources[k]));
    });
    bar.append(h("span", { class: "hv-fd-sep" }, "·"));
    m.severities.forEach((sev, k) => bar.append(toggle("severities", k, sev, counts.severities[k])));
    return bar;
  }

  private row(d: TraceData, i: number): HTMLElement {
    const r = d.findings.row(i);
    const div = h("div", { class: `hv-diag hv-finding hv-sev-${r.severity}`, "data-hv": "finding", "data-code": r.code, "data-severity": r.severity,
      "data-source": r.source, "data-i": String(i) });
    if (r.start !== null) { div.dataset.start = String(r.start); div.dataset.end = String(r.end); }
    div.dataset.step = String(r.step);
    if (i === this.focused) div.dataset.focus = "true";
    const where = r.start === null ? `no tokens @ step ${r.step}` : `[${r.start}, ${r.end}) @ step ${r.step}`;
    div.append(
      h("span", { class: "hv-diag-sev" }, `${SEVERITY_GLYPH[r.severity] ?? ""} ${r.severity}`),
      h("code", {}, r.code),
      h("span", { class: "hv-fd-src" }, r.source),
      h("span", { class: "hv-diag-msg" }, r.message),
      h("a", { class: "hv-diag-span", href: "#", title: r.start === null ? "go to the step it was found" : "show these tokens at the step they were found" }, where),
    );
    div.addEventListener("click", (ev) => { ev.preventDefault(); this.actions.focusFinding(i); });
    return div;
  }
}
