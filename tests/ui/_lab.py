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
