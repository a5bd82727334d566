// Entry point of a saved page: no kernel, the trace is embedded in the page itself.
import { ReplayView } from "./src/replay/view";
import type { ReplayModel, ReplayTraits, TraceMeta } from "./src/replay/types";

interface Embedded {
  meta: TraceMeta;
  columns: string; // base64
  traits: Pick<ReplayTraits, "step" | "selected" | "chunking" | "chunkings" | "error">;
}

/** A stand-in for anywidget's model: the same get/set/on surface, local only. */
class PageModel implements ReplayModel {
  private values: ReplayTraits;
  private handlers = new Map<string, Array<() => void>>();
  constructor(values: ReplayTraits) { this.values = values; }
  get<K extends keyof ReplayTraits>(name: K): ReplayTraits[K] { return this.values[name]; }
  set<K extends keyof ReplayTraits>(name: K, value: ReplayTraits[K]): void {
    this.values[name] = value;
    for (const cb of this.handlers.get(`change:${String(name)}`) ?? []) cb();
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
