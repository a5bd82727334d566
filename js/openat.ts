// Added to each replay page the conformance matrix links to: opens the tab, engine and API that the URL's
// fragment names (#tab=server&engine=sglang&api=chat), through the page's own data-hv hooks (a click, a select).

function openAt(): void {
  const q = new URLSearchParams(location.hash.slice(1));
  const tab = q.get("tab");
  if (!tab) return;
  const tabButton = document.querySelector<HTMLElement>(`[data-hv="api-tab-${CSS.escape(tab)}"]`);
  if (!tabButton) return;
  tabButton.click();
  const engine = q.get("engine");
  const select = document.querySelector<HTMLSelectElement>('[data-hv="engine-select"]');
  if (engine && select && select.value !== engine) {
    select.value = engine;
    select.dispatchEvent(new Event("change"));
  }
  const api = q.get("api");
  if (api) document.querySelector<HTMLElement>(`[data-hv="server-api"][data-api="${CSS.escape(api)}"]`)?.click();
  // the tab may be drawn again by the clicks: scroll to the one shown now
  document.querySelector<HTMLElement>(`[data-hv="api-tab-${CSS.escape(tab)}"]`)?.scrollIntoView?.({ block: "start" });
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", openAt);
else openAt();
window.addEventListener("hashchange", openAt);
