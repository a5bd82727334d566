"""Opening a notebook in the test JupyterLab, shared by the browser tests."""

from __future__ import annotations


def open_notebook(page, lab: dict, name: str, *, timeout_ms: int = 90_000) -> None:
    """Open ``name`` alone in its own fresh workspace and wait until its kernel is ready.

    Each notebook gets a workspace of its own (``?reset``), so notebooks opened by earlier
    tests in the same JupyterLab are not restored beside it and never become the current
    widget; the kernel wait is bounded, since a promise that never settles would hang the run.
    """
    workspace = "hv-" + "".join(c if c.isalnum() else "-" for c in name)
    page.goto(f"{lab['url']}/lab/workspaces/{workspace}/tree/{name}?reset")
    page.wait_for_function(
        "(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return !!(w && w.context && w.context.path === name && w.sessionContext); }",
        arg=name,
        timeout=timeout_ms,
    )
    ready = page.evaluate(
        "(ms) => Promise.race([window.jupyterapp.shell.currentWidget.sessionContext.ready.then(() => true),"
        " new Promise(r => setTimeout(() => r(false), ms))])",
        timeout_ms,
    )
    if not ready:
        raise AssertionError(f"the kernel of {name} was not ready within {timeout_ms / 1000:.0f} s")


def lab_notebook(browser, lab: dict, name: str, cells: list[str], *, ready: str, viewport: tuple[int, int] = (1500, 1100)):
    """Write a notebook of ``cells``, open it in a new browser context, run all cells, wait for ``ready``.

    A generator for a fixture to ``yield from``: it gives the page, then stops the kernel (so
    later tests sharing the JupyterLab do not pay for it) and closes the context.
    """
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, lab["root"] / name)
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    open_notebook(page, lab, name)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(ready, timeout=120_000)
    yield page
    page.evaluate("async () => { const w = window.jupyterapp.shell.currentWidget; if (w && w.sessionContext)"
                  " await Promise.race([w.sessionContext.shutdown(), new Promise(r => setTimeout(r, 20000))]); }")
    context.close()


def run_cell(page, index: int) -> str:
    """Run cell ``index`` again, wait until it has finished, and return its output text."""
    page.evaluate(f"""async () => {{
        const panel = window.jupyterapp.shell.currentWidget;
        panel.content.activeCellIndex = {index};
        await window.jupyterapp.commands.execute('notebook:run-cell');
    }}""")
    page.wait_for_function(f"""() => {{
        const cell = window.jupyterapp.shell.currentWidget.content.widgets[{index}];
        return cell.model.executionCount !== null && cell.node.querySelector('.jp-OutputArea-output') &&
               !cell.node.querySelector('.jp-InputArea-prompt').textContent.includes('*');
    }}""", timeout=60_000)
    return page.evaluate(f"() => window.jupyterapp.shell.currentWidget.content.widgets[{index}].node.querySelector('.jp-OutputArea').innerText")


def wait_for_kernel(page, python_condition: str, *, cell: int, timeout_s: float = 30) -> str:
    """Rerun ``cell`` (which prints ``PY <json or words>``) until its output satisfies a JS predicate on ``out``.

    Replaces fixed sleeps: what the browser sent reaches the kernel after a round trip of
    unknown length, so the test waits for the state, not for a time.
    """
    import time

    deadline = time.monotonic() + timeout_s
    while True:
        out = run_cell(page, cell)
        if page.evaluate(f"(out) => {{ {python_condition} }}", out) or time.monotonic() > deadline:
            return out
