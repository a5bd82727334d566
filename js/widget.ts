// anywidget entry point: the replay widget inside Jupyter.
import "./widget.css";
import { ReplayView, type ModelLike } from "./src/view";

function render({ model, el }: { model: ModelLike; el: HTMLElement }): () => void {
  const view = new ReplayView(model, el);
  return () => view.destroy();
}

export default { render };
