// The replay view: DOM for controls, the virtualised token stream and the panels.
// All model text goes through textContent, never innerHTML: token text is data, not markup.
import { TraceData } from "./trace";
import { chipLabel, escapeText, hexBytes, layoutRows, legend, rowOf, stepLabel, visibleRows } from "./layout";
import type { ApiView, MessageMeta, ShownEvent, TraceMeta } from "./types";
import { renderServerPanel, serverChecks } from "./server_panel";

/** How many diagnostics were reported up to step s. */
function lastAtMostStep(d: TraceData, s: number): number {
  const ev = d.diagnosticEvents;
  let lo = 0, hi = ev.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (d.eventStep[ev[mid]] <= s) lo = mid + 1; else hi = mid; }
  return lo;
}

export interface ModelLike {
  get(name: string): any;
  set(name: string, value: unknown): void;
  save_changes(): void;
  on(event: string, cb: () => void): void;
  off?(event: string, cb: () => void): void;
}

const ROW_H = 22;
const LOG_LIMIT = 50;
const CARD_LIMIT = 16;
const CARD_CHARS = 2000;
const SPEEDS = [1, 2, 5, 10, 30, 60, 240, 1000];

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

function section(hv: string, title: string): { el: HTMLElement; body: HTMLElement; title: HTMLElement } {
  const el = h("section", { class: `hv-panel hv-panel-${hv}`, "data-hv-panel": hv });
  const t = h("h4", { class: "hv-panel-title" }, title);
  const body = h("div", { class: "hv-panel-body", "data-hv": hv });
  el.append(t, body);
  return { el, body, title: t };
}

/** A drawn conversation card and what it shows, so a step can extend it in place. */
interface Card {
  el: HTMLElement;
  key: string;
  deltas: number;
  ended: boolean;
  text: Text | null;
  chars: number;
  pretty: boolean;
}

export class ReplayView {
  private model: ModelLike;
  private root: HTMLElement;
  private data!: TraceData;
  private rows!: Int32Array;
  private step = 0;
  private playing = false;
  private timer: number | undefined;
  private speed = 10;
  private colourBy: "channel" | "role" = "channel";
  private whitespace = false;
  private follow = true;
  private highlight: [number, number] | null = null;
  private saveTimer: number | undefined;
  private cards = new Map<number, Card>();
  private openState = new Map<number, boolean>();
  private apiTab = "";
  private listeners: Array<[string, () => void]> = [];
  private resizeObs: ResizeObserver | null = null;
  private lastWidth = 0;
  // elements
  private stepEl = h("span", { class: "hv-step", "data-hv": "step", "aria-live": "polite" });
  private scrub = h("input", { type: "range", min: "0", max: "0", value: "0", "data-hv": "scrub", "aria-label": "step" });
  private playBtn = h("button", { "data-hv": "play", title: "play / pause (space)" }, "play");
  private speedSel = h("select", { "data-hv": "speed", title: "steps per second" });
  private chunkSel = h("select", { "data-hv": "chunking", title: "how the stream is cut into steps" });
  private chunkInput = h("input", { type: "text", "data-hv": "chunking-custom", placeholder: "every:4", size: "10", title: "any chunking, e.g. every:4, random:7, chars:16, bytes:3, server:2" });
  private errorEl = h("span", { class: "hv-error", "data-hv": "error", role: "alert" });
  private legendEl = h("span", { class: "hv-legend", "data-hv": "legend" });
  private tokensEl = h("div", { class: "hv-tokens", "data-hv": "tokens", tabindex: "-1" });
  private spacer = h("div", { class: "hv-spacer" });
  private tip = h("div", { class: "hv-tip", "data-hv": "tooltip", role: "tooltip" });
  private panels = {
    state: section("state", "Scanner state"),
    events: section("events", "Events this step"),
    log: section("log", "Event log"),
    diagnostics: section("diagnostics", "Diagnostics"),
    conversation: section("conversation", "Conversation"),
    api: section("api", "API view"),
  };

  constructor(model: ModelLike, el: HTMLElement) {
    this.model = model;
    this.root = h("div", { class: "hv-root hv-by-channel", tabindex: "0", "data-hv": "root" });
    el.appendChild(this.root);
    this.build();
    this.load();
    this.step = this.clamp(Number(model.get("step") ?? 0));
    this.renderAll();
    this.on("change:step", () => {
      const s = this.clamp(Number(this.model.get("step")));
      if (s !== this.step) { this.step = s; this.renderStep(); }
    });
    this.on("change:_columns", () => { this.load(); this.step = this.clamp(Number(this.model.get("step"))); this.cards.clear(); this.renderAll(); });
    this.on("change:_meta", () => { /* _columns follows and triggers the reload */ });
    this.on("change:api_view", () => this.renderApi());
    this.on("change:error", () => { this.errorEl.textContent = String(this.model.get("error") ?? ""); });
    this.on("change:chunking", () => this.syncChunkControls());
    this.on("change:selected", () => this.renderTokens());
  }

  private on(ev: string, cb: () => void): void { this.model.on(ev, cb); this.listeners.push([ev, cb]); }

  destroy(): void {
    this.stop();
    for (const [ev, cb] of this.listeners) this.model.off?.(ev, cb);
    this.resizeObs?.disconnect();
    this.tip.remove();
  }

  private clamp(s: number): number {
    if (!Number.isFinite(s)) return 0;
    return Math.max(0, Math.min(this.data.nSteps - 1, Math.trunc(s)));
  }

  private resetCaches(): void {
    this.logUpTo = -1; this.logCount = 0; this.diagShown = -1; this.apiShown = null;
    this.stateCells.clear(); this.highlight = null;
    for (const c of this.cards.values()) c.el.remove();
    if (this.apiTimer !== undefined) { window.clearTimeout(this.apiTimer); this.apiTimer = undefined; }
    this.cards.clear();
  }

  private load(): void {
    const meta = this.model.get("_meta") as TraceMeta;
    const cols = this.model.get("_columns") as DataView;
    this.data = new TraceData(meta, cols);
    if (this.stateCells) this.resetCaches();
    this.scrub.max = String(this.data.nSteps - 1);
    this.layout();
    this.syncChunkControls();
  }

  private layout(): void {
    const breaks = new Set<number>(this.data.messages.map((m) => m.t_start));
    this.lastWidth = this.tokensEl.clientWidth;  // 0 while not yet in the page
    const width = this.lastWidth || 900;
    const maxChars = Math.max(20, Math.floor((width - 24) / 8.6));
    this.rows = layoutRows(this.data.nTokens, (t) => this.data.tokenText(t), breaks, maxChars);
    // rows are keyed by index: a new layout invalidates every drawn row
    for (const el of this.rowEls.values()) el.remove();
    this.rowEls.clear();
    const nRows = this.rows.length - 1;
    this.spacer.style.height = `${nRows * ROW_H}px`;
    // short streams get a short box; long ones scroll inside 360px
    const tall = nRows > 24;
    this.tokensEl.classList.toggle("hv-tall", tall);  // a long stream fills the height of the side panels
    this.tokensEl.style.height = tall ? "" : `${Math.max(5, nRows) * ROW_H + 10}px`;
  }

  // ---- building the DOM ------------------------------------------------------------
  private button(hv: string, label: string, title: string, action: () => void): HTMLButtonElement {
    const b = h("button", { "data-hv": hv, title, type: "button" }, label);
    b.addEventListener("click", () => { action(); this.root.focus({ preventScroll: true }); });
    return b;
  }

  private build(): void {
    const bar = h("div", { class: "hv-bar" });
    bar.append(
      this.button("first", "|◀", "first step (Home)", () => this.goTo(0)),
      this.button("prev", "◀ prev", "previous step (←)", () => this.goTo(this.step - 1)),
      this.playBtn,
      this.button("next", "next ▶", "next step (→)", () => this.goTo(this.step + 1)),
      this.button("last", "▶|", "last step (End)", () => this.goTo(this.data.nSteps - 1)),
      this.speedSel, this.scrub, this.stepEl,
    );
    this.playBtn.type = "button";
    this.playBtn.addEventListener("click", () => { this.toggle(); this.root.focus({ preventScroll: true }); });
    for (const s of SPEEDS) this.speedSel.append(h("option", { value: String(s) }, `${s}/s`));
    this.speedSel.value = String(this.speed);
    this.speedSel.addEventListener("change", () => { this.speed = Number(this.speedSel.value); if (this.playing) { this.stop(); this.play(); } });
    this.scrub.addEventListener("input", () => this.goTo(Number(this.scrub.value)));

    const opts = h("div", { class: "hv-bar hv-opts" });
    const colourSel = h("select", { "data-hv": "colour", title: "colour tokens by" });
    colourSel.append(h("option", { value: "channel" }, "colour: channel"), h("option", { value: "role" }, "colour: role"));
    colourSel.addEventListener("change", () => {
      this.colourBy = colourSel.value as "channel" | "role";
      this.root.classList.toggle("hv-by-role", this.colourBy === "role");
      this.root.classList.toggle("hv-by-channel", this.colourBy === "channel");
      this.renderLegend();
    });
    const ws = h("label", { class: "hv-check" });
    const wsBox = h("input", { type: "checkbox", "data-hv": "whitespace" });
    wsBox.addEventListener("change", () => { this.whitespace = wsBox.checked; this.renderTokens(); });
    ws.append(wsBox, document.createTextNode(" whitespace"));
    const fl = h("label", { class: "hv-check" });
    const flBox = h("input", { type: "checkbox", "data-hv": "follow" });
    flBox.checked = true;
    flBox.addEventListener("change", () => { this.follow = flBox.checked; });
    fl.append(flBox, document.createTextNode(" follow"));
    this.chunkSel.addEventListener("change", () => {
      if (this.chunkSel.value === "custom") { this.chunkInput.focus(); return; }
      this.setChunking(this.chunkSel.value);
    });
    this.chunkInput.addEventListener("keydown", (ev) => {
      ev.stopPropagation();
      if (ev.key === "Enter") this.setChunking(this.chunkInput.value.trim());
    });
    opts.append(this.chunkSel, this.chunkInput, colourSel, ws, fl, this.legendEl, this.errorEl);

    const main = h("div", { class: "hv-main" });
    this.tokensEl.append(this.spacer);
    const side = h("div", { class: "hv-side" });
    side.append(this.panels.state.el, this.panels.events.el, this.panels.log.el, this.panels.diagnostics.el);
    main.append(this.tokensEl, side);
    const lower = h("div", { class: "hv-lower" });
    lower.append(this.panels.conversation.el, this.panels.api.el);
    this.root.append(bar, opts, main, lower);
    document.body.appendChild(this.tip);  // on body so notebook chrome cannot clip it

    this.tokensEl.addEventListener("scroll", () => this.renderTokens(), { passive: true });
    this.tokensEl.addEventListener("mouseover", (ev) => this.showTip(ev));
    this.tokensEl.addEventListener("mousemove", (ev) => this.moveTip(ev));
    this.tokensEl.addEventListener("mouseleave", () => { this.tip.style.display = "none"; });
    this.tokensEl.addEventListener("click", (ev) => {
      const chip = (ev.target as HTMLElement).closest<HTMLElement>("[data-hv=token]");
      if (!chip) return;
      const t = Number(chip.dataset.i);
      this.model.set("selected", t);
      this.model.save_changes();
      this.renderTokens();
    });
    this.root.addEventListener("keydown", (ev) => this.key(ev));
    if (typeof ResizeObserver !== "undefined") {
      this.resizeObs = new ResizeObserver(() => {
        const w = this.tokensEl.clientWidth;
        this.viewH = this.tokensEl.clientHeight;
        if (w && Math.abs(w - this.lastWidth) > 16) {
          const first = this.lastWidth === 0;
          this.layout();
          // the first real size: now scrolling works, bring the current chunk into view
          if (first) { this.followCurrent(); this.followPanels(); }
          this.renderTokens();
        }
      });
      this.resizeObs.observe(this.tokensEl);
    }
  }

  private key(ev: KeyboardEvent): void {
    const tag = (ev.target as HTMLElement).tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      if (!(tag === "INPUT" && (ev.target as HTMLInputElement).type === "range")) return;
    }
    const big = ev.shiftKey ? 10 : 1;
    let handled = true;
    switch (ev.key) {
      case "ArrowRight": case "l": this.goTo(this.step + big); break;
      case "ArrowLeft": case "h": this.goTo(this.step - big); break;
      case "Home": this.goTo(0); break;
      case "End": this.goTo(this.data.nSteps - 1); break;
      case " ": case "k": this.toggle(); break;
      default: handled = false;
    }
    if (handled) { ev.preventDefault(); ev.stopPropagation(); }
  }

  private setChunking(value: string): void {
    if (!value) return;
    this.model.set("chunking", value);
    this.model.save_changes();
  }

  private syncChunkControls(): void {
    const live = Boolean(this.model.get("_live"));
    const current = String(this.model.get("chunking") ?? this.data.meta.chunking);
    const presets: string[] = (this.model.get("chunkings") as string[] | undefined) ?? [];
    this.chunkSel.textContent = "";
    const all = presets.includes(current) ? presets : [current, ...presets];
    for (const p of all) this.chunkSel.append(h("option", { value: p }, `chunks: ${p}`));
    if (live) this.chunkSel.append(h("option", { value: "custom" }, "custom…"));
    this.chunkSel.value = current;
    this.chunkSel.disabled = !live;
    this.chunkInput.disabled = !live;
    this.chunkInput.style.display = live ? "" : "none";
    this.chunkSel.title = live ? "how the stream is cut into steps (recomputed in Python)" : "chunking is fixed in a saved page; change it from Python with replay(..., chunking=…)";
  }

  // ---- stepping --------------------------------------------------------------------
  goTo(s: number): void {
    s = this.clamp(s);
    if (s === this.step) return;
    this.step = s;
    this.renderStep();
    this.model.set("step", s);
    // Saving on every frame while playing floods the kernel; coalesce to ~10 saves/s.
    if (this.playing) {
      if (this.saveTimer === undefined) this.saveTimer = window.setTimeout(() => { this.saveTimer = undefined; this.model.save_changes(); }, 100);
    } else this.model.save_changes();
    if (s >= this.data.nSteps - 1) this.stop();
  }

  private toggle(): void { if (this.playing) this.stop(); else this.play(); }

  private play(): void {
    if (this.step >= this.data.nSteps - 1) this.goTo(0);
    this.playing = true;
    this.playBtn.textContent = "pause";
    this.playBtn.setAttribute("aria-pressed", "true");
    const perTick = Math.max(1, Math.round(this.speed / 60));
    const interval = Math.max(16, 1000 / this.speed);
    this.timer = window.setInterval(() => this.goTo(this.step + perTick), interval);
  }

  private stop(): void {
    if (this.timer !== undefined) window.clearInterval(this.timer);
    this.timer = undefined;
    if (this.playing) { this.playing = false; this.model.save_changes(); }
    this.playBtn.textContent = "play";
    this.playBtn.setAttribute("aria-pressed", "false");
  }

  // ---- rendering -------------------------------------------------------------------
  renderAll(): void {
    this.renderLegend();
    this.errorEl.textContent = String(this.model.get("error") ?? "");
    this.renderStep();
    this.renderApi();
  }

  renderStep(): void {
    const d = this.data;
    const fed = d.fedAt(this.step);
    const flush = this.step === d.nSteps - 1 && this.step > 0;
    // read layout (scroll position) before writing anything, so nothing forces a reflow mid-update
    this.followCurrent();
    this.renderTokens();
    this.stepEl.textContent = stepLabel(this.step, d.nSteps, fed.full, d.nTokens, flush);
    this.stepEl.dataset.step = String(this.step);
    this.scrub.value = String(this.step);
    this.renderState();
    this.renderEvents();
    this.renderDiagnostics();
    this.renderConversation();
    // the API view can be a long JSON document: draw it after this frame, off the step's critical path
    if (this.apiTimer === undefined) this.apiTimer = window.setTimeout(() => { this.apiTimer = undefined; this.renderApi(); }, 0);
    if (this.scrollTimer === undefined) this.scrollTimer = window.requestAnimationFrame(() => { this.scrollTimer = undefined; this.followPanels(); });
  }

  private apiTimer: number | undefined;
  private scrollTimer: number | undefined;
  private viewH = 0;

  /** Scroll the event log to its end and the conversation to its newest card. */
  private followPanels(): void {
    const lb = this.panels.log.body;
    lb.scrollTop = lb.scrollHeight;
    if (!this.follow) return;
    const body = this.panels.conversation.body;
    const cards = body.querySelectorAll<HTMLElement>(".hv-card");
    const lastCard = cards[cards.length - 1];
    if (lastCard) body.scrollTop = lastCard.offsetTop - 4;  // the body is the cards' offsetParent
  }

  private followCurrent(): void {
    const fed = this.data.fedAt(this.step);
    if (this.follow && fed.partial > 0) this.scrollToToken(Math.min(fed.partial, this.data.nTokens) - 1);
  }

  private scrollToToken(t: number): void {
    const r = rowOf(this.rows, t);
    if (!this.viewH) this.viewH = this.tokensEl.clientHeight;
    const top = r * ROW_H, view = this.viewH || 300;
    if (top < this.tokensEl.scrollTop || top + ROW_H > this.tokensEl.scrollTop + view) {
      this.tokensEl.scrollTop = Math.max(0, top - view / 2);
    }
  }

  private rowEls = new Map<number, HTMLElement>();
  private rowWs = false;

  renderTokens(): void {
    const d = this.data;
    const nRows = this.rows.length - 1;
    if (!this.viewH) this.viewH = this.tokensEl.clientHeight;
    const [r0, r1] = visibleRows(this.tokensEl.scrollTop, this.viewH || 320, ROW_H, nRows);
    if (this.rowWs !== this.whitespace) { for (const el of this.rowEls.values()) el.remove(); this.rowEls.clear(); this.rowWs = this.whitespace; }
    for (const [r, el] of this.rowEls) if (r < r0 || r >= r1) { el.remove(); this.rowEls.delete(r); }
    for (let r = r0; r < r1; r++) {
      if (!this.rowEls.has(r)) {
        const row = this.buildRow(r);
        this.rowEls.set(r, row);
        this.spacer.appendChild(row);
      }
    }
    // status classes: only the drawn chips are touched, so a step costs O(visible)
    const fed = d.fedAt(this.step);
    const before = d.fedAt(this.step - 1);
    const sel = Number(this.model.get("selected") ?? -1);
    const hl = this.highlight;
    for (const row of this.rowEls.values()) {
      const t0 = Number((row as HTMLElement).dataset.first);
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

  private buildRow(r: number): HTMLElement {
    const d = this.data;
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
      const kind = m ? m.kind : "none";
      let cls = `hv-tok hv-k-${kind} hv-r-${m?.role ?? "none"}`;
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
    if (!chip) { this.tip.style.display = "none"; return; }
    const d = this.data;
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
    this.tip.textContent = "";
    for (const [k, v] of lines) {
      const row = h("div");
      row.append(h("b", {}, k + " "), h("span", {}, v));
      this.tip.appendChild(row);
    }
    this.tip.style.display = "block";
    this.moveTip(ev);
  }

  private moveTip(ev: MouseEvent): void {
    if (this.tip.style.display !== "block") return;
    const w = this.tip.offsetWidth, hgt = this.tip.offsetHeight;
    const x = Math.min(ev.clientX + 14, window.innerWidth - w - 4);
    const y = ev.clientY + 18 + hgt > window.innerHeight ? ev.clientY - hgt - 10 : ev.clientY + 18;
    this.tip.style.left = `${Math.max(0, x)}px`;
    this.tip.style.top = `${Math.max(0, y)}px`;
  }

  private renderLegend(): void {
    this.legendEl.textContent = "";
    for (const [name, colour] of legend(this.colourBy)) {
      const item = h("span", { class: "hv-legend-item" });
      const sw = h("span", { class: "hv-swatch" });
      sw.style.background = colour;
      item.append(sw, document.createTextNode(name));
      this.legendEl.appendChild(item);
    }
  }

  private stateCells = new Map<string, HTMLElement>();

  private renderState(): void {
    const d = this.data, s = this.step, body = this.panels.state.body;
    const fields = ["state", "position", "message", "role", "name", "recipient", "channel", "content_type", "pending_header", "held_back", "messages", "diagnostics"];
    if (this.stateCells.size === 0 || !body.firstChild) {
      body.textContent = "";
      this.stateCells.clear();
      const table = h("table", { class: "hv-kv" });
      for (const f of fields) {
        const tr = h("tr");
        tr.dataset.field = f;
        const td = h("td");
        tr.append(h("th", {}, f), td);
        table.appendChild(tr);
        this.stateCells.set(f, td);
      }
      body.appendChild(table);
    }
    for (const f of fields) {
      const v = d.snapshotField(f, s);
      const shown = v === null || v === undefined ? "—" : typeof v === "string" ? (f === "pending_header" || f === "held_back" ? escapeText(v) : v) : String(v);
      const td = this.stateCells.get(f)!;
      if (td.textContent !== shown) td.textContent = shown;
    }
  }

  private eventLine(e: ShownEvent, withStep: boolean): HTMLElement {
    const div = h("div", { class: `hv-ev hv-ev-${e.type}` });
    div.dataset.type = e.type;
    if (withStep) div.append(h("span", { class: "hv-ev-step" }, `${e.step}`));
    div.append(h("span", { class: "hv-ev-type" }, e.type));
    if (e.message >= 0) div.append(h("span", { class: "hv-ev-msg" }, `m${e.message}`));
    let detail: string;
    if (e.type === "ContentDelta") detail = escapeText(e.text ?? "");
    else {
      const r = e.raw ?? ({} as Record<string, unknown>);
      const skip = new Set(["type", "message", "start", "end"]);
      detail = Object.entries(r).filter(([k, v]) => !skip.has(k) && v !== null).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(" ");
    }
    div.append(h("span", { class: "hv-ev-detail" }, detail), h("span", { class: "hv-ev-span" }, `[${e.start}, ${e.end})`));
    div.addEventListener("click", () => this.highlightSpan(e.start, e.end));
    return div;
  }

  private logUpTo = -1;
  private logCount = 0;

  private renderEvents(): void {
    const d = this.data, s = this.step;
    const ev = d.eventsBetween(s, s, LOG_LIMIT);
    const body = this.panels.events.body;
    body.textContent = "";
    if (ev.events.length === 0) body.appendChild(h("div", { class: "hv-empty" }, s === 0 ? "nothing fed yet" : "no events this step"));
    if (ev.skipped) body.appendChild(h("div", { class: "hv-more" }, `… ${ev.skipped} more`));
    for (const e of ev.events) body.appendChild(this.eventLine(e, false));
    this.renderLog();
  }

  /** The cumulative log, its last LOG_LIMIT events; moving forward appends only what is new. */
  private renderLog(): void {
    const d = this.data, s = this.step, lb = this.panels.log.body;
    const total = d.deltaByStep[s + 1] + d.rareByStep[s + 1];
    const fresh = s > this.logUpTo && this.logUpTo >= 0 ? d.eventsBetween(this.logUpTo + 1, s, LOG_LIMIT + 1) : null;
    const back = s < this.logUpTo && this.logCount - total <= LOG_LIMIT;
    if (fresh && fresh.skipped === 0 && fresh.events.length <= LOG_LIMIT) {
      for (const e of fresh.events) lb.appendChild(this.eventLine(e, true));
      const lines = lb.querySelectorAll(".hv-ev");
      for (let i = 0; i < lines.length - LOG_LIMIT; i++) lines[i].remove();
    } else if (back) {
      // stepping back: drop the newest lines, then bring back the older ones that fit again
      const lines = lb.querySelectorAll(".hv-ev");
      const drop = this.logCount - total;
      for (let i = lines.length - drop; i < lines.length; i++) if (i >= 0) lines[i].remove();
      const kept = Math.max(0, lines.length - drop);
      const missing = Math.min(total, LOG_LIMIT) - kept;
      if (missing > 0) {
        const older = d.eventsBetween(0, s, LOG_LIMIT).events.slice(0, missing);
        const anchor = lb.querySelector(".hv-more")!;
        let after: Element = anchor;
        for (const e of older) { const line = this.eventLine(e, true); after.after(line); after = line; }
      }
    } else if (s !== this.logUpTo) {
      lb.textContent = "";
      lb.appendChild(h("div", { class: "hv-more" }));
      const log = d.eventsBetween(0, s, LOG_LIMIT);
      for (const e of log.events) lb.appendChild(this.eventLine(e, true));
    }
    const shown = Math.min(total, LOG_LIMIT);
    const more = lb.querySelector<HTMLElement>(".hv-more")!;
    more.textContent = total > shown ? `… ${total - shown} earlier events` : "";
    if (total !== this.logCount || s !== this.logUpTo) this.panels.log.title.textContent = `Event log (${total} events)`;
    this.logUpTo = s;
    this.logCount = total;
  }

  private diagShown = -1;

  private renderDiagnostics(): void {
    const d = this.data;
    const count = lastAtMostStep(d, this.step);
    if (count === this.diagShown) return;  // diagnostics only change when one is reported
    this.diagShown = count;
    const body = this.panels.diagnostics.body;
    body.textContent = "";
    this.panels.diagnostics.title.textContent = `Diagnostics (${count})`;
    if (count === 0) body.appendChild(h("div", { class: "hv-empty" }, "none so far"));
    if (count > LOG_LIMIT) body.appendChild(h("div", { class: "hv-more" }, `… ${count - LOG_LIMIT} earlier`));
    for (let k = Math.max(0, count - LOG_LIMIT); k < count; k++) {
      const j = d.diagnosticEvents[k];
      const event = d.rareEvent(j), step = d.eventStep[j];
      const div = h("div", { class: `hv-diag hv-sev-${String(event.severity)}`, "data-code": String(event.code) });
      div.append(
        h("span", { class: "hv-diag-sev" }, String(event.severity)),
        h("code", {}, String(event.code)),
        h("span", { class: "hv-diag-msg" }, String(event.message)),
        h("a", { class: "hv-diag-span", href: "#", title: "show these tokens" }, `[${event.start}, ${event.end}) @ step ${step}`),
      );
      div.addEventListener("click", (ev) => { ev.preventDefault(); this.highlightSpan(event.start, event.end); });
      body.appendChild(div);
    }
  }

  private highlightSpan(start: number, end: number): void {
    const n = this.data.nTokens;
    let [a, b] = this.data.tokenSpan(start, end);
    // an empty span (e.g. end of stream) points at the token before it
    if (b <= a) { a = Math.max(0, Math.min(a, n) - (a >= n ? 1 : 0)); b = a + 1; }
    a = Math.min(a, Math.max(0, n - 1));
    this.highlight = [a, Math.min(Math.max(b, a + 1), n)];
    this.scrollToToken(a);
    this.renderTokens();
  }

  private cardTitle(m: MessageMeta): string {
    let t = `#${m.index} ${m.role ?? "?"}`;
    if (m.name) t += ` (${m.name})`;
    if (m.recipient) t += ` → ${m.recipient}`;
    if (m.channel) t += ` · ${m.channel}`;
    if (m.content_type) t += ` · ${m.content_type}`;
    return t;
  }

  private renderConversation(): void {
    const d = this.data, s = this.step, body = this.panels.conversation.body;
    // messages start in step order: the started ones are a prefix of the list
    let nStarted = 0;
    { let lo = 0, hi = d.messages.length; while (lo < hi) { const mid = (lo + hi) >> 1; if (d.messages[mid].step_started <= s) lo = mid + 1; else hi = mid; } nStarted = lo; }
    const shown: Array<readonly [MessageMeta, number]> = [];
    for (let i = Math.max(0, nStarted - CARD_LIMIT); i < nStarted; i++) shown.push([d.messages[i], i] as const);
    const started = { length: nStarted };
    const keep = new Set(shown.map(([m]) => m.index));
    let reorder = false;
    for (const [k, c] of this.cards) if (!keep.has(k)) { c.el.remove(); this.cards.delete(k); reorder = true; }
    let note = body.querySelector<HTMLElement>(".hv-more");
    if (started.length > shown.length) {
      if (!note) { note = h("div", { class: "hv-more" }); body.prepend(note); }
      note.textContent = `… ${started.length - shown.length} earlier messages`;
    } else note?.remove();
    let empty = body.querySelector<HTMLElement>(".hv-empty");
    if (shown.length === 0) { if (!empty) body.appendChild(h("div", { class: "hv-empty" }, "no messages yet")); }
    else empty?.remove();
    for (const [m, i] of shown) {
      const ended = m.step_ended !== null && m.step_ended <= s;
      const n = d.deltasUntil(i, s);
      const key = `${n}|${ended}`;
      const old = this.cards.get(m.index);
      if (old && old.key === key) continue;  // unchanged since drawn: no text to rebuild
      // the streaming card usually gains a delta or two: append them instead of rebuilding
      if (old && old.ended === ended && n > old.deltas && n - old.deltas <= 64 && old.chars < 2 * CARD_CHARS && old.text && !old.pretty) {
        let add = "";
        const list = d.messageDeltas[i];
        for (let k = old.deltas; k < n; k++) add += d.deltaText(list[k]);
        old.text.appendData(add);
        old.chars += add.length;
        old.deltas = n;
        old.key = key;
        continue;
      }
      const content = d.contentAt(i, s, CARD_CHARS);
      const card = this.buildCard(m, content, ended);
      if (old) old.el.replaceWith(card.el); else { body.appendChild(card.el); reorder = true; }
      this.cards.set(m.index, { ...card, key, deltas: n, ended });
    }
    // cards come and go when scrubbing backwards: put them back in message order
    if (reorder) for (const [m] of shown) { const c = this.cards.get(m.index); if (c) body.appendChild(c.el); }
  }

  private buildCard(m: MessageMeta, content: { text: string; truncated: boolean }, ended: boolean): { el: HTMLElement; text: Text | null; chars: number; pretty: boolean } {
    const card = h("div", { class: `hv-card hv-k-${m.kind} hv-r-${m.role ?? "none"}`, "data-message": String(m.index), "data-kind": m.kind });
    const head = h("div", { class: "hv-card-head" });
    head.append(h("span", { class: "hv-card-title" }, this.cardTitle(m)));
    const badge = (text: string, cls: string) => head.append(h("span", { class: `hv-badge ${cls}` }, text));
    if (m.kind === "preamble") badge("preamble · visible to the user", "hv-badge-preamble");
    if (m.kind === "reasoning") badge("analysis · hidden from the user", "hv-badge-reasoning");
    if (m.kind === "tool_result") badge(`tool result${m.name ? " from " + m.name : ""}`, "hv-badge-result");
    if (m.kind === "tool_call") badge(`tool call ${m.tool_name ?? m.recipient ?? ""}`, "hv-badge-call");
    badge(ended ? `ended ${m.terminator ?? ""}` : "streaming…", ended ? "hv-badge-ended" : "hv-badge-open");
    card.appendChild(head);
    let text = (content.truncated ? "…" : "") + content.text;
    let pretty = false;
    if (m.kind === "tool_call" && ended && m.parsed !== null && m.parsed !== undefined) {
      text = JSON.stringify(m.parsed, null, 2);
      pretty = true;
    }
    const pre = h("pre", { class: "hv-card-body" });
    const textNode = document.createTextNode(text);
    pre.appendChild(textNode);
    if (m.kind === "reasoning") {
      const det = h("details");
      det.open = this.openState.get(m.index) ?? true;
      det.addEventListener("toggle", () => this.openState.set(m.index, det.open));
      det.append(h("summary", {}, "analysis"), pre);
      card.appendChild(det);
    } else card.appendChild(pre);
    if (m.kind === "tool_call" && ended) {
      const foot = h("div", { class: "hv-card-foot" });
      if (m.arguments_error) foot.append(h("span", { class: "hv-badge hv-badge-error" }, `arguments: ${m.arguments_error}`));
      if (pretty) foot.append(h("span", { class: "hv-note" }, "arguments shown parsed"));
      card.appendChild(foot);
    }
    return { el: card, text: textNode, chars: text.length, pretty };
  }

  private apiShown: unknown = null;
  private apiTabShown = "";
  private serverCheck = 0;

  /** Go to the step where tokens [a, b) have been read, and highlight them (server lens). */
  private jumpToTokens(a: number, b: number): void {
    const d = this.data, n = d.nTokens;
    const start = d.unitOfToken(Math.min(a, n)), end = b >= n ? d.stepEnds[d.nSteps - 1] : d.unitOfToken(b);
    let s = 0;
    while (s < d.nSteps - 1 && d.stepEnds[s] < end) s++;
    this.goTo(s);
    this.highlightSpan(start, end);
  }

  renderApi(): void {
    const body = this.panels.api.body;
    const views = this.model.get("_api_views") as Array<[number, ApiView]> | undefined;
    let api: ApiView;
    if (views && views.length) {
      // a saved page carries API views at message boundaries: show the latest at or before this step
      let pick = views[0][1];
      for (const [st, v] of views) if (st <= this.step) pick = v;
      api = pick;
    } else api = (this.model.get("api_view") as ApiView) ?? {};
    // pretty-printing a long reasoning text is costly: redraw only when the view or tab changed
    if (api === this.apiShown && this.apiTab === this.apiTabShown && (api.step ?? 0) === this.step) return;
    this.apiShown = api;
    this.apiTabShown = this.apiTab;
    body.textContent = "";
    const checks = serverChecks(this.data.meta);
    if (api.unavailable && !checks) { body.appendChild(h("div", { class: "hv-empty" }, api.unavailable)); return; }
    if (api.error) body.appendChild(h("div", { class: "hv-error" }, api.error));
    const entries: Array<[string, unknown]> = Object.entries(api.views ?? {});
    if (checks) entries.push(["server", checks]);  // server lens: its answer beside ours
    if (entries.length === 0) { body.appendChild(h("div", { class: "hv-empty" }, "no API view yet")); return; }
    const st = api.step ?? 0;
    body.appendChild(h("div", { class: "hv-note" }, st === this.step ? `as of step ${st}` : `as of step ${st} (${views ? "the last message boundary in this saved page" : "updating…"})`));
    if (!entries.some(([k]) => k === this.apiTab)) this.apiTab = entries[0][0];
    const tabs = h("div", { class: "hv-tabs" });
    for (const [k] of entries) {
      const b = h("button", { type: "button", class: k === this.apiTab ? "hv-tab hv-tab-on" : "hv-tab", "data-tab": k, ...(k === "server" ? { "data-hv": "api-tab-server" } : {}) }, k);
      b.addEventListener("click", () => { this.apiTab = k; this.renderApi(); });
      tabs.appendChild(b);
    }
    body.appendChild(tabs);
    const current = entries.find(([k]) => k === this.apiTab)![1];
    if (this.apiTab === "server" && checks) {
      renderServerPanel(body, checks, this.serverCheck, (i) => { this.serverCheck = i; this.apiShown = null; this.renderApi(); }, (a, b) => this.jumpToTokens(a, b));
      return;
    }
    body.appendChild(h("pre", { class: "hv-json" }, JSON.stringify(current, null, 2)));
  }
}
