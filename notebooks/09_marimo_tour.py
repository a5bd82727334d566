import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full")


@app.cell
def _():
    import marimo as mo

    import harmony_viz as hv
    from harmony_viz.data import sample_path
    return hv, mo, sample_path


@app.cell
def _(mo):
    mo.md(r"""
    # The Harmony replay in marimo

    The replay widget is an [anywidget](https://anywidget.dev): marimo runs it as it is, through
    `mo.ui.anywidget`. Below is a real gpt-oss-20b run that calls a tool three times; step it with the
    buttons, the slider or ←/→ once it has the focus, and click a token for its card. Each step the page
    takes reaches Python (the cell under it runs again), and a step set in Python moves the page.
    """)
    return


@app.cell
def _(hv, mo, sample_path):
    # the last turn of a bundled trial holds the whole conversation: system, user, reasoning, three calls, the answer
    replay = hv.replay(sample_path("tool_calling/cities_3_cot_true_trial-1.md"), run=3)
    view = mo.ui.anywidget(replay)
    view
    return replay, view


@app.cell
def _(mo, replay, view):
    # runs again whenever the page steps or selects a token: marimo hands the widget's traits to Python
    _step, _selected = view.value["step"], view.value["selected"]
    _shown = "no token" if _selected < 0 else f"token #{_selected} (id {replay.trace.tokens[_selected]})"
    mo.md(f"Python sees step **{_step}** of {replay.n_steps - 1} and {_shown} selected.").callout(kind="info")
    return


@app.cell
def _(mo, replay):
    jump = mo.ui.number(start=0, stop=replay.n_steps - 1, value=0, label="step, set in Python")
    mo.md(f"""
    ## From Python to the page

    {jump} &nbsp; sets `replay.step`; the page follows. `replay.step = -1` would open the end of the stream.
    """)
    return (jump,)


@app.cell
def _(jump, replay):
    replay.step = jump.value
    return


@app.cell
def _(mo):
    mo.md(r"""
    ## What you are looking at

    Each chip is one token, coloured by channel (or by role, with the colour menu) and underlined in a
    pattern of its own: reasoning dashed, the final answer a thick line, tool calls a double line. Findings
    (the scanner's, the lints') underline their tokens in a shape that says the severity and are listed in
    the Findings panel; the API view shows what a streaming client of a Chat Completions or Responses
    endpoint would hold at this step. The Jupyter notebooks (`01_harmony_tour.ipynb` on) go through the
    format itself.
    """)
    return


if __name__ == "__main__":
    app.run()
