// The scanner state panel: one row per snapshot field, cells rewritten only when their text changes.
import { h } from "../../shared/dom";
import { escapeText } from "../../shared/labels";
import type { TraceData } from "../trace";
import { section, type Panel } from "./panel";

const FIELDS = ["state", "position", "message", "role", "name", "recipient", "channel", "content_type", "pending_header", "held_back", "messages", "diagnostics"];
const ESCAPED = new Set(["pending_header", "held_back"]);  // raw stream text: show what is invisible

export class StatePanel implements Panel {
  readonly box = section("state", "Scanner state");
  private cells = new Map<string, HTMLElement>();

  reset(): void { this.cells.clear(); }

  render(d: TraceData, s: number): void {
    const body = this.box.body;
    if (this.cells.size === 0 || !body.firstChild) {
      body.textContent = "";
      this.cells.clear();
      const table = h("table", { class: "hv-kv" });
      for (const f of FIELDS) {
        const tr = h("tr");
        tr.dataset.field = f;
        const td = h("td");
        tr.append(h("th", {}, f), td);
        table.appendChild(tr);
        this.cells.set(f, td);
      }
      body.appendChild(table);
    }
    for (const f of FIELDS) {
      const v = d.snapshotField(f, s);
      const shown = v === null || v === undefined ? "—" : typeof v === "string" ? (ESCAPED.has(f) ? escapeText(v) : v) : String(v);
      const td = this.cells.get(f)!;
      if (td.textContent !== shown) td.textContent = shown;
    }
  }
}
