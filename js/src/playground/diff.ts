// The render diff panel: the reference layout against the model's layout or a chat template's render.
// Shared by the playground and the standalone template page. Text goes through textContent only.
import { FIRST_SPECIAL } from "../shared/constants";
import { h, scrollRegion } from "../shared/dom";
import { chipLabel } from "../shared/labels";
import { codeMarks, diffRuns, diffStates } from "./pure";
import type { DiffPayload } from "./types";

const DIFF_CONTEXT = 12;  // unchanged tokens kept on each side of a change

function side(title: string, ids: number[], pieces: string[], states: string[], codes: string[][] | null, hv: string): HTMLElement {
  const row = h("div", { class: "hv-pg-diff-side", "data-hv": hv });
  row.appendChild(h("div", { class: "hv-panel-title" }, title));
  const box = scrollRegion(h("div", { class: "hv-pg-diff-tokens" }), `${title}: tokens`);
  // A token that a difference names is never folded away.
  const shown = codes ? states.map((s, t) => (codes[t].length ? "named" : s)) : states;
  for (const run of diffRuns(shown, DIFF_CONTEXT)) {
    if (run.folded) { box.appendChild(h("span", { class: "hv-pg-fold", "data-hv": "diff-fold" }, ` … ${run.end - run.start} equal tokens … `)); continue; }
    for (let t = run.start; t < run.end; t++) {
      const named = codes ? codes[t] : [];
      if (named.length && (t === 0 || codes![t - 1].join() !== named.join())) {
        box.appendChild(h("span", { class: "hv-pg-code", "data-hv": "diff-code" }, named.join(" · ")));
      }
      const cls = `hv-tok hv-pg-d-${states[t]}${ids[t] >= FIRST_SPECIAL ? " hv-special" : ""}${named.length ? " hv-pg-coded" : ""}`;
      const title = `#${t} id ${ids[t]} ${states[t]}${named.length ? ` · ${named.join(", ")}` : ""}`;
      const c = h("span", { class: cls, "data-hv": "diff-token", title }, chipLabel(pieces[t] ?? "", true));
      c.dataset.i = String(t);
      if (named.length) c.dataset.codes = named.join(" ");
      box.appendChild(c);
    }
  }
  row.appendChild(box);
  return row;
}

/** Scroll the first token of [start, ...) on one side into view and mark the named tokens. */
function scrollTo(sideEl: HTMLElement, span: [number, number]): void {
  for (const c of sideEl.querySelectorAll<HTMLElement>(".hv-pg-focus")) c.classList.remove("hv-pg-focus");
  let first: HTMLElement | null = null;
  for (const c of sideEl.querySelectorAll<HTMLElement>("[data-hv=diff-token]")) {
    const i = Number(c.dataset.i);
    if (i >= span[0] && i < span[1]) { c.classList.add("hv-pg-focus"); first = first ?? c; }
  }
  first?.scrollIntoView({ block: "nearest" });
}

function differenceList(d: DiffPayload, what: string, ours: HTMLElement, theirs: HTMLElement): HTMLElement {
  const list = scrollRegion(h("ul", { class: "hv-pg-diags", "data-hv": `${what}-differences` }), "differences");
  if (!(d.differences ?? []).length && d.layout === "prompt") {
    list.appendChild(h("li", { class: "hv-empty", "data-hv": "prompt-identical" }, "the prompts are identical"));
  }
  for (const x of d.differences ?? []) {
    const li = h("li", { class: "hv-pg-diag", "data-hv": `${what}-difference` });
    li.append(h("b", {}, x.code), document.createTextNode(` ${x.message}`));
    li.dataset.code = x.code;
    // a row scrolls both renders to the tokens it names
    li.addEventListener("click", () => {
      if (x.ours_span) scrollTo(ours, x.ours_span);
      if (x.template_span) scrollTo(theirs, x.template_span);
    });
    list.appendChild(li);
  }
  return list;
}

/** Fill `el` with the diff `d`, in either layout. */
export function renderDiffPanel(el: HTMLElement, d: DiffPayload): void {
  if (d.error) { el.appendChild(h("div", { class: "hv-error", "data-hv": "diff-error" }, d.error)); return; }
  if (!d.reference || !d.model || !d.ops) { el.appendChild(h("div", {}, "computing…")); return; }
  const st = diffStates(d.ops, d.reference.length, d.model.length);
  if (d.layout === "template" || d.layout === "prompt") {
    const n = d.differences?.length ?? 0;
    const prompt = d.layout === "prompt";
    const other = prompt ? "the server's prompt" : "the chat template";
    el.appendChild(h("div", { class: "hv-pg-diff-sum", "data-hv": "diff-summary" },
      n === 0 ? (prompt ? "identical: the server fed the model the prompt the format gives this request"
        : "identical: the chat template renders this conversation byte for byte as the format does")
        : `${n} difference${n > 1 ? "s" : ""} between the format and ${other} (${d.origin ?? ""})`));
    const ours = side(prompt ? "ours: the format's prompt (openai-harmony)" : "ours: openai-harmony's render", d.reference, d.reference_pieces ?? [], st.ref,
      codeMarks(d.differences ?? [], d.reference.length, "ours"), "diff-reference");
    const theirs = side(prompt ? "the server's prompt" : "chat template's render", d.model, d.model_pieces ?? [], st.model,
      codeMarks(d.differences ?? [], d.model.length, "template"), prompt ? "diff-server" : "diff-template");
    el.append(differenceList(d, prompt ? "prompt" : "template", ours, theirs), ours, theirs);
    return;
  }
  const changed = d.ops.filter((o) => o.tag !== "equal").length;
  el.appendChild(h("div", { class: "hv-pg-diff-sum", "data-hv": "diff-summary" },
    changed === 0 ? "identical: no assistant message has a recipient" : `${changed} difference${changed > 1 ? "s" : ""} (difflib opcodes)`));
  el.append(
    side("openai-harmony layout: recipient in the role section", d.reference, d.reference_pieces ?? [], st.ref, null, "diff-reference"),
    side("model layout: recipient after the channel", d.model, d.model_pieces ?? [], st.model, null, "diff-model"));
}

/** The layout chooser: the model's layout or a chat template's render. */
export function layoutSelect(current: string, onChange: (layout: string) => void): HTMLSelectElement {
  const sel = h("select", { "data-hv": "diff-layout", title: "compare the reference with the model's layout or with a chat template's render" });
  for (const [v, label] of [["model", "model layout"], ["template", "chat template"]]) sel.appendChild(h("option", { value: v }, label));
  sel.value = current;
  sel.addEventListener("change", () => onChange(sel.value));
  return sel;
}
