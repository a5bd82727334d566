// anywidget entry point: the playground inside Jupyter.
import "./widget.css";
import "./playground.css";
import { PlaygroundView } from "./src/playground/view";
import type { PlaygroundModel } from "./src/playground/types";

function render({ model, el }: { model: PlaygroundModel; el: HTMLElement }): () => void {
  const view = new PlaygroundView(model, el);
  return () => view.destroy();
}

export default { render };
