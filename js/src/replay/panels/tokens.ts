// The token pane: a virtualised stream of chips (only the rows in view exist), the status of
// each chip at this step, the findings on it, the token card, selection and highlighted spans.
import { CHAR_W, PANE_PAD, PANE_W, ROW_H, TALL_ROWS } from "../../shared/constants";
import { Tooltip, h, scrollRegion } from "../../shared/dom";
import { chipLabel } from "../../shared/labels";
import { tokenCard } from "../card";
import { surpriseBin } from "../chips";
import { ALL, type FindingFilter } from "../findings";
import { layoutRows, rowOf, visibleRows } from "../layout";
import type { TraceData } from "../trace";
import type { ReplayModel } from "../types";
import { cardElement } from "./card";
import type { Panel } from "./panel";

type Chip = HTMLElement & { hvState?: number; hvCodes?: string };

/** One card on screen at a time, whichever replay of the page (or notebook: each widget may run its own copy of this module) shows it. */
function hideOtherCards(mine: HTMLElement): void {
  for (const el of Array.from(document.querySelectorAll<HTMLElement>(".hv-tip"))) {
    if (el !== mine && el.style.display === "block" && el.querySelector("[data-hv=token-card]")) el.style.display = "none";
  }
}

export class TokensPanel implements Panel {
  readonly el = scrollRegion(h("div", { class: "hv-tokens", "data-hv": "tokens" }), "tokens");
  /** scroll to the chunk being fed on every step */
  follow = true;
  /** which findings mark the chips (the Findings panel's filter) */
  filter: FindingFilter = ALL;
  private spacer = h("div", { class: "hv-spacer" });
  private tip = new Tooltip();
  private data: TraceData | null = null;
  private step = 0;
  private rows: Int32Array = new Int32Array(1);
  private rowEls = new Map<number, HTMLElement>();
  private whitespace = false;
  private rowWs = false;
  /** whose fates the chips carry: the server tab's check (engine and api) on show */
  private fateCheck = 0;
  private rowCheck = 0;
  private highlighted: [number, number] | null = null;
  private focused: [number, number] | null = null;
  /** the chip under the pointer (its card shows), or -1 */
  private hovered = -1;
  private viewH = 0;
  private lastWidth = 0;
  private resizeObs: ResizeObserver | null = null;
  /** the view's root: a pinned card shows while the focus is inside it */
  private root: HTMLElement | null = null;
  /** the selection's card is on show (or waits for its chip to scroll back into view) */
  private pinnedShown = false;
  private outOfView = false;
  private onScroll = (): void => {
    if (this.pinnedShown && this.hovered < 0 && (this.outOfView || this.tip.el.style.display === "block")) this.placePinned();
  };

  /** `onFirstSize` runs when the pane first gets a real width (scrolling works from then on). */
  constructor(private model: ReplayModel, onFirstSize: () => void) {
    this.el.append(this.spacer);
    this.el.addEventListener("scroll", () => this.draw(), { passive: true });
    this.el.addEventListener("mouseover", (ev) => this.hover(ev));
    this.el.addEventListener("mousemove", (ev) => { if (this.hovered >= 0) this.tip.move(ev); });
    this.el.addEventListener("mouseleave", () => { this.hovered = -1; this.showCard(); });
    this.el.addEventListener("click", (ev) => {
      const chip = (ev.target as HTMLElement).closest<HTMLElement>("[data-hv=token]");
      if (!chip) return;
      this.hovered = -1;
      this.select(Number(chip.dataset.i));
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

  /** The view's root: the selection's card is pinned while the focus is inside it, and hidden when the focus leaves. */
  attach(root: HTMLElement): void {
    this.root = root;
    root.addEventListener("focusin", () => { if (this.hovered < 0 && this.selected() >= 0) this.showCard(); });
    root.addEventListener("focusout", (ev) => {
      if (!root.contains(ev.relatedTarget as Node | null) && this.hovered < 0) this.hideCard();
    });
    // the card is fixed on screen: when the notebook or the page scrolls, it follows its chip
    document.addEventListener("scroll", this.onScroll, { capture: true, passive: true });
  }

  destroy(): void {
    this.resizeObs?.disconnect();
    document.removeEventListener("scroll", this.onScroll, { capture: true });
    this.tip.remove();
  }

  reset(): void { this.highlighted = null; this.focused = null; }

  render(data: TraceData, step: number): void {
    if (data !== this.data) { this.data = data; this.layout(); }
    this.step = step;
    // read layout (scroll position) before writing anything, so nothing forces a reflow mid-update
    this.followCurrent();
    this.draw();
    if (this.selected() >= 0 && this.hovered < 0) this.showCard();  // the pinned card says what shows at this step
  }

  setWhitespace(on: boolean): void { this.whitespace = on; this.draw(); }

  /** Show check i's fates on the chips (the server tab's engine and api); its card says the same. */
  setFateCheck(i: number): void {
    if (i === this.fateCheck) return;
    this.fateCheck = i;
    this.draw();
    if (this.cardOpen()) this.showCard();
  }

  /** The check whose fates the chips carry (one with fates, if the chosen one has none), or -1. */
  fateShown(): number { return this.data ? this.data.fates.pick(this.fateCheck) : -1; }

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

  /** Mark chips [a, b) as the focused finding's (`data-focus`), or none; `reveal` scrolls them into view. */
  focus(span: [number, number] | null, reveal = true): void {
    this.focused = span;
    if (span && reveal) this.scrollToToken(span[0]);
    this.draw();
  }

  // ---- selection and the token card ------------------------------------------------
  selected(): number { return Number(this.model.get("selected") ?? -1); }

  /** Select token t (synced to Python's `selected`), bring it into view and pin its card; -1 clears. */
  select(t: number): void {
    const d = this.data;
    if (!d) return;
    t = t < 0 ? -1 : Math.max(0, Math.min(d.nTokens - 1, t));
    if (t >= 0) this.scrollToToken(t);
    if (t !== this.selected()) {
      this.model.set("selected", t);
      this.model.save_changes();
    }
    this.selectionChanged();
  }

  /** Move the selection by `delta` tokens. */
  moveSelection(delta: number): void { this.select(Math.max(0, this.selected() + delta)); }

  /** Move the selection to the row above (-1) or below (+1), at the same place in the row where it can. */
  moveRow(dir: number): void {
    const t = this.selected();
    const r = rowOf(this.rows, t), nRows = this.rows.length - 1;
    const to = Math.max(0, Math.min(nRows - 1, r + dir));
    if (to === r) return;
    const offset = t - this.rows[r];
    this.select(Math.min(this.rows[to] + offset, this.rows[to + 1] - 1));
  }

  /** The selection changed (here or from Python): redraw the chips and the card. */
  selectionChanged(): void {
    this.draw();
    this.showCard();
  }

  /** Is a card of this pane on screen (hovered or pinned)? */
  cardOpen(): boolean { return this.tip.el.style.display === "block"; }

  /** Close the card: no hovered chip, no selection. */
  closeCard(): void {
    this.hovered = -1;
    if (this.selected() >= 0) this.select(-1);
    this.hideCard();
  }

  private hideCard(): void {
    this.tip.hide();
    this.pinnedShown = false;
    this.outOfView = false;
  }

  private hover(ev: MouseEvent): void {
    const chip = (ev.target as HTMLElement).closest<HTMLElement>("[data-hv=token]");
    if (!chip) return;
    const t = Number(chip.dataset.i);
    if (t === this.hovered) return;
    this.hovered = t;
    this.showCard(ev);
  }

  /**
   * The card of the hovered chip (by the pointer), else the selected one's, pinned by its chip while the focus is
   * in this replay; else none. Showing it hides any other replay's card.
   */
  private showCard(ev?: MouseEvent): void {
    const d = this.data;
    const t = this.hovered >= 0 ? this.hovered : this.selected();
    const pinned = this.hovered < 0;
    const focused = this.root === null || this.root.contains(document.activeElement);
    if (!d || t < 0 || t >= d.nTokens || (pinned && !focused)) { this.hideCard(); return; }
    hideOtherCards(this.tip.el);
    this.tip.showNode(cardElement(tokenCard(d, t, this.step, this.fateShown()), pinned));
    this.pinnedShown = pinned;
    this.outOfView = false;
    if (!pinned) { if (ev) this.tip.move(ev); return; }
    this.placePinned();
  }

  /** Put the pinned card by its chip; hidden while the chip is scrolled out of view (it comes back with it). */
  private placePinned(): void {
    const chip = this.chipEl(this.selected());
    const pane = this.el.getBoundingClientRect();
    const r = chip?.getBoundingClientRect();
    this.outOfView = !(r && r.bottom > pane.top && r.top < pane.bottom);
    if (!this.outOfView) { this.tip.el.style.display = "block"; this.tip.placeBy(r!); }
    else this.tip.hide();
  }

  private chipEl(t: number): HTMLElement | null {
    const row = this.rowEls.get(rowOf(this.rows, t));
    return row ? (row.children[t - Number(row.dataset.first)] as HTMLElement | undefined) ?? null : null;
  }

  // ---- layout and drawing ------------------------------------------------------------
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

  /** Draw the rows in view and set each drawn chip's status classes and findings. */
  draw(): void {
    const d = this.data;
    if (!d) return;
    const nRows = this.rows.length - 1;
    if (!this.viewH) this.viewH = this.el.clientHeight;
    const [r0, r1] = visibleRows(this.el.scrollTop, this.viewH || 320, ROW_H, nRows);
    const check = this.fateShown();
    if (this.rowWs !== this.whitespace || this.rowCheck !== check) {
      for (const el of this.rowEls.values()) el.remove();
      this.rowEls.clear(); this.rowWs = this.whitespace; this.rowCheck = check;
    }
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
    const sel = this.selected();
    const hl = this.highlighted, fo = this.focused;
    const findings = d.findings, shown = findings.countAt(this.step), severities = findings.meta.severities;
    for (const row of this.rowEls.values()) {
      const t0 = Number(row.dataset.first);
      const chips = row.children;
      let worst = -1;
      for (let k = 0; k < chips.length; k++) {
        const chip = chips[k] as Chip;
        const t = t0 + k;
        // findings on the chip: its segment's mark, looked up by span (cached per segment), set only when it changes
        const mark = findings.mark(t, shown, this.filter);
        if (mark.severity >= 0 && (worst < 0 || mark.severity < worst)) worst = mark.severity;
        if (chip.hvCodes !== mark.codes) {
          chip.hvCodes = mark.codes;
          if (mark.severity < 0) { delete chip.dataset.severity; delete chip.dataset.codes; }
          else { chip.dataset.severity = severities[mark.severity]; chip.dataset.codes = mark.codes; }
        }
        // one small number per chip: touch its classes only when that number changes
        const st = (t >= fed.partial ? 1 : 0) | (t >= fed.full && t < fed.partial ? 2 : 0)
          | (this.step > 0 && t >= before.full && t < fed.partial ? 4 : 0) | (t === sel ? 8 : 0)
          | (hl !== null && t >= hl[0] && t < hl[1] ? 16 : 0) | (fo !== null && t >= fo[0] && t < fo[1] ? 32 : 0);
        if (chip.hvState === st) continue;
        chip.hvState = st;
        const cls = chip.classList;
        cls.toggle("hv-dim", (st & 1) !== 0);
        cls.toggle("hv-partial", (st & 2) !== 0);
        cls.toggle("hv-cur", (st & 4) !== 0);
        cls.toggle("hv-sel", (st & 8) !== 0);
        cls.toggle("hv-hl", (st & 16) !== 0);
        if ((st & 32) !== 0) chip.dataset.focus = "true"; else delete chip.dataset.focus;
      }
      // the mark at the start of the line: the worst finding on any of its chips
      const sev = worst < 0 ? undefined : severities[worst];
      if (row.dataset.severity !== sev) { if (sev === undefined) delete row.dataset.severity; else row.dataset.severity = sev; }
    }
  }

  private buildRow(d: TraceData, r: number): HTMLElement {
    const row = h("div", { class: "hv-row" });
    row.style.top = `${r * ROW_H}px`;
    row.dataset.first = String(this.rows[r]);
    const check = this.rowCheck, lp = d.logprobs;
    for (let t = this.rows[r]; t < this.rows[r + 1]; t++) {
      const m = d.messageOfToken(t);
      const chip = h("span", { "data-hv": "token" });
      chip.dataset.i = String(t);
      chip.dataset.id = String(d.ids[t]);
      chip.dataset.role = m?.role ?? "";
      chip.dataset.channel = m?.channel ?? "";
      // the server lens's fate of the token in the chosen check's answer, and the model's log-prob: Python's, drawn as given
      const fate = check >= 0 ? d.fates.at(check, t) : null;
      if (fate) { chip.dataset.fate = fate.fate; if (fate.mismatch) chip.dataset.fateMismatch = "true"; }
      const value = lp.logprob(t);
      if (value !== null) { chip.dataset.logprob = value.toFixed(3); chip.dataset.surprise = String(surpriseBin(value)); }
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
}
