// anywidget entry point: the replay widget inside Jupyter.
import "./widget.css";
import { ReplayView } from "./src/replay/view";
import type { ReplayModel } from "./src/replay/types";

function render({ model, el }: { model: ReplayModel; el: HTMLElement }): () => void {
  const view = new ReplayView(model, el);
  return () => view.destroy();
}

export default { render };
