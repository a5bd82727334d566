// The cumulative event log, its last LOG_LIMIT events; moving forward appends only what is new.
import { h } from "../../shared/dom";
import type { TraceData } from "../trace";
import { eventLine } from "./events";
import { LOG_LIMIT, section, type Panel, type ViewActions } from "./panel";

export class LogPanel implements Panel {
  readonly box = section("log", "Event log");
  private upTo = -1;
  private count = 0;

  constructor(private actions: ViewActions) {}

  reset(): void { this.upTo = -1; this.count = 0; }

  render(d: TraceData, s: number): void {
    const lb = this.box.body;
    const line = (e: Parameters<typeof eventLine>[0]) => eventLine(e, true, this.actions);
    const total = d.deltaByStep[s + 1] + d.rareByStep[s + 1];
    const fresh = s > this.upTo && this.upTo >= 0 ? d.eventsBetween(this.upTo + 1, s, LOG_LIMIT + 1) : null;
    const back = s < this.upTo && this.count - total <= LOG_LIMIT;
    if (fresh && fresh.skipped === 0 && fresh.events.length <= LOG_LIMIT) {
      for (const e of fresh.events) lb.appendChild(line(e));
      const lines = lb.querySelectorAll(".hv-ev");
      for (let i = 0; i < lines.length - LOG_LIMIT; i++) lines[i].remove();
    } else if (back) {
      // stepping back: drop the newest lines, then bring back the older ones that fit again
      const lines = lb.querySelectorAll(".hv-ev");
      const drop = this.count - total;
      for (let i = lines.length - drop; i < lines.length; i++) if (i >= 0) lines[i].remove();
      const kept = Math.max(0, lines.length - drop);
      const missing = Math.min(total, LOG_LIMIT) - kept;
      if (missing > 0) {
        const older = d.eventsBetween(0, s, LOG_LIMIT).events.slice(0, missing);
        let after: Element = lb.querySelector(".hv-more")!;
        for (const e of older) { const l = line(e); after.after(l); after = l; }
      }
    } else if (s !== this.upTo) {
      lb.textContent = "";
      lb.appendChild(h("div", { class: "hv-more" }));
      for (const e of d.eventsBetween(0, s, LOG_LIMIT).events) lb.appendChild(line(e));
    }
    const shown = Math.min(total, LOG_LIMIT);
    const more = lb.querySelector<HTMLElement>(".hv-more")!;
    more.textContent = total > shown ? `… ${total - shown} earlier events` : "";
    if (total !== this.count || s !== this.upTo) this.box.title.textContent = `Event log (${total} events)`;
    this.upTo = s;
    this.count = total;
  }

  /** Keep the newest line in sight. */
  scrollToEnd(): void { this.box.body.scrollTop = this.box.body.scrollHeight; }
}
