// The token pane: a virtualised stream of chips (only the rows in view exist), the status of
// each chip at this step, the hover card, selection and highlighted spans.
import { CHAR_W, PANE_PAD, PANE_W, ROW_H, TALL_ROWS } from "../../shared/constants";
import { Tooltip, h } from "../../shared/dom";
import { chipLabel, escapeText, hexBytes } from "../../shared/labels";
import { layoutRows, rowOf, visibleRows } from "../layout";
import type { TraceData } from "../trace";
import type { ReplayModel } from "../types";
import type { Panel } from "./panel";

export class TokensPanel implements Panel {
  readonly el = h("div", { class: "hv-tokens", "data-hv": "tokens", tabindex: "-1" });
  /** scroll to the chunk being fed on every step */
  follow = true;
  private spacer = h("div", { class: "hv-spacer" });
  private tip = new Tooltip();
  private data: TraceData | null = null;
  private step = 0;
  private rows: Int32Array = new Int32Array(1);
  private rowEls = new Map<number, HTMLElement>();
  private whitespace = false;
  private rowWs = false;
  private highlighted: [number, number] | null = null;
  private viewH = 0;
  private lastWidth = 0;
  private resizeObs: ResizeObserver | null = null;

  /** `onFirstSize` runs when the pane first gets a real width (scrolling works from then on). */
  constructor(private model: ReplayModel, onFirstSize: () => void) {
    this.el.append(this.spacer);
    this.el.addEventListener("scroll", () => this.draw(), { passive: true });
    this.el.addEventListener("mouseover", (ev) => this.showTip(ev));
    this.el.addEventListener("mousemove", (ev) => this.tip.move(ev));
    this.el.addEventListener("mouseleave", () => this.tip.hide());
    this.el.addEventListener("click", (ev) => {
      const chip = (ev.target as HTMLElement).closest<HTMLElement>("[data-hv=token]");
      if (!chip) return;
      this.model.set("selected", Number(chip.dataset.i));
      this.model.save_changes();
      this.draw();
    });
    if (typeof ResizeObserver !== "undefined") {
      this.resizeObs = new ResizeObserver(() => {
        const w = this.el.clientWidth;
        this.viewH = this.el.clientHeight;
        if (this.data && w && Math.abs(w - this.lastWidth) > 16) {
          const first = this.lastWidth === 0;
          this.layout();
          // the first real size: now scrolling works, bring the current chunk into view
          if (first) { this.followCurrent(); onFirstSize(); }
          this.draw();
        }
      });
      this.resizeObs.observe(this.el);
    }
  }

  destroy(): void {
    this.resizeObs?.disconnect();
    this.tip.remove();
  }

  reset(): void { this.highlighted = null; }

  render(data: TraceData, step: number): void {
    if (data !== this.data) { this.data = data; this.layout(); }
    this.step = step;
    // read layout (scroll position) before writing anything, so nothing forces a reflow mid-update
    this.followCurrent();
    this.draw();
  }

  setWhitespace(on: boolean): void { this.whitespace = on; this.draw(); }

  /** Highlight scanner-unit span [start, end) and scroll to it. */
  highlight(start: number, end: number): void {
    const d = this.data;
    if (!d) return;
    const n = d.nTokens;
    let [a, b] = d.tokenSpan(start, end);
    // an empty span (e.g. end of stream) points at the token before it
    if (b <= a) { a = Math.max(0, Math.min(a, n) - (a >= n ? 1 : 0)); b = a + 1; }
    a = Math.min(a, Math.max(0, n - 1));
    this.highlighted = [a, Math.min(Math.max(b, a + 1), n)];
    this.scrollToToken(a);
    this.draw();
  }

  /** Rows for the current width; rows are keyed by index, so a new layout drops every drawn row. */
  private layout(): void {
    const d = this.data!;
    const breaks = new Set<number>(d.messages.map((m) => m.t_start));
    this.lastWidth = this.el.clientWidth;  // 0 while not yet in the page
    const maxChars = Math.max(20, Math.floor(((this.lastWidth || PANE_W) - PANE_PAD) / CHAR_W));
    this.rows = layoutRows(d.nTokens, (t) => d.tokenText(t), breaks, maxChars);
    for (const el of this.rowEls.values()) el.remove();
    this.rowEls.clear();
    const nRows = this.rows.length - 1;
    this.spacer.style.height = `${nRows * ROW_H}px`;
    // short streams get a short box; a long one fills the height of the side panels and scrolls
    const tall = nRows > TALL_ROWS;
    this.el.classList.toggle("hv-tall", tall);
    this.el.style.height = tall ? "" : `${Math.max(5, nRows) * ROW_H + 10}px`;
  }

  private followCurrent(): void {
    const d = this.data!;
    const fed = d.fedAt(this.step);
    if (this.follow && fed.partial > 0) this.scrollToToken(Math.min(fed.partial, d.nTokens) - 1);
  }

  private scrollToToken(t: number): void {
    const r = rowOf(this.rows, t);
    if (!this.viewH) this.viewH = this.el.clientHeight;
    const top = r * ROW_H, view = this.viewH || 300;
    if (top < this.el.scrollTop || top + ROW_H > this.el.scrollTop + view) {
      this.el.scrollTop = Math.max(0, top - view / 2);
    }
  }

  /** Draw the rows in view and set each drawn chip's status classes. */
  draw(): void {
    const d = this.data;
    if (!d) return;
    const nRows = this.rows.length - 1;
    if (!this.viewH) this.viewH = this.el.clientHeight;
    const [r0, r1] = visibleRows(this.el.scrollTop, this.viewH || 320, ROW_H, nRows);
    if (this.rowWs !== this.whitespace) { for (const el of this.rowEls.values()) el.remove(); this.rowEls.clear(); this.rowWs = this.whitespace; }
    for (const [r, el] of this.rowEls) if (r < r0 || r >= r1) { el.remove(); this.rowEls.delete(r); }
    for (let r = r0; r < r1; r++) {
      if (!this.rowEls.has(r)) {
        const row = this.buildRow(d, r);
        this.rowEls.set(r, row);
        this.spacer.appendChild(row);
      }
    }
    // status classes: only the drawn chips are touched, so a step costs O(visible)
    const fed = d.fedAt(this.step);
    const before = d.fedAt(this.step - 1);
    const sel = Number(this.model.get("selected") ?? -1);
    const hl = this.highlighted;
    for (const row of this.rowEls.values()) {
      const t0 = Number(row.dataset.first);
      const chips = row.children;
      for (let k = 0; k < chips.length; k++) {
        const chip = chips[k] as HTMLElement & { hvState?: number };
        const t = t0 + k;
        // one small number per chip: touch its classes only when that number changes
        const st = (t >= fed.partial ? 1 : 0) | (t >= fed.full && t < fed.partial ? 2 : 0)
          | (this.step > 0 && t >= before.full && t < fed.partial ? 4 : 0) | (t === sel ? 8 : 0)
          | (hl !== null && t >= hl[0] && t < hl[1] ? 16 : 0);
        if (chip.hvState === st) continue;
        chip.hvState = st;
        const cls = chip.classList;
        cls.toggle("hv-dim", (st & 1) !== 0);
        cls.toggle("hv-partial", (st & 2) !== 0);
        cls.toggle("hv-cur", (st & 4) !== 0);
        cls.toggle("hv-sel", (st & 8) !== 0);
        cls.toggle("hv-hl", (st & 16) !== 0);
      }
    }
  }

  private buildRow(d: TraceData, r: number): HTMLElement {
    const row = h("div", { class: "hv-row" });
    row.style.top = `${r * ROW_H}px`;
    row.dataset.first = String(this.rows[r]);
    for (let t = this.rows[r]; t < this.rows[r + 1]; t++) {
      const m = d.messageOfToken(t);
      const chip = h("span", { "data-hv": "token" });
      chip.dataset.i = String(t);
      chip.dataset.id = String(d.ids[t]);
      chip.dataset.role = m?.role ?? "";
      chip.dataset.channel = m?.channel ?? "";
      let cls = `hv-tok hv-k-${m ? m.kind : "none"} hv-r-${m?.role ?? "none"}`;
      const special = d.special(t);
      if (special) cls += " hv-special";
      else if (m && t < m.t_header_end) cls += " hv-header";
      const [ga, gb] = d.charGroup(t);
      if (gb - ga > 1) {
        cls += t === ga ? " hv-split-first" : " hv-split-rest";
        chip.textContent = t === ga ? chipLabel(d.unitTextTokens(ga, gb), this.whitespace) : "‥";
      } else {
        chip.textContent = special ?? chipLabel(d.tokenText(t), this.whitespace);
      }
      chip.className = cls;
      row.appendChild(chip);
    }
    return row;
  }

  private showTip(ev: MouseEvent): void {
    const chip = (ev.target as HTMLElement).closest<HTMLElement>("[data-hv=token]");
    const d = this.data;
    if (!chip || !d) { this.tip.hide(); return; }
    const t = Number(chip.dataset.i);
    const m = d.messageOfToken(t);
    const [ga, gb] = d.charGroup(t);
    const lines: Array<[string, string]> = [
      ["token", `#${t}  id ${d.ids[t]}`],
      ["text", escapeText(d.tokenText(t))],
      ["bytes", hexBytes(d.tokenBytes(t)) || "(none)"],
    ];
    const sp = d.special(t);
    if (sp) lines.push(["special", sp]);
    if (gb - ga > 1) lines.push(["character", `${escapeText(d.unitTextTokens(ga, gb))} split across tokens ${ga}–${gb - 1}`]);
    if (m) {
      lines.push(["message", `#${m.index} ${m.role ?? "?"}${m.recipient ? " → " + m.recipient : ""}`]);
      lines.push(["channel", `${m.channel ?? "(none)"} · ${m.kind}${t < m.t_header_end ? " · header" : ""}`]);
    } else lines.push(["message", "(outside any message)"]);
    lines.push(["fed at", `step ${d.stepOfToken(t)}`]);
    this.tip.show(lines);
    this.tip.move(ev);
  }
}
