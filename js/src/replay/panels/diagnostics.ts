// Diagnostics reported so far, newest LOG_LIMIT of them; redrawn only when the count changes.
import { h } from "../../shared/dom";
import type { TraceData } from "../trace";
import { LOG_LIMIT, section, type Panel, type ViewActions } from "./panel";

export class DiagnosticsPanel implements Panel {
  readonly box = section("diagnostics", "Diagnostics");
  private shown = -1;

  constructor(private actions: ViewActions) {}

  reset(): void { this.shown = -1; }

  render(d: TraceData, s: number): void {
    const count = d.diagnosticCount(s);
    if (count === this.shown) return;  // diagnostics only change when one is reported
    this.shown = count;
    const body = this.box.body;
    body.textContent = "";
    this.box.title.textContent = `Diagnostics (${count})`;
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
      div.addEventListener("click", (ev) => { ev.preventDefault(); this.actions.highlight(event.start, event.end); });
      body.appendChild(div);
    }
  }
}
