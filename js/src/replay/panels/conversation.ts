// The conversation: one card per started message (the newest CARD_LIMIT), extended in place as it streams.
import { h } from "../../shared/dom";
import type { TraceData } from "../trace";
import type { MessageMeta } from "../types";
import { section, type Panel } from "./panel";

const CARD_LIMIT = 16;
const CARD_CHARS = 2000;

/** A drawn card and what it shows, so a step can extend it in place. */
interface Card {
  el: HTMLElement;
  key: string;
  deltas: number;
  ended: boolean;
  text: Text | null;
  chars: number;
  pretty: boolean;
}

function cardTitle(m: MessageMeta): string {
  let t = `#${m.index} ${m.role ?? "?"}`;
  if (m.name) t += ` (${m.name})`;
  if (m.recipient) t += ` → ${m.recipient}`;
  if (m.channel) t += ` · ${m.channel}`;
  if (m.content_type) t += ` · ${m.content_type}`;
  return t;
}

export class ConversationPanel implements Panel {
  readonly box = section("conversation", "Conversation");
  private cards = new Map<number, Card>();
  /** analysis cards the user opened or closed, by message index; kept across redraws */
  private openState = new Map<number, boolean>();

  reset(): void {
    for (const c of this.cards.values()) c.el.remove();
    this.cards.clear();
  }

  render(d: TraceData, s: number): void {
    const body = this.box.body;
    // messages start in step order: the started ones are a prefix of the list
    let lo = 0, hi = d.messages.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (d.messages[mid].step_started <= s) lo = mid + 1; else hi = mid; }
    const nStarted = lo;
    const shown: Array<readonly [MessageMeta, number]> = [];
    for (let i = Math.max(0, nStarted - CARD_LIMIT); i < nStarted; i++) shown.push([d.messages[i], i] as const);
    const keep = new Set(shown.map(([m]) => m.index));
    let reorder = false;
    for (const [k, c] of this.cards) if (!keep.has(k)) { c.el.remove(); this.cards.delete(k); reorder = true; }
    let note = body.querySelector<HTMLElement>(".hv-more");
    if (nStarted > shown.length) {
      if (!note) { note = h("div", { class: "hv-more" }); body.prepend(note); }
      note.textContent = `… ${nStarted - shown.length} earlier messages`;
    } else note?.remove();
    const empty = body.querySelector<HTMLElement>(".hv-empty");
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
      const card = this.buildCard(m, d.contentAt(i, s, CARD_CHARS), ended);
      if (old) old.el.replaceWith(card.el); else { body.appendChild(card.el); reorder = true; }
      this.cards.set(m.index, { ...card, key, deltas: n, ended });
    }
    // cards come and go when scrubbing backwards: put them back in message order
    if (reorder) for (const [m] of shown) { const c = this.cards.get(m.index); if (c) body.appendChild(c.el); }
  }

  /** Scroll to the newest card. */
  scrollToNewest(): void {
    const body = this.box.body;
    const cards = body.querySelectorAll<HTMLElement>(".hv-card");
    const lastCard = cards[cards.length - 1];
    if (lastCard) body.scrollTop = lastCard.offsetTop - 4;  // the body is the cards' offsetParent
  }

  private buildCard(m: MessageMeta, content: { text: string; truncated: boolean }, ended: boolean): { el: HTMLElement; text: Text | null; chars: number; pretty: boolean } {
    const card = h("div", { class: `hv-card hv-k-${m.kind} hv-r-${m.role ?? "none"}`, "data-message": String(m.index), "data-kind": m.kind });
    const head = h("div", { class: "hv-card-head" });
    head.append(h("span", { class: "hv-card-title" }, cardTitle(m)));
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
}
