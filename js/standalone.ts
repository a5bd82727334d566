// Entry point of a saved page: no kernel, the trace is embedded in the page itself.
import { ReplayView, type ModelLike } from "./src/view";

interface Embedded {
  meta: unknown;
  columns: string; // base64
  traits: Record<string, unknown>;
  api_views: Array<[number, unknown]>;
}

/** A stand-in for anywidget's model: the same get/set/on surface, local only. */
class PageModel implements ModelLike {
  private values: Record<string, unknown>;
  private handlers = new Map<string, Array<() => void>>();
  constructor(values: Record<string, unknown>) { this.values = values; }
  get(name: string): any { return this.values[name]; }
  set(name: string, value: unknown): void {
    this.values[name] = value;
    for (const cb of this.handlers.get(`change:${name}`) ?? []) cb();
  }
  save_changes(): void { /* nothing to sync with */ }
  on(event: string, cb: () => void): void {
    const list = this.handlers.get(event) ?? [];
    list.push(cb);
    this.handlers.set(event, list);
  }
  off(event: string, cb: () => void): void {
    this.handlers.set(event, (this.handlers.get(event) ?? []).filter((x) => x !== cb));
  }
}

function decodeBase64(b64: string): DataView {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new DataView(bytes.buffer);
}

function boot(): void {
  const script = document.getElementById("hv-data");
  const host = document.getElementById("hv-app");
  if (!script || !host) return;
  const data = JSON.parse(script.textContent ?? "{}") as Embedded;
  const model = new PageModel({
    ...data.traits,
    _meta: data.meta,
    _columns: decodeBase64(data.columns),
    _api_views: data.api_views,
    _live: false,
  });
  const view = new ReplayView(model, host);
  (window as unknown as { harmonyViz: unknown }).harmonyViz = { model, view };
  // marks for benchmarks: DOM built, then the frame after it (the first paint with tokens)
  performance.mark("hv-rendered");
  requestAnimationFrame(() => requestAnimationFrame(() => performance.mark("hv-painted")));
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
