// Entry point of a saved "chat template" page: the render diff, embedded in the page, no kernel.
import { renderDiffPanel } from "./src/playground/diff";
import type { DiffPayload } from "./src/playground/types";

function boot(): void {
  const script = document.getElementById("hv-data");
  const host = document.getElementById("hv-app");
  if (!script || !host) return;
  const data = JSON.parse(script.textContent ?? "{}") as { diff: DiffPayload };
  const root = document.createElement("div");
  root.className = "hv-root hv-pg hv-by-channel";
  root.dataset.hv = "template-page";
  const panel = document.createElement("div");
  panel.className = "hv-pg-diff";
  panel.dataset.hv = "diff";
  root.appendChild(panel);
  host.appendChild(root);
  renderDiffPanel(panel, data.diff);
  performance.mark("hv-rendered");
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
