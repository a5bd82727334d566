// The site's pages drawn from their data: the index, an engine and version, a case, the rules. Every link is relative,
// so the folder can be served anywhere (or opened from disk); rows and cells carry data- attributes a test can read.
import { h, scrollRegion } from "../shared/dom";
import { byApi, caseHref, engineHref, groupBy, rateClass, rateText, resultWords } from "./model";
import type { CasePage, EnginePage, EngineRow, IndexPage, Rate, RulesPage, SitePage, SiteResult } from "./types";

const LEVEL_WHAT: Record<string, string> = {
  must: "what the format itself decides, on well-formed streams and requests",
  should: "recovery from malformed model output, where the format is silent",
  may: "our choice, where the stream is well formed but the format leaves the answer open",
};

function link(href: string, text: string, attrs: Record<string, string> = {}): HTMLAnchorElement {
  return h("a", { href, ...attrs }, text);
}

/** Text with its http(s) addresses as links (sources and provenance name bug reports). */
function linked(text: string): DocumentFragment {
  const out = document.createDocumentFragment();
  let last = 0;
  for (const m of text.matchAll(/https?:\/\/[^\s,;)]+/g)) {
    out.append(text.slice(last, m.index));
    out.append(link(m[0], m[0], { "data-hv": "external" }));
    last = (m.index ?? 0) + m[0].length;
  }
  out.append(text.slice(last));
  return out;
}

function rateCell(r: Rate | undefined, href = ""): HTMLTableCellElement {
  const td = h("td", { class: `rate rate-${rateClass(r)}`, "data-passing": String(r?.passing ?? 0), "data-served": String(r?.served ?? 0) });
  if (href && r && r.served) td.appendChild(link(href, rateText(r)));
  else td.textContent = rateText(r);
  return td;
}

function nav(p: SitePage): HTMLElement {
  const n = h("nav", { "data-hv": "nav", "aria-label": "site" });
  n.append(link(`${p.root}index.html`, "engines and releases"), " · ", link(`${p.root}rules.html`, "the rules"), " · ");
  p.engines.forEach((e, i) => {
    if (i) n.append(", ");
    n.append(link(engineHref(p.root, e.slug), `${e.engine} ${e.version}`));
  });
  return n;
}

function levelTag(level: string): HTMLElement {
  return h("span", { class: `lvl lvl-${level || "none"}`, title: LEVEL_WHAT[level] ?? "unrated" }, level || "unrated");
}

function statusCell(r: SiteResult | undefined): HTMLTableCellElement {
  if (!r) return h("td", { class: "st st-absent" }, "");
  const td = h("td", { class: `st st-${r.status}`, "data-hv": "result", "data-status": r.status, "data-api": r.api, "data-level": r.level,
    ...(r.knownKind ? { "data-known-kind": r.knownKind } : {}), title: [resultWords(r), r.reason, r.error].filter(Boolean).join("\n") });
  td.append(h("b", {}, r.status));
  if (r.codes.length) td.append(" ", h("span", { class: "codes" }, r.codes.join(", ")));
  if (r.knownKind) td.append(" ", h("span", { class: `kk kk-${r.knownKind}` }, r.knownKind));
  return td;
}

function levelsNote(): HTMLElement {
  const ul = h("ul", { class: "levels" });
  for (const [lv, what] of Object.entries(LEVEL_WHAT)) {
    const li = h("li");
    li.append(levelTag(lv), ` ${what}`);
    ul.appendChild(li);
  }
  return ul;
}

function kindsNote(p: SitePage): HTMLElement {
  const ul = h("ul", { class: "kinds" });
  for (const k of p.knownKinds) {
    const li = h("li");
    li.append(h("span", { class: `kk kk-${k.kind}` }, k.kind), ` ${k.what}`);
    ul.appendChild(li);
  }
  return ul;
}

function drawIndex(host: HTMLElement, p: IndexPage): void {
  host.append(h("h1", {}, "Harmony conformance: engines and releases"),
    h("p", { class: "line" }, `From ${p.sources.length} saved report${p.sources.length === 1 ? "" : "s"} (${p.sources.join(", ")}). `
      + "A rate is passing of the results served, over every API the engine serves; each case has the level of its strictest rule."),
    levelsNote());
  const table = h("table", { "data-hv": "engines" });
  const head = h("tr");
  for (const t of ["engine", "badge", ...p.levels, "all", ...p.families]) head.appendChild(h("th", { scope: "col" }, t));
  table.appendChild(h("thead")).appendChild(head);
  const body = table.appendChild(h("tbody"));
  for (const e of p.engineRows) {
    const tr = h("tr", { "data-hv": "engine-row", "data-engine": e.engine, "data-version": e.version });
    const name = h("th", { scope: "row" });
    name.appendChild(link(engineHref(p.root, e.slug), `${e.engine} ${e.version}`));
    const badge = h("td");
    badge.appendChild(h("img", { src: `${p.root}badges/${e.slug}.svg`, alt: `${e.engine} ${e.version}: must ${rateText(e.levels.must)}`, height: "20" }));
    tr.append(name, badge, ...p.levels.map((lv) => rateCell(e.levels[lv])), rateCell(e.all),
      ...p.families.map((f) => rateCell(e.families[f], `${engineHref(p.root, e.slug)}#family-${f}`)));
    body.appendChild(tr);
  }
  const wrap = scrollRegion(h("div", { class: "wrap" }), "engines by level and family");
  wrap.appendChild(table);
  host.append(h("h2", {}, "Pass rate by level and family"), wrap, h("h2", {}, "must-level failures"),
    h("p", { class: "line" }, "Each failing result of a must case, by engine and release; a case opens its page (its rules, its stream, every engine's answer)."));
  const fails = groupBy(p.failures, (r) => `${r.engine} ${r.version}`);
  for (const e of p.engineRows) {
    const mine = fails.get(`${e.engine} ${e.version}`) ?? [];
    const det = h("details", { "data-hv": "must-failures", "data-engine": e.engine, "data-version": e.version });
    det.appendChild(h("summary", {}, `${e.engine} ${e.version}: ${mine.length} failing must result${mine.length === 1 ? "" : "s"}`));
    const ul = h("ul");
    for (const [cid, rs] of groupBy(mine, (r) => r.case)) {
      const ref = p.cases.find((c) => c.id === cid);
      const li = h("li");
      li.append(ref ? link(caseHref(p.root, ref.slug), cid) : document.createTextNode(cid), ` — ${rs.map((r) => `${r.api} ${resultWords(r)}`).join("; ")}`);
      ul.appendChild(li);
    }
    det.appendChild(ul);
    host.appendChild(det);
  }
  host.append(h("h2", {}, "Triage of known divergences"), kindsNote(p));
  for (const n of p.notes) host.appendChild(h("p", { class: "line", "data-hv": "note" }, n));
}

function rowRates(e: EngineRow, levels: string[]): HTMLElement {
  const p = h("p", { class: "line", "data-hv": "level-rates" });
  p.append(...levels.flatMap((lv) => [levelTag(lv), ` ${rateText(e.levels[lv])}  `]), `all ${rateText(e.all)}; triaged failures: `
    + Object.entries(e.kinds).map(([k, n]) => `${n} ${k}`).join(", "));
  return p;
}

function drawEngine(host: HTMLElement, p: EnginePage): void {
  const e = p.row;
  const badge = `${p.root}badges/${e.slug}.svg`;
  host.append(h("h1", {}, `${e.engine} ${e.version}`), h("img", { src: badge, alt: `must pass rate ${rateText(e.levels.must)}`, height: "20" }),
    rowRates(e, p.levels), h("p", { class: "line" }, "Embed the badge in a README:"),
    h("pre", { class: "embed", "data-hv": "embed" }, `![Harmony must-level conformance](badges/${e.slug}.svg)`));
  const byCase = groupBy(p.results, (r) => r.case);
  for (const fam of p.families) {
    const cases = p.cases.filter((c) => (c.family ?? c.id.split("/")[0]) === fam);
    if (!cases.length) continue;
    const sec = h("section", { id: `family-${fam}`, "data-hv": "family", "data-family": fam });
    sec.append(h("h2", {}, `${fam} · ${rateText(e.families[fam])}`));
    const table = h("table", { "data-hv": "results" });
    const head = h("tr");
    for (const t of ["case", "level", ...e.apis]) head.appendChild(h("th", { scope: "col" }, t));
    table.appendChild(h("thead")).appendChild(head);
    const body = table.appendChild(h("tbody"));
    for (const c of cases) {
      const tr = h("tr", { "data-hv": "case", "data-case": c.id });
      const th = h("th", { scope: "row", title: c.description ?? "" });
      th.appendChild(link(caseHref(p.root, c.slug), c.id));
      const lv = h("td");
      lv.appendChild(levelTag(c.level));
      const rs = byCase.get(c.id) ?? [];
      tr.append(th, lv, ...e.apis.map((api) => statusCell(rs.find((r) => r.api === api))));
      body.appendChild(tr);
    }
    const wrap = scrollRegion(h("div", { class: "wrap" }), `${fam} cases through ${e.engine} ${e.version}`);
    wrap.appendChild(table);
    sec.appendChild(wrap);
    host.appendChild(sec);
  }
}

function drawCase(host: HTMLElement, p: CasePage): void {
  const c = p.case;
  host.append(h("h1", {}, c.id), h("p", { class: "line" }, c.description));
  const facts = h("p", { class: "line", "data-hv": "facts" });
  facts.append("level ", levelTag(c.level), ` · ${c.kind} case · provenance: `, linked(c.provenance));
  host.appendChild(facts);
  if (c.replay) host.appendChild(h("p", {}, "")).appendChild(link(`${p.root}replay/${c.slug}.html`, "the replay of its stream", { "data-hv": "replay-link" }));
  host.appendChild(h("h2", {}, "Rules"));
  const ul = h("ul", { "data-hv": "rules" });
  for (const r of p.rules) {
    const li = h("li");
    li.append(link(`${p.root}rules.html#${r.id}`, r.id), " ", levelTag(r.level), ` ${r.text}`);
    ul.appendChild(li);
  }
  for (const r of p.unknownRules) ul.appendChild(h("li", {}, `${r} (not in the rules table)`));
  host.appendChild(ul);
  if (c.stream) host.append(h("h2", {}, "Stream (after <|start|>assistant)"), scrollRegion(h("pre", { class: "stream", "data-hv": "stream" }, c.stream), "the stream"));
  if (Object.keys(c.request).length) host.append(h("h2", {}, "Request"), scrollRegion(h("pre", { class: "request" }, JSON.stringify(c.request, null, 1)), "the request"));
  host.appendChild(h("h2", {}, "Each engine's answer"));
  const apis = [...new Set(p.results.map((r) => r.api))];
  const table = h("table", { "data-hv": "answers" });
  const head = h("tr");
  for (const t of ["engine", ...apis]) head.appendChild(h("th", { scope: "col" }, t));
  table.appendChild(h("thead")).appendChild(head);
  const body = table.appendChild(h("tbody"));
  for (const [key, rs] of groupBy(p.results, (r) => `${r.engine}\u0000${r.version}`)) {
    const [engine, version] = key.split("\u0000");
    const tr = h("tr", { "data-hv": "engine-answer", "data-engine": engine, "data-version": version });
    const th = h("th", { scope: "row" });
    const e = p.engines.find((x) => x.engine === engine && x.version === version);
    th.appendChild(e ? link(engineHref(p.root, e.slug), `${engine} ${version}`) : document.createTextNode(`${engine} ${version}`));
    tr.append(th, ...apis.map((api) => statusCell(byApi(rs, apis).find((r) => r.api === api))));
    body.appendChild(tr);
  }
  const wrap = scrollRegion(h("div", { class: "wrap" }), "each engine's answer");
  wrap.appendChild(table);
  host.appendChild(wrap);
  const notes = p.results.filter((r) => r.reason || r.link || r.draft);
  if (notes.length) {
    host.appendChild(h("h2", {}, "Why"));
    const list = h("ul", { "data-hv": "reasons" });
    for (const r of notes) {
      const li = h("li");
      li.append(`${r.engine} ${r.version} ${r.api}: `);
      if (r.knownKind) li.append(h("span", { class: `kk kk-${r.knownKind}` }, r.knownKind), " ");
      li.append(linked(r.reason));
      if (r.link) li.append(" ", link(r.link, r.link, { "data-hv": "external" }));
      if (r.draft) {
        const d = h("details", { "data-hv": "draft" });
        d.append(h("summary", {}, "the bug report, drafted (none exists upstream yet)"), h("p", {}, r.draft));
        li.appendChild(d);
      }
      list.appendChild(li);
    }
    host.appendChild(list);
  }
}

function drawRules(host: HTMLElement, p: RulesPage): void {
  host.append(h("h1", {}, "The rules of the Harmony format the cases cite"), levelsNote());
  const table = h("table", { "data-hv": "rules" });
  const head = h("tr");
  for (const t of ["rule", "level", "text", "source", "cases"]) head.appendChild(h("th", { scope: "col" }, t));
  table.appendChild(h("thead")).appendChild(head);
  const body = table.appendChild(h("tbody"));
  for (const r of p.rules) {
    const tr = h("tr", { id: r.id, "data-hv": "rule", "data-level": r.level });
    const src = h("td");
    src.appendChild(linked(r.source));
    const cases = h("td", { class: "cites" });
    const citing = p.cases.filter((c) => (c.rules ?? []).includes(r.id));
    citing.forEach((c, i) => {
      if (i) cases.append(", ");
      cases.appendChild(link(caseHref(p.root, c.slug), c.id));
    });
    const lv = h("td");
    lv.appendChild(levelTag(r.level));
    tr.append(h("th", { scope: "row" }, r.id), lv, h("td", {}, r.text), src, cases);
    body.appendChild(tr);
  }
  host.appendChild(table);
}

/** The page into `host`, by its kind. */
export function drawSite(host: HTMLElement, p: SitePage): void {
  host.appendChild(nav(p));
  if (p.page === "index") drawIndex(host, p);
  else if (p.page === "engine") drawEngine(host, p);
  else if (p.page === "case") drawCase(host, p);
  else drawRules(host, p);
  host.appendChild(h("footer", { class: "line" }, `Written by ${p.generator} (harmony-viz conformance --merge … --site).`));
}
