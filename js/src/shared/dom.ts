// DOM helpers both views use: elements with attributes and text (never HTML), the legend, the tooltip.
import { legend, type ColourMode } from "./labels";

/** An element with attributes and text content; model text is data, never markup. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  // a form control named only by its title has no name for a screen reader (axe's label-title-only): the title names it
  if ((tag === "select" || tag === "input" || tag === "textarea") && attrs.title && !attrs["aria-label"]) e.setAttribute("aria-label", attrs.title);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Make a scrolling box reachable by keyboard (Tab, then the arrows scroll it) and name it for a screen reader. */
export function scrollRegion<E extends HTMLElement>(el: E, name: string): E {
  el.tabIndex = 0;
  if (el.tagName !== "UL" && el.tagName !== "OL") el.setAttribute("role", "region");  // a list stays a list
  el.setAttribute("aria-label", name);
  return el;
}

/** Fill `el` with the colour legend of a mode: a swatch and a name per entry. */
export function fillLegend(el: HTMLElement, mode: ColourMode): void {
  el.textContent = "";
  for (const [name, colour, key] of legend(mode)) {
    const item = h("span", { class: "hv-legend-item" });
    // the class gives the swatch its channel's or role's line pattern (widget.css), as on the chips
    const sw = h("span", { class: `hv-swatch hv-${mode === "channel" ? "k" : "r"}-${key}` });
    sw.style.background = colour;
    item.append(sw, document.createTextNode(name));
    el.appendChild(item);
  }
}

/** The hover card: on document.body, so notebook chrome cannot clip it. */
export class Tooltip {
  readonly el = h("div", { class: "hv-tip", "data-hv": "tooltip", role: "tooltip" });

  constructor() { document.body.appendChild(this.el); }

  /** Show one line per [label, value]. */
  show(lines: Array<[string, string]>): void {
    this.el.textContent = "";
    for (const [k, v] of lines) {
      const row = h("div");
      row.append(h("b", {}, k + " "), h("span", {}, v));
      this.el.appendChild(row);
    }
    this.el.style.display = "block";
  }

  /** Show one element instead of lines (the replay's token card). */
  showNode(node: HTMLElement): void {
    this.el.textContent = "";
    this.el.appendChild(node);
    this.el.style.display = "block";
  }

  hide(): void { this.el.style.display = "none"; }

  /** Place the card below (or above) a rectangle on screen, inside the window: pinned to an element, not the pointer. */
  placeBy(rect: DOMRect): void {
    if (this.el.style.display !== "block") return;
    const w = this.el.offsetWidth, ht = this.el.offsetHeight;
    const x = Math.min(rect.left, window.innerWidth - w - 4);
    const y = rect.bottom + 6 + ht > window.innerHeight ? rect.top - ht - 6 : rect.bottom + 6;
    this.el.style.left = `${Math.max(0, x)}px`;
    this.el.style.top = `${Math.max(0, y)}px`;
  }

  /** Place the card by the pointer, inside the window. */
  move(ev: MouseEvent): void {
    if (this.el.style.display !== "block") return;
    const w = this.el.offsetWidth, ht = this.el.offsetHeight;
    const x = Math.min(ev.clientX + 14, window.innerWidth - w - 4);
    const y = ev.clientY + 18 + ht > window.innerHeight ? ev.clientY - ht - 10 : ev.clientY + 18;
    this.el.style.left = `${Math.max(0, x)}px`;
    this.el.style.top = `${Math.max(0, y)}px`;
  }

  remove(): void { this.el.remove(); }
}
