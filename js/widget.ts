// Placeholder until the replay widget lands: shows that the bundle loads.
import "./widget.css";

interface Model {
  get(name: string): unknown;
}

function render({ model, el }: { model: Model; el: HTMLElement }): void {
  const div = document.createElement("div");
  div.className = "hv-root";
  div.textContent = "harmony_viz";
  el.appendChild(div);
}

export default { render };
