// The site's pure logic (no DOM): rates in words, file names, the order results are shown in. node's tests run it (js/test/site.test.mjs).
import type { Rate, SiteResult } from "./types";

/** A rate in words: "40/52 (77%)", or "–" when nothing is served. */
export function rateText(r: Rate | undefined): string {
  if (!r || !r.served) return "–";
  return `${r.passing}/${r.served} (${Math.round((100 * r.passing) / r.served)}%)`;
}

/** A case's page, from the site's top: case/header--no-channel.html. */
export function caseHref(root: string, slug: string): string {
  return `${root}case/${slug}.html`;
}

export function engineHref(root: string, slug: string): string {
  return `${root}engine/${slug}.html`;
}

/** The results of one case and engine version in the APIs' order the data gives. */
export function byApi(results: SiteResult[], apis: string[]): SiteResult[] {
  const order = (a: string): number => (apis.indexOf(a) < 0 ? apis.length : apis.indexOf(a));
  return [...results].sort((x, y) => order(x.api) - order(y.api));
}

/** A failing result's cell words: its status, its codes, its triage. */
export function resultWords(r: SiteResult): string {
  const kind = r.knownKind ? ` [${r.knownKind}]` : "";
  return `${r.status}${r.codes.length ? `: ${r.codes.join(", ")}` : ""}${kind}`;
}

/** The share of served results that pass, as a CSS class: good, fair, poor, bad, none. */
export function rateClass(r: Rate | undefined): string {
  if (!r || r.rate === null || !r.served) return "none";
  return r.rate >= 0.9 ? "good" : r.rate >= 0.75 ? "fair" : r.rate >= 0.5 ? "poor" : "bad";
}

/** Group results by a key, keeping first-seen order. */
export function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    if (!out.has(key(t))) out.set(key(t), []);
    out.get(key(t))!.push(t);
  }
  return out;
}
