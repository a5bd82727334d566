// The API view: what each endpoint would have sent as of this step, one tab per projection,
// plus the server tab when the trace came from a server.
import { h, scrollRegion } from "../../shared/dom";
import { apiViewAt } from "../apiview";
import type { TraceData } from "../trace";
import type { ApiView } from "../types";
import { section, type Panel, type ViewActions } from "./panel";
import { renderDiffPanel } from "../../playground/diff";
import { renderServerPanel, serverChecks, serverPrompt } from "./server";

export class ApiPanel implements Panel {
  readonly box = section("api", "API view");
  private shown: unknown = null;
  private tab = "";
  private tabShown = "";
  private serverCheck = 0;
  private timer: number | undefined;
  private data: TraceData | null = null;
  private step = 0;
  private built: ApiView | null = null;

  constructor(private actions: ViewActions) {}

  reset(): void {
    this.shown = null;
    this.built = null;
    if (this.timer !== undefined) { window.clearTimeout(this.timer); this.timer = undefined; }
  }

  /** Draw after this frame: the view can be a long JSON document, off the step's critical path. */
  later(data: TraceData, step: number): void {
    this.data = data;
    this.step = step;
    if (this.timer === undefined) this.timer = window.setTimeout(() => { this.timer = undefined; this.draw(); }, 0);
  }

  render(data: TraceData, step: number): void {
    this.data = data;
    this.step = step;
    this.draw();
  }

  /** Go to the step where tokens [a, b) have been read, and highlight them (server lens). */
  private jumpToTokens(a: number, b: number): void {
    const d = this.data!, n = d.nTokens;
    const start = d.unitOfToken(Math.min(a, n)), end = b >= n ? d.stepEnds[d.nSteps - 1] : d.unitOfToken(b);
    let s = 0;
    while (s < d.nSteps - 1 && d.stepEnds[s] < end) s++;
    this.actions.goTo(s);
    this.actions.highlight(start, end);
  }

  /** The view at this step, built here from the payload (widget and saved page alike). */
  private pick(): ApiView {
    if (!this.data!.api) return { error: "this payload carries no API view data" };
    if (this.built?.step !== this.step) this.built = apiViewAt(this.data!, this.step);
    return this.built;
  }

  private draw(): void {
    if (!this.data) return;
    const body = this.box.body;
    const api = this.pick();
    // pretty-printing a long reasoning text is costly: redraw only when the view or tab changed
    if (api === this.shown && this.tab === this.tabShown && (api.step ?? 0) === this.step) return;
    this.shown = api;
    this.tabShown = this.tab;
    body.textContent = "";
    const checks = serverChecks(this.data.meta);
    if (api.error) body.appendChild(h("div", { class: "hv-error" }, api.error));
    const entries: Array<[string, unknown]> = Object.entries(api.views ?? {});
    if (checks && checks.length) entries.push(["server", checks]);  // server lens: its answer beside ours
    const prompt = serverPrompt(this.data.meta);
    if (prompt) entries.push(["prompt", prompt]);  // prompt lens: the prompt the server rendered beside the format's
    if (entries.length === 0) { body.appendChild(h("div", { class: "hv-empty" }, "no API view yet")); return; }
    const st = api.step ?? 0;
    body.appendChild(h("div", { class: "hv-note", "data-hv": "api-note" }, `step ${st}: what a streaming client holds (usage comes with the last chunk)`));
    if (!entries.some(([k]) => k === this.tab)) this.tab = entries[0][0];
    const tabs = h("div", { class: "hv-tabs" });
    for (const [k] of entries) {
      const b = h("button", { type: "button", class: k === this.tab ? "hv-tab hv-tab-on" : "hv-tab", "data-tab": k, ...(k === "server" || k === "prompt" ? { "data-hv": `api-tab-${k}` } : {}) }, k);
      b.addEventListener("click", () => { this.tab = k; this.draw(); });
      tabs.appendChild(b);
    }
    body.appendChild(tabs);
    const current = entries.find(([k]) => k === this.tab)![1];
    if (this.tab === "server" && checks) {
      renderServerPanel(body, checks, this.serverCheck, (i) => { this.serverCheck = i; this.shown = null; this.actions.chooseCheck(i); this.draw(); },
        (a, b) => this.jumpToTokens(a, b));
      return;
    }
    if (this.tab === "prompt" && prompt) {
      const panel = h("div", { class: "hv-pg hv-pg-diff", "data-hv": "prompt-panel" });
      if (prompt.error) panel.appendChild(h("div", { class: "hv-error" }, `the server refused the request: ${prompt.error}`));
      if (prompt.diff) renderDiffPanel(panel, prompt.diff);
      body.appendChild(panel);
      return;
    }
    body.appendChild(scrollRegion(h("pre", { class: "hv-json" }, JSON.stringify(current, null, 2)), "the client's object as JSON"));
  }
}
