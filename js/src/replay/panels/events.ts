// The events of the current step, and the line every event list draws.
import { h } from "../../shared/dom";
import { escapeText } from "../../shared/labels";
import type { TraceData } from "../trace";
import type { ShownEvent } from "../types";
import { LOG_LIMIT, section, type Panel, type ViewActions } from "./panel";

/** One event as a clickable line: type, message, detail, span (and its step in the log). */
export function eventLine(e: ShownEvent, withStep: boolean, actions: ViewActions): HTMLElement {
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
  div.addEventListener("click", () => actions.highlight(e.start, e.end));
  return div;
}

export class EventsPanel implements Panel {
  readonly box = section("events", "Events this step");

  constructor(private actions: ViewActions) {}

  reset(): void { /* redrawn whole every step */ }

  render(d: TraceData, s: number): void {
    const ev = d.eventsBetween(s, s, LOG_LIMIT);
    const body = this.box.body;
    body.textContent = "";
    if (ev.events.length === 0) body.appendChild(h("div", { class: "hv-empty" }, s === 0 ? "nothing fed yet" : "no events this step"));
    if (ev.skipped) body.appendChild(h("div", { class: "hv-more" }, `… ${ev.skipped} more`));
    for (const e of ev.events) body.appendChild(eventLine(e, false, this.actions));
  }
}
