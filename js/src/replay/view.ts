// The replay view: the controls (step, play, chunking, colour) around the panels it composes.
// All model text goes through textContent, never innerHTML: token text is data, not markup.
import { ROW_H } from "../shared/constants";
import { fillLegend, h } from "../shared/dom";
import type { ColourMode } from "../shared/labels";
import { checkLabel } from "./card";
import { FATE_LEGEND, SURPRISE_COLOURS, SURPRISE_NAMES } from "./chips";
import { stepLabel } from "./layout";
import { ApiPanel } from "./panels/api";
import { ConversationPanel } from "./panels/conversation";
import { EventsPanel } from "./panels/events";
import { FindingsPanel } from "./panels/findings";
import { LogPanel } from "./panels/log";
import type { Panel, ViewActions } from "./panels/panel";
import { StatePanel } from "./panels/state";
import { TokensPanel } from "./panels/tokens";
import { TraceData } from "./trace";
import type { ReplayModel } from "./types";

const SPEEDS = [1, 2, 5, 10, 30, 60, 240, 1000];

/** How the chips are coloured: by channel or role, by what the server made of them (a server lens's fates), or by surprise (log-probs). */
type Colouring = ColourMode | "server" | "surprise";
const MODES: Colouring[] = ["channel", "role", "server", "surprise"];

export class ReplayView {
  private model: ReplayModel;
  private root: HTMLElement;
  private data!: TraceData;
  private step = 0;
  private playing = false;
  private timer: number | undefined;
  private speed = 10;
  private colourBy: Colouring = "channel";
  private colourSel = h("select", { "data-hv": "colour", title: "colour tokens by" });
  private saveTimer: number | undefined;
  private scrollTimer: number | undefined;
  private listeners: Array<[string, () => void]> = [];
  // controls
  private stepEl = h("span", { class: "hv-step", "data-hv": "step", "aria-live": "polite" });
  private scrub = h("input", { type: "range", min: "0", max: "0", value: "0", "data-hv": "scrub", "aria-label": "step" });
  private playBtn = h("button", { "data-hv": "play", title: "play / pause (space)" }, "play");
  private speedSel = h("select", { "data-hv": "speed", title: "steps per second" });
  private chunkSel = h("select", { "data-hv": "chunking", title: "how the stream is cut into steps" });
  private chunkInput = h("input", { type: "text", "data-hv": "chunking-custom", placeholder: "every:4", size: "10", title: "any chunking, e.g. every:4, random:7, chars:16, bytes:3, server:2" });
  private errorEl = h("span", { class: "hv-error", "data-hv": "error", role: "alert" });
  private legendEl = h("span", { class: "hv-legend", "data-hv": "legend" });
  // panels
  private actions: ViewActions = {
    highlight: (a, b) => this.tokens.highlight(a, b), goTo: (s) => this.goTo(s),
    focusFinding: (i) => this.focusFinding(i), refilter: () => { this.tokens.filter = this.findings.filter; this.tokens.draw(); },
    chooseCheck: (i) => { this.tokens.setFateCheck(i); this.fillLegend(); },
  };
  private tokens: TokensPanel;
  private state = new StatePanel();
  private events = new EventsPanel(this.actions);
  private log = new LogPanel(this.actions);
  private findings = new FindingsPanel(this.actions);
  private conversation = new ConversationPanel();
  private api: ApiPanel;

  constructor(model: ReplayModel, el: HTMLElement) {
    this.model = model;
    this.tokens = new TokensPanel(model, () => this.followPanels());
    this.api = new ApiPanel(this.actions);
    this.root = h("div", { class: "hv-root hv-by-channel", tabindex: "0", "data-hv": "root" });
    this.root.style.setProperty("--hv-row-h", `${ROW_H}px`);  // the stylesheet's row height is this constant
    el.appendChild(this.root);
    this.tokens.attach(this.root);
    this.build();
    this.load();
    this.step = this.clamp(Number(model.get("step") ?? 0));
    this.renderAll();
    this.on("change:step", () => {
      const s = this.clamp(Number(this.model.get("step")));
      if (s !== this.step) { this.step = s; this.renderStep(); }
    });
    this.on("change:_columns", () => { this.load(); this.step = this.clamp(Number(this.model.get("step"))); this.renderAll(); });
    this.on("change:_meta", () => { /* _columns follows and triggers the reload */ });
    this.on("change:error", () => { this.errorEl.textContent = String(this.model.get("error") ?? ""); });
    this.on("change:chunking", () => this.syncChunkControls());
    this.on("change:selected", () => this.tokens.selectionChanged());
  }

  private panels(): Panel[] {
    return [this.tokens, this.state, this.events, this.log, this.findings, this.conversation, this.api];
  }

  private on(ev: string, cb: () => void): void { this.model.on(ev, cb); this.listeners.push([ev, cb]); }

  destroy(): void {
    this.stop();
    for (const [ev, cb] of this.listeners) this.model.off?.(ev, cb);
    this.tokens.destroy();
  }

  private clamp(s: number): number {
    if (!Number.isFinite(s)) return 0;
    return Math.max(0, Math.min(this.data.nSteps - 1, Math.trunc(s)));
  }

  private load(): void {
    const first = this.data === undefined;
    this.data = new TraceData(this.model.get("_meta"), this.model.get("_columns"));
    if (!first) for (const p of this.panels()) p.reset();
    this.scrub.max = String(this.data.nSteps - 1);
    this.syncChunkControls();
    this.syncColourModes();
  }

  /** The colour menu offers "server" with a server lens's fates and "surprise" with log-probs; a mode the new trace lacks falls back to channel. */
  private syncColourModes(): void {
    const d = this.data;
    const offered = MODES.filter((m) => (m === "server" ? d.fates.pick(0) >= 0 : m === "surprise" ? d.logprobs.present : true));
    const names: Record<Colouring, string> = { channel: "colour: channel", role: "colour: role", server: "colour: server (what the server made of each token)",
      surprise: "colour: surprise (−log p)" };
    this.colourSel.textContent = "";
    for (const m of offered) this.colourSel.append(h("option", { value: m }, names[m]));
    this.setColour(offered.includes(this.colourBy) ? this.colourBy : "channel");
  }

  private setColour(mode: Colouring): void {
    this.colourBy = mode;
    this.colourSel.value = mode;
    for (const m of MODES) this.root.classList.toggle(`hv-by-${m}`, m === mode);
    this.fillLegend();
  }

  private fillLegend(): void {
    const mode = this.colourBy;
    if (mode === "channel" || mode === "role") { fillLegend(this.legendEl, mode); return; }
    const el = this.legendEl;
    el.textContent = "";
    const item = (name: string, colour: string, cls = ""): void => {
      const it = h("span", { class: "hv-legend-item" });
      const sw = h("span", { class: `hv-swatch ${cls}`.trim() });
      if (colour) sw.style.background = colour;
      it.append(sw, document.createTextNode(name));
      el.append(it);
    };
    if (mode === "server") {
      el.append(h("span", { class: "hv-legend-title", "data-hv": "legend-check" }, checkLabel(this.data, this.tokens.fateShown())));
      for (const [name, colour] of FATE_LEGEND) item(name, colour);
      item("differs from the format", "", "hv-swatch-mismatch");
    } else {
      el.append(h("span", { class: "hv-legend-title" }, "−log p"));
      SURPRISE_NAMES.forEach((name, i) => item(name, SURPRISE_COLOURS[i]));
    }
  }

  // ---- building the DOM ------------------------------------------------------------
  private button(hv: string, label: string, title: string, action: () => void): HTMLButtonElement {
    const b = h("button", { "data-hv": hv, title, type: "button" }, label);
    b.addEventListener("click", () => { action(); this.root.focus({ preventScroll: true }); });
    return b;
  }

  private check(hv: string, label: string, checked: boolean, onChange: (on: boolean) => void): HTMLElement {
    const l = h("label", { class: "hv-check" });
    const box = h("input", { type: "checkbox", "data-hv": hv });
    box.checked = checked;
    box.addEventListener("change", () => onChange(box.checked));
    l.append(box, document.createTextNode(` ${label}`));
    return l;
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
    const colourSel = this.colourSel;
    colourSel.addEventListener("change", () => this.setColour(colourSel.value as Colouring));
    const ws = this.check("whitespace", "whitespace", false, (on) => this.tokens.setWhitespace(on));
    const fl = this.check("follow", "follow", true, (on) => { this.tokens.follow = on; });
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
    const side = h("div", { class: "hv-side" });
    side.append(this.state.box.el, this.findings.box.el, this.events.box.el, this.log.box.el);
    main.append(this.tokens.el, side);
    const lower = h("div", { class: "hv-lower" });
    lower.append(this.conversation.box.el, this.api.box.el);
    this.root.append(bar, opts, main, lower);
    this.root.addEventListener("keydown", (ev) => this.key(ev));
  }

  private key(ev: KeyboardEvent): void {
    const tag = (ev.target as HTMLElement).tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      if (!(tag === "INPUT" && (ev.target as HTMLInputElement).type === "range")) return;
    }
    // JupyterLab hears keys as they bubble: the replay's keys stop here, any other (Shift+Enter, Ctrl+S) goes on to it
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const big = ev.shiftKey ? 10 : 1;
    const selecting = this.tokens.selected() >= 0;
    let handled = true;
    switch (ev.key) {
      // with a token selected, the arrows move the selection (its card follows); else they step
      case "ArrowRight": if (selecting) this.tokens.moveSelection(big); else this.goTo(this.step + big); break;
      case "ArrowLeft": if (selecting) this.tokens.moveSelection(-big); else this.goTo(this.step - big); break;
      case "ArrowDown": if (selecting) this.tokens.moveRow(1); else handled = false; break;
      case "ArrowUp": if (selecting) this.tokens.moveRow(-1); else handled = false; break;
      case "l": this.goTo(this.step + big); break;
      case "h": this.goTo(this.step - big); break;
      case "Enter": if (!selecting && !ev.shiftKey) this.tokens.select(Math.max(0, this.data.fedAt(this.step).partial - 1)); else handled = false; break;
      case "Escape": if (selecting || this.tokens.cardOpen()) this.tokens.closeCard(); else handled = false; break;
      case "n": this.nextFinding(1); break;
      case "N": this.nextFinding(-1); break;
      case "Home": this.goTo(0); break;
      case "End": this.goTo(this.data.nSteps - 1); break;
      case " ": case "k": this.toggle(); break;
      default: handled = false;
    }
    if (handled) { ev.preventDefault(); ev.stopPropagation(); }
  }

  // ---- findings --------------------------------------------------------------------
  /** n / Shift+n: the next / previous finding that the filter shows, after the step shown, wrapping. */
  private nextFinding(dir: 1 | -1): void {
    const i = this.data.findings.next(this.step, dir, this.findings.filter, this.findings.focused);
    if (i >= 0) this.focusFinding(i);
  }

  /** Step to where finding i was found, mark its chips `data-focus` and scroll them into view. */
  focusFinding(i: number): void {
    const f = this.data.findings;
    if (i < 0 || i >= f.n) return;
    this.findings.focused = i;
    this.tokens.focus(f.chipA[i] >= 0 ? [f.chipA[i], f.chipB[i]] : null, false);
    if (f.step[i] !== this.step) this.goTo(f.step[i]);
    else this.findings.render(this.data, this.step);
    this.tokens.focus(f.chipA[i] >= 0 ? [f.chipA[i], f.chipB[i]] : null);  // after the step: its chips in view, not the chunk's
    this.findings.scrollToCurrent();
  }

  private setChunking(value: string): void {
    if (!value) return;
    this.model.set("chunking", value);
    this.model.save_changes();
  }

  private syncChunkControls(): void {
    // A saved page has no Python to cut the stream again: it shows no chunking controls at all.
    const live = Boolean(this.model.get("_live"));
    this.chunkSel.style.display = live ? "" : "none";
    this.chunkInput.style.display = live ? "" : "none";
    if (!live) return;
    const current = String(this.model.get("chunking") ?? this.data.meta.chunking);
    const presets = this.model.get("chunkings") ?? [];
    this.chunkSel.textContent = "";
    const all = presets.includes(current) ? presets : [current, ...presets];
    for (const p of all) this.chunkSel.append(h("option", { value: p }, `chunks: ${p}`));
    this.chunkSel.append(h("option", { value: "custom" }, "custom…"));
    this.chunkSel.value = current;
    this.chunkSel.title = "how the stream is cut into steps (recomputed in Python)";
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
    this.fillLegend();
    this.errorEl.textContent = String(this.model.get("error") ?? "");
    this.renderStep();
    this.api.render(this.data, this.step);
  }

  renderStep(): void {
    const d = this.data, s = this.step;
    const fed = d.fedAt(s);
    const flush = s === d.nSteps - 1 && s > 0;
    this.tokens.render(d, s);  // first: it reads the scroll position before anything is written
    this.stepEl.textContent = stepLabel(s, d.nSteps, fed.full, flush);
    this.stepEl.dataset.step = String(s);
    this.scrub.value = String(s);
    // a focused finding goes with the step that found it
    if (this.findings.focused >= 0 && d.findings.step[this.findings.focused] > s) { this.findings.focused = -1; this.tokens.focus(null, false); }
    for (const p of [this.state, this.events, this.log, this.findings, this.conversation]) p.render(d, s);
    this.api.later(d, s);
    if (this.scrollTimer === undefined) this.scrollTimer = window.requestAnimationFrame(() => { this.scrollTimer = undefined; this.followPanels(); });
  }

  /** Scroll the event log to its end, the findings to the newest (or focused) one and the conversation to its newest card. */
  private followPanels(): void {
    this.log.scrollToEnd();
    this.findings.scrollToCurrent();
    if (this.tokens.follow) this.conversation.scrollToNewest();
  }
}
