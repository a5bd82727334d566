// The playground's DOM: message cards, the token stream, diagnostics, the layout diff, the replay.
// Model text only ever goes through textContent / value, never innerHTML: text is data, not markup.
import { FIRST_SPECIAL } from "../shared/constants";
import { Tooltip, fillLegend, h, scrollRegion } from "../shared/dom";
import { chipLabel, escapeText } from "../shared/labels";
import { layoutSelect, renderDiffPanel } from "./diff";
import { EFFORTS, ROLES, clone, diagnosticMarks, messageOfToken, moveMessage, newMessage, parseIds, removeMessage, setHeader } from "./pure";
import type { ContentPart, DiagnosticDict, MessageDict, PlaygroundModel, PlaygroundTraits, StreamPayload } from "./types";

const EDIT_DELAY_MS = 350;
const TYPING_GRACE_MS = 1500;
// Chips are plain DOM (no virtual window): past this many the chips stop, the raw editor keeps everything.
const MAX_CHIPS = 6000;
const SEVERITY = ["", "info", "warning", "error"];

export class PlaygroundView {
  private model: PlaygroundModel;
  private root = h("div", { class: "hv-root hv-pg hv-by-channel", "data-hv": "playground" });
  private listeners: Array<[string, () => void]> = [];
  private msgs: MessageDict[] = [];
  private mode: "text" | "ids" = "text";
  private timer: number | undefined;
  private hovered = -1;
  private lastCommit = -Infinity;
  private replayView: { el: HTMLElement; remove?(): void } | null = null;

  private presetSel = h("select", { "data-hv": "preset", title: "start from a preset" });
  private errorEl = h("span", { class: "hv-error", "data-hv": "error", role: "alert" });
  private cardsEl = scrollRegion(h("div", { class: "hv-pg-cards", "data-hv": "messages" }), "messages");
  private addSel = h("select", { "data-hv": "add-message", title: "add a message at the end" });
  private originEl = h("span", { class: "hv-pg-origin", "data-hv": "origin" });
  private modeBtn = h("button", { type: "button", "data-hv": "mode", title: "show token text or token ids" }, "ids");
  private tokensEl = scrollRegion(h("div", { class: "hv-pg-tokens", "data-hv": "tokens" }), "tokens");
  private altEl = scrollRegion(h("div", { class: "hv-pg-tokens hv-pg-alt", "data-hv": "tokens-alt" }), "tokens, the other layout");
  private raw = h("textarea", { class: "hv-pg-raw", "data-hv": "raw", rows: "6", spellcheck: "false",
    title: "edit the stream; Ctrl+Enter or 'apply' sends it to Python to be scanned" });
  private rawErr = h("span", { class: "hv-error", "data-hv": "raw-error" });
  private diagEl = scrollRegion(h("ul", { class: "hv-pg-diags", "data-hv": "diagnostics" }), "diagnostics");
  private diffBtn = h("button", { type: "button", "data-hv": "diff-toggle", title: "compare openai-harmony's layout with the model's" }, "render diff");
  private diffEl = h("div", { class: "hv-pg-diff", "data-hv": "diff" });
  private replayEl = h("div", { class: "hv-pg-replay", "data-hv": "replay-view" });
  private tip = new Tooltip();

  constructor(model: PlaygroundModel, el: HTMLElement) {
    this.model = model;
    el.appendChild(this.root);
    this.build();
    this.msgs = clone(model.get("messages") ?? []);
    this.renderPresets();
    this.renderCards();
    this.renderStream();
    this.renderDiff();
    this.renderError();
    void this.renderReplay();
    this.on("change:messages", () => this.messagesChanged());
    this.on("change:_stream", () => this.renderStream());
    this.on("change:diagnostics", () => this.renderStream());
    this.on("change:preset", () => { this.presetSel.value = this.model.get("preset") ?? ""; });
    for (const name of ["_diff", "show_diff", "diff_layout"]) this.on(`change:${name}`, () => this.renderDiff());
    this.on("change:error", () => this.renderError());
    this.on("change:replay_widget", () => void this.renderReplay());
  }

  private on(ev: string, cb: () => void): void { this.model.on(ev, cb); this.listeners.push([ev, cb]); }

  destroy(): void {
    for (const [ev, cb] of this.listeners) this.model.off?.(ev, cb);
    if (this.timer !== undefined) window.clearTimeout(this.timer);
    this.replayView?.remove?.();
    this.tip.remove();
  }

  // ---- building ----------------------------------------------------------------------------

  private build(): void {
    const bar = h("div", { class: "hv-bar" });
    const replayBtn = h("button", { type: "button", "data-hv": "replay", title: "open this stream in the replay widget" }, "replay this");
    replayBtn.addEventListener("click", () => this.model.send({ type: "replay" }));
    this.presetSel.addEventListener("change", () => {
      if (!this.presetSel.value) return;
      this.model.set("preset", this.presetSel.value);
      this.model.save_changes();
    });
    this.diffBtn.addEventListener("click", () => {
      this.model.set("show_diff", !this.model.get("show_diff"));
      this.model.save_changes();
    });
    bar.append(h("b", {}, "Harmony playground"), this.presetSel, this.diffBtn, replayBtn, this.errorEl);

    const left = h("section", { class: "hv-panel hv-pg-left" });
    left.append(h("h4", { class: "hv-panel-title" }, "Messages"), this.cardsEl);
    this.addSel.append(h("option", { value: "" }, "+ add message…"), ...ROLES.map((r) => h("option", { value: r }, r)));
    this.addSel.addEventListener("change", () => {
      const role = this.addSel.value;
      this.addSel.value = "";
      if (!role) return;
      this.msgs.push(newMessage(role));
      this.renderCards();
      this.commit(true);
    });
    left.append(h("div", { class: "hv-pg-add" }, ""));
    (left.lastChild as HTMLElement).appendChild(this.addSel);

    const right = h("section", { class: "hv-panel hv-pg-right" });
    const sbar = h("div", { class: "hv-bar hv-pg-sbar" });
    this.modeBtn.addEventListener("click", () => { this.mode = this.mode === "text" ? "ids" : "text"; this.renderStream(); });
    const legendEl = h("span", { class: "hv-legend" });
    fillLegend(legendEl, "channel");
    sbar.append(this.modeBtn, this.originEl, legendEl);
    const apply = h("button", { type: "button", "data-hv": "apply", title: "scan this stream (Ctrl+Enter)" }, "apply");
    apply.addEventListener("click", () => this.applyRaw());
    this.raw.addEventListener("keydown", (ev) => { if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); this.applyRaw(); } });
    const rawBar = h("div", { class: "hv-bar" });
    rawBar.append(apply, this.rawErr);
    right.append(h("h4", { class: "hv-panel-title" }, "Stream"), sbar, this.tokensEl, this.altEl, this.raw, rawBar,
      h("h4", { class: "hv-panel-title" }, "Diagnostics and lints"), this.diagEl);
    for (const box of [this.tokensEl, this.altEl]) {
      box.addEventListener("mouseover", (ev) => this.hoverChip(ev));
      box.addEventListener("mousemove", (ev) => this.tip.move(ev));
      box.addEventListener("mouseleave", () => this.hoverToken(-1, null));
    }
    this.cardsEl.addEventListener("mouseover", (ev) => {
      const card = (ev.target as HTMLElement).closest<HTMLElement>("[data-hv=card]");
      this.highlightMessage(card ? Number(card.dataset.message) : -1);
    });
    this.cardsEl.addEventListener("mouseleave", () => this.highlightMessage(-1));

    const main = h("div", { class: "hv-pg-main" });
    main.append(left, right);
    this.root.append(bar, main, this.diffEl, this.replayEl);
  }

  private renderPresets(): void {
    this.presetSel.textContent = "";
    this.presetSel.appendChild(h("option", { value: "" }, "presets…"));
    for (const p of this.model.get("presets") ?? []) {
      const o = h("option", { value: p.name, title: p.description }, p.title);
      this.presetSel.appendChild(o);
    }
    this.presetSel.value = this.model.get("preset") ?? "";
  }

  private renderError(): void {
    this.errorEl.textContent = String(this.model.get("error") ?? "");
  }

  // ---- message cards -----------------------------------------------------------------------

  private messagesChanged(): void {
    const incoming = this.model.get("messages") ?? [];
    if (JSON.stringify(incoming) === JSON.stringify(this.msgs)) return;  // our own edit, echoed back
    // While the user types, a reply to an older edit must not overwrite newer keystrokes;
    // the pending (or next) commit sends the cards as they are now.
    if (this.timer !== undefined) return;
    if (this.cardsEl.contains(document.activeElement) && performance.now() - this.lastCommit < TYPING_GRACE_MS) return;
    this.msgs = clone(incoming);
    this.renderCards();
  }

  /** Send the edited list to Python (debounced while typing). */
  private commit(now = false): void {
    if (this.timer !== undefined) window.clearTimeout(this.timer);
    const send = () => { this.timer = undefined; this.lastCommit = performance.now(); this.model.set("messages", clone(this.msgs)); this.model.save_changes(); };
    if (now) send(); else this.timer = window.setTimeout(send, EDIT_DELAY_MS);
  }

  private renderCards(): void {
    // keep the caret where it was across a rebuild
    const active = document.activeElement as HTMLInputElement | HTMLTextAreaElement | null;
    let focus: { card: string; hv: string; pos: number | null } | null = null;
    if (active && this.cardsEl.contains(active)) {
      const card = active.closest<HTMLElement>("[data-hv=card]");
      focus = { card: card?.dataset.message ?? "", hv: active.dataset.hv ?? "", pos: "selectionStart" in active ? active.selectionStart : null };
    }
    this.cardsEl.textContent = "";
    this.msgs.forEach((m, i) => this.cardsEl.appendChild(this.card(m, i)));
    if (focus) {
      const el = this.cardsEl.querySelector<HTMLInputElement>(`[data-hv=card][data-message="${focus.card}"] [data-hv="${focus.hv}"]`);
      if (el) { el.focus(); if (focus.pos !== null && "setSelectionRange" in el) try { el.setSelectionRange(focus.pos, focus.pos); } catch { /* selects have no caret */ } }
    }
  }

  private field(label: string, input: HTMLElement): HTMLElement {
    const l = h("label", { class: "hv-pg-field" });
    l.append(h("span", {}, label), input);
    return l;
  }

  private input(hv: string, value: string, onInput: (v: string) => void, placeholder = ""): HTMLInputElement {
    const el = h("input", { type: "text", "data-hv": hv, placeholder, spellcheck: "false" });
    el.value = value;
    el.addEventListener("input", () => { onInput(el.value); this.commit(); });
    return el;
  }

  private area(hv: string, value: string, onInput: (v: string) => void, rows = 3): HTMLTextAreaElement {
    const el = h("textarea", { "data-hv": hv, rows: String(rows), spellcheck: "false", "aria-label": hv });
    el.value = value;
    el.addEventListener("input", () => { onInput(el.value); this.commit(); });
    return el;
  }

  private card(m: MessageDict, i: number): HTMLElement {
    const card = h("div", { class: `hv-pg-card hv-r-${m.role}`, "data-hv": "card" });
    card.dataset.message = String(i);
    const head = h("div", { class: "hv-pg-card-head" });
    const role = h("select", { "data-hv": "role", title: "role" });
    for (const r of ROLES) role.appendChild(h("option", { value: r }, r));
    role.value = m.role;
    role.addEventListener("change", () => { this.msgs[i] = { ...this.msgs[i], role: role.value }; this.commit(true); });
    const set = (f: "name" | "channel" | "recipient" | "content_type") => (v: string) => { this.msgs[i] = setHeader(this.msgs[i], f, v); };
    const btn = (hv: string, label: string, title: string, act: () => void) => {
      const b = h("button", { type: "button", "data-hv": hv, title }, label);
      b.addEventListener("click", () => { act(); this.renderCards(); this.commit(true); });
      return b;
    };
    head.append(h("span", { class: "hv-pg-idx" }, `#${i}`), role,
      btn("move-up", "↑", "move up", () => { this.msgs = moveMessage(this.msgs, i, -1); }),
      btn("move-down", "↓", "move down", () => { this.msgs = moveMessage(this.msgs, i, 1); }),
      btn("remove", "✕", "remove this message", () => { this.msgs = removeMessage(this.msgs, i); }));
    const fields = h("div", { class: "hv-pg-fields" });
    fields.append(
      this.field("name", this.input("name", m.name ?? "", set("name"), m.role === "tool" ? "functions.get_weather" : "")),
      this.field("channel", this.input("channel", m.channel ?? "", set("channel"), "analysis / commentary / final")),
      this.field("recipient", this.input("recipient", m.recipient ?? "", set("recipient"), "functions.x")),
      this.field("content type", this.input("content-type", m.content_type ?? "", set("content_type"), "<|constrain|>json")));
    card.append(head, fields);
    m.content.forEach((part, j) => card.appendChild(this.contentPart(i, j, part)));
    return card;
  }

  private contentPart(i: number, j: number, part: ContentPart): HTMLElement {
    const box = h("div", { class: "hv-pg-content" });
    const upd = (key: string, value: unknown) => {
      const c = clone(this.msgs[i].content[j]);
      if (value === undefined) delete c[key]; else c[key] = value;
      this.msgs[i].content[j] = c;
    };
    const jsonArea = (hv: string, key: string, rows: number) => {
      const err = h("span", { class: "hv-error", "data-hv": `${hv}-error` });
      const el = h("textarea", { "data-hv": hv, rows: String(rows), spellcheck: "false", placeholder: "{} (tool namespaces as JSON Schema)" });
      el.value = part[key] === undefined ? "" : JSON.stringify(part[key], null, 1);
      el.addEventListener("input", () => {
        if (el.value.trim() === "") { err.textContent = ""; upd(key, undefined); this.commit(); return; }
        try { upd(key, JSON.parse(el.value)); err.textContent = ""; this.commit(); } catch (e) { err.textContent = `not JSON yet: ${(e as Error).message}`; }
      });
      const l = this.field(key, el);
      l.appendChild(err);
      return l;
    };
    const str = (key: string) => (typeof part[key] === "string" ? (part[key] as string) : "");
    const opt = (key: string) => (v: string) => upd(key, v === "" ? undefined : v);
    if (part.type === "text") {
      box.appendChild(this.area("content", str("text"), (v) => upd("text", v), 3));
    } else if (part.type === "system_content") {
      const effort = h("select", { "data-hv": "reasoning-effort", "aria-label": "reasoning effort" });
      effort.appendChild(h("option", { value: "" }, "(none)"));
      for (const e of EFFORTS) effort.appendChild(h("option", { value: e }, e));
      effort.value = str("reasoning_effort");
      effort.addEventListener("change", () => { opt("reasoning_effort")(effort.value); this.commit(true); });
      const cc = part.channel_config as { valid_channels: string[]; channel_required: boolean } | undefined;
      box.append(
        this.field("identity", this.input("model-identity", str("model_identity"), opt("model_identity"))),
        this.field("reasoning effort", effort),
        this.field("date", this.input("date", str("conversation_start_date"), opt("conversation_start_date"), "2025-08-05")),
        this.field("knowledge cutoff", this.input("knowledge-cutoff", str("knowledge_cutoff"), opt("knowledge_cutoff"))),
        this.field("channels", this.input("channels", cc ? cc.valid_channels.join(", ") : "", (v) => {
          const chans = v.split(",").map((s) => s.trim()).filter(Boolean);
          upd("channel_config", chans.length ? { valid_channels: chans, channel_required: cc?.channel_required ?? true } : undefined);
        }, "analysis, commentary, final")),
        jsonArea("tools", "tools", 3));
    } else if (part.type === "developer_content") {
      box.append(this.field("instructions", this.area("instructions", str("instructions"), opt("instructions"), 3)), jsonArea("tools", "tools", 4));
    } else {
      box.appendChild(h("pre", {}, JSON.stringify(part, null, 1)));
    }
    return box;
  }

  // ---- the stream --------------------------------------------------------------------------

  private applyRaw(): void {
    this.rawErr.textContent = "";
    if (this.mode === "text") { this.model.set("text", this.raw.value); this.model.save_changes(); return; }
    try { this.model.set("tokens", parseIds(this.raw.value)); this.model.save_changes(); } catch (e) { this.rawErr.textContent = (e as Error).message; }
  }

  private renderStream(): void {
    const ids = this.model.get("tokens") ?? [];
    const s = this.model.get("_stream") as StreamPayload;
    const diags = this.model.get("diagnostics") ?? [];
    const marks = diagnosticMarks(ids.length, diags);
    const origin = this.model.get("origin");
    this.originEl.textContent = `${ids.length} tokens · ${origin === "messages" ? "rendered from the messages" : `kept as given (${origin})`}`;
    this.modeBtn.textContent = this.mode === "text" ? "show ids" : "show text";
    this.tokensEl.textContent = ""; this.altEl.textContent = "";
    const ft = document.createDocumentFragment(), fa = document.createDocumentFragment();
    const shown = Math.min(ids.length, MAX_CHIPS);
    if (shown < ids.length) this.originEl.textContent += ` · chips for the first ${shown} only`;
    for (let t = 0; t < shown; t++) {
      const mi = messageOfToken(s.messages, t);
      const m = mi >= 0 ? s.messages[mi] : null;
      let cls = `hv-tok hv-k-${m ? m.kind : "none"} hv-r-${m ? m.role : "none"}`;
      if (ids[t] >= FIRST_SPECIAL) cls += " hv-special"; else if (m && t < m.header_end) cls += " hv-header";
      if (marks[t]) cls += ` hv-pg-diag-${SEVERITY[marks[t]]}`;
      const text = s.pieces[t] ?? "";
      const main = h("span", { class: cls, "data-hv": "token" }, this.mode === "text" ? chipLabel(text, true) : String(ids[t]));
      const alt = h("span", { class: cls, "data-hv": "alt-token" }, this.mode === "text" ? String(ids[t]) : chipLabel(text, true));
      for (const c of [main, alt]) { c.dataset.i = String(t); c.dataset.id = String(ids[t]); c.dataset.message = String(m ? m.index : -1); }
      ft.appendChild(main); fa.appendChild(alt);
      if (text.endsWith("\n") && this.mode === "text") ft.appendChild(h("br"));
    }
    this.tokensEl.appendChild(ft); this.altEl.appendChild(fa);
    if (document.activeElement !== this.raw) this.raw.value = this.mode === "text" ? (this.model.get("text") ?? "") : JSON.stringify(ids);
    this.rawErr.textContent = "";
    this.renderDiagnostics(diags);
  }

  private renderDiagnostics(diags: DiagnosticDict[]): void {
    this.diagEl.textContent = "";
    if (diags.length === 0) { this.diagEl.appendChild(h("li", { class: "hv-pg-none" }, "no diagnostics")); return; }
    for (const d of diags) {
      const li = h("li", { class: `hv-pg-diag hv-pg-sev-${d.severity}`, "data-hv": "diagnostic" });
      li.dataset.code = d.code; li.dataset.start = String(d.start); li.dataset.end = String(d.end);
      li.append(h("b", {}, `${d.severity} ${d.code}`), h("span", { class: "hv-pg-span" }, ` tokens ${d.start}–${d.end} · ${d.source}: `), h("span", {}, d.message));
      li.addEventListener("mouseenter", () => this.highlightSpan(d.start, Math.max(d.end, d.start + 1)));
      li.addEventListener("mouseleave", () => this.highlightSpan(-1, -1));
      li.addEventListener("click", () => this.tokensEl.querySelector<HTMLElement>(`[data-i="${d.start}"]`)?.scrollIntoView({ block: "nearest" }));
      this.diagEl.appendChild(li);
    }
  }

  private chips(t: number): HTMLElement[] {
    return Array.from(this.root.querySelectorAll<HTMLElement>(`.hv-pg-tokens [data-i="${t}"]`));
  }

  private highlightSpan(a: number, b: number): void {
    for (const c of this.root.querySelectorAll(".hv-pg-tokens .hv-hl")) c.classList.remove("hv-hl");
    for (let t = a; t < b; t++) for (const c of this.chips(t)) c.classList.add("hv-hl");
  }

  private highlightMessage(mi: number): void {
    for (const c of this.cardsEl.querySelectorAll(".hv-pg-card-hl")) c.classList.remove("hv-pg-card-hl");
    const s = this.model.get("_stream") as StreamPayload;
    const m = s.messages.find((x) => x.index === mi);
    if (mi >= 0) this.cardsEl.querySelector(`[data-hv=card][data-message="${mi}"]`)?.classList.add("hv-pg-card-hl");
    if (!this.hoveredFromStream) this.highlightSpan(m ? m.start : -1, m ? m.end : -1);
  }

  private hoveredFromStream = false;

  private hoverChip(ev: MouseEvent): void {
    const chip = (ev.target as HTMLElement).closest<HTMLElement>("[data-i]");
    this.hoverToken(chip ? Number(chip.dataset.i) : -1, ev);
  }

  /** Highlight token t on both views and its message card; show what it is. */
  private hoverToken(t: number, ev: MouseEvent | null): void {
    if (t === this.hovered) return;
    this.hovered = t;
    for (const c of this.root.querySelectorAll(".hv-pg-tokens .hv-pg-hover")) c.classList.remove("hv-pg-hover");
    if (t < 0) { this.tip.hide(); this.hoveredFromStream = false; this.highlightMessage(-1); return; }
    for (const c of this.chips(t)) c.classList.add("hv-pg-hover");
    this.hoveredFromStream = true;
    const chip = this.chips(t)[0];
    this.highlightMessage(Number(chip?.dataset.message ?? -1));
    this.showTip(t);
    if (ev) this.tip.move(ev);
  }

  private showTip(t: number): void {
    const ids = this.model.get("tokens") ?? [];
    const s = this.model.get("_stream") as StreamPayload;
    const id = ids[t];
    const lines: Array<[string, string]> = [["token", `#${t}  id ${id}`], ["text", escapeText(s.pieces[t] ?? "")]];
    const g = s.groups[t];
    if (g !== t || (t + 1 < s.groups.length && s.groups[t + 1] === t)) lines.push(["character", "one character split across several tokens"]);
    const ctl = (this.model.get("_controls") ?? {})[String(id)];
    if (ctl) lines.push(["control", `${ctl.literal} (${id}, ${ctl.kind}): ${ctl.meaning}`]);
    else if (id >= FIRST_SPECIAL) lines.push(["control", `reserved token ${id}: never emitted by a well-behaved model`]);
    const mi = messageOfToken(s.messages, t);
    if (mi >= 0) {
      const m = s.messages[mi];
      lines.push(["message", `#${m.index} ${m.role}${m.name ? ":" + m.name : ""}${m.recipient ? " → " + m.recipient : ""} · ${m.channel ?? "(no channel)"} · ${m.kind}${t < m.header_end ? " · header" : ""}`]);
    } else lines.push(["message", "(outside any message)"]);
    for (const d of this.model.get("diagnostics") ?? []) {
      if ((d.start <= t && t < d.end) || (d.start === d.end && d.start === t)) lines.push([d.severity, `${d.code}: ${d.message}`]);
    }
    this.tip.show(lines);
  }

  // ---- the layout diff and the replay --------------------------------------------------------

  private renderDiff(): void {
    const on = !!this.model.get("show_diff");
    this.diffBtn.classList.toggle("hv-pg-on", on);
    this.diffEl.textContent = "";
    this.diffEl.style.display = on ? "" : "none";
    if (!on) return;
    this.diffEl.appendChild(layoutSelect(this.model.get("diff_layout") ?? "model", (v) => { this.model.set("diff_layout", v as PlaygroundTraits["diff_layout"]); this.model.save_changes(); }));
    renderDiffPanel(this.diffEl, this.model.get("_diff") ?? {});
  }

  private async renderReplay(): Promise<void> {
    const ref = this.model.get("replay_widget");
    this.replayView?.remove?.();
    this.replayView = null;
    this.replayEl.textContent = "";
    if (!ref) return;
    const close = h("button", { type: "button", "data-hv": "replay-close" }, "close replay");
    close.addEventListener("click", () => this.model.send({ type: "close-replay" }));
    this.replayEl.appendChild(close);
    const wm = this.model.widget_manager;
    const id = String(ref).replace(/^IPY_MODEL_/, "");
    if (!wm || !wm.create_view) {
      this.replayEl.appendChild(h("div", {}, "the replay is in `replay_widget`; display it in a new cell"));
      return;
    }
    try {
      const child = await wm.get_model(id);
      const view = await wm.create_view(child);
      if (this.model.get("replay_widget") !== ref) { view.remove?.(); return; }
      this.replayView = view;
      this.replayEl.appendChild(view.el);
    } catch (e) {
      this.replayEl.appendChild(h("div", { class: "hv-error" }, `could not show the replay (${(e as Error).message}); display playground.replay_widget in a new cell`));
    }
  }
}
