// Entry point of the published conformance site's pages (harmony-viz conformance --merge … --site DIR): each page's data
// is a JSON island (harmony_viz.conformance._site); this draws the index, an engine's page, a case's page or the rules.
import "./src/site/site.css";
import { drawSite } from "./src/site/draw";
import type { SitePage } from "./src/site/types";

function boot(): void {
  const script = document.getElementById("hv-data");
  const host = document.getElementById("hv-app");
  if (!script || !host) return;
  drawSite(host, JSON.parse(script.textContent ?? "{}") as SitePage);
  document.documentElement.dataset.hvDrawn = "1";
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
