// What every replay panel is: a titled section that owns its state and draws one step.
import { h, scrollRegion } from "../../shared/dom";
import type { TraceData } from "../trace";

/** A panel draws the trace as of a step; `reset` forgets what it drew (a new trace arrived). */
export interface Panel {
  render(data: TraceData, step: number): void;
  reset(): void;
}

/** What a panel may ask of the view around it. */
export interface ViewActions {
  /** highlight scanner-unit span [start, end) in the token pane and scroll to it */
  highlight(start: number, end: number): void;
  goTo(step: number): void;
  /** step to where finding i was found, mark its chips and bring them into view */
  focusFinding(i: number): void;
  /** the findings filter changed: redraw the chips' marks */
  refilter(): void;
  /** the server tab shows check i (an engine and api): the chips carry its fates */
  chooseCheck(i: number): void;
}

/** Most lines a list panel keeps (log, findings). */
export const LOG_LIMIT = 50;

export interface Section { el: HTMLElement; body: HTMLElement; title: HTMLElement }

/** A panel's frame: `data-hv-panel` on the section, `data-hv` on its body. */
export function section(hv: string, title: string): Section {
  const el = h("section", { class: `hv-panel hv-panel-${hv}`, "data-hv-panel": hv });
  const t = h("h4", { class: "hv-panel-title" }, title);
  // the body scrolls: the keyboard reaches it, named by the panel's title
  const body = scrollRegion(h("div", { class: "hv-panel-body", "data-hv": hv }), title);
  el.append(t, body);
  return { el, body, title: t };
}
