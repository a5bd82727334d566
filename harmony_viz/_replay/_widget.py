"""The replay widget: a token stream replayed through the scanner, step by step, in a notebook.

>>> w = replay("<|start|>assistant<|channel|>final<|message|>Hi<|end|>")
>>> w.n_steps
9
>>> w.step = 5            # move the replay from Python; the browser follows
>>> w.save_html("replay.html")  # doctest: +SKIP
PosixPath('replay.html')
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from harmony_viz._replay._api_view import ApiViews
from harmony_viz._replay._chips import logprobs_of
from harmony_viz._replay._findings import Lints, stream_findings
from harmony_viz._replay._page import name_of, payload, write_page
from harmony_viz._replay._server import server_tab
from harmony_viz._replay._steps import PRESETS, step_error, step_for_tokens, tokens_fed
from harmony_viz._static import asset_text
from harmony_viz.inputs import read
from harmony_viz.trace import CHUNKINGS, Logprobs, Trace, collecting_after, parse_chunking


class ReplayWidget(anywidget.AnyWidget):
    """Replays a trace in the browser; ``step``, ``selected`` and ``chunking`` are synced both ways."""

    # The bundles' text, not their paths: for a path anywidget connects every instance to the file's change signal by a
    # strong callback, so no replay (nor its trace) would ever be freed (manzt/anywidget#929)
    _esm = asset_text("widget.js")
    _css = asset_text("widget.css")

    step = traitlets.Int(0, help="the step shown: 0 is before anything is fed, the last is the end of the stream").tag(sync=True)
    selected = traitlets.Int(-1, help="index of the token clicked in the browser, -1 for none").tag(sync=True)
    chunking = traitlets.Unicode("token", help="how the stream is cut into steps, e.g. 'every:4'").tag(sync=True)
    chunkings = traitlets.List(traitlets.Unicode(), help="the chunkings offered in the menu").tag(sync=True)
    error = traitlets.Unicode("", help="the last problem with a value set from the browser").tag(sync=True)
    _meta = traitlets.Dict().tag(sync=True)
    _columns = traitlets.Bytes().tag(sync=True)
    _live = traitlets.Bool(True).tag(sync=True)

    def __init__(self, tokens: Sequence[int], chunking: str = "token", *, role: str | None = None, step: int = 0,
                 server: dict[str, Any] | None = None, prompt_tokens: int | None = None, source: str = "", name: str | None = None,
                 tools: Any = None, logprobs: Logprobs | None = None, **kwargs: Any) -> None:
        self._tokens: list[int] | None = None  # a live recording's ids; otherwise the trace holds them
        self._role = role
        self._prompt = prompt_tokens  # the prompt's length when the input said it (a run's prompt ids)
        self.source = source  # what was read, as what ("read run.json as a run")
        self.name = name  # what is replayed (a file, a run): a saved page's title names it
        self._server = server  # the server tab's data (server lens), carried in the payload
        self._logprobs = logprobs  # the model's log-probs of the stream's tokens, carried as columns
        self._lints = Lints(tools)  # the lints of the stream, run again only when its tokens change
        self._live_run: str | None = None
        self._live_dirty = False
        self._live_last = 0.0
        self._live_cost = 0.0
        trace, self._api, meta, columns = self._built(tokens, chunking)
        tokens = ()  # the trace holds the ids now (4 bytes each, not a list of ints)
        self._trace = trace
        super().__init__(chunking=str(trace.chunking), chunkings=list(PRESETS), _meta=meta, _columns=columns, **kwargs)
        self.step = step if step >= 0 else trace.n_steps + step

    @collecting_after  # one pause for the trace and its payload: no collection walks the new trace between them
    def _built(self, tokens: Sequence[int], chunking: str) -> tuple[Trace, ApiViews, dict[str, Any], bytes]:
        """The trace of ``tokens`` cut by ``chunking``, its API views and the payload the browser reads."""
        trace = Trace.build(tokens, chunking, role=self._role)
        api = ApiViews(trace, prompt_tokens=self._prompt)
        # the browser builds the API view of any step from this payload: no round trip per step
        logprobs = self._logprobs if self._logprobs is not None and self._logprobs.n == trace.n_tokens else None  # not a live recording's new tokens
        meta, columns = payload(trace, self._server, prompt_tokens=self._prompt, lints=self._lints, logprobs=logprobs, api=api)
        return trace, api, meta, columns

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """anywidget's bundle (the widget view) with the static view as ``text/html`` beside it.

        A frontend with the widget manager (JupyterLab, Notebook 7, VS Code, Colab) draws the
        widget view and ignores the HTML; where no widget can be drawn (nbconvert's HTML of a
        notebook saved without widget state, GitHub, readers that strip scripts) the HTML shows:
        the whole stream's chips, the final answer, the conversation and the findings, bounded
        in size for a long stream (``_static_view.BOUNDS``). marimo draws anywidgets itself.
        """
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle
        from harmony_viz._replay._static_view import static_note  # only where a notebook draws the widget: save_html needs none

        try:
            html = self.static_html()
        except Exception as exc:  # the live widget shows whatever happens to its static copy; the saved notebook says why it has none
            html = static_note(f"The static view of this replay could not be written ({type(exc).__name__}: {exc}).")
        return {**data, "text/html": html}, metadata

    def static_html(self) -> str:
        """The static view of the whole stream that a saved notebook shows without a kernel (one HTML fragment, its CSS inlined)."""
        from harmony_viz._replay._static_view import static_view

        findings = stream_findings(self._trace, self._lints.of(self._trace)[0], self._server)
        return static_view(self._trace, findings, name=self.name)

    @property
    def api_view(self) -> dict[str, Any]:
        """The API view at ``step``, computed in Python on request: ``{"step", "views": {name: object}}``.

        Each view is the object a streaming client holds at that step (no usage before the
        last chunk); the browser builds the same from the payload.
        """
        return self._api.at(self.step)

    def _stream(self) -> Sequence[int]:
        return self._tokens if self._tokens is not None else self._trace.ids

    @property
    def trace(self) -> Trace:
        """The trace on show (rebuilt when ``chunking`` changes)."""
        return self._trace

    @property
    def n_steps(self) -> int:
        return self._trace.n_steps

    @traitlets.validate("step")
    def _check_step(self, proposal: dict[str, Any]) -> int:
        value = proposal["value"]
        why = step_error(value, self._trace.n_steps if hasattr(self, "_trace") else 1)
        if why:
            raise traitlets.TraitError(why)
        return value

    @traitlets.validate("chunking")
    def _check_chunking(self, proposal: dict[str, Any]) -> str:
        try:
            return str(parse_chunking(proposal["value"]))
        except ValueError as exc:
            raise traitlets.TraitError(str(exc)) from None

    @traitlets.observe("chunking")
    def _rechunk(self, change: dict[str, Any]) -> None:
        if not hasattr(self, "_trace") or str(self._trace.chunking) == change["new"]:
            return
        trace, api, meta, columns = self._built(self._stream(), change["new"])
        # Keep the same place in the stream: the first new step that has fed at least as much.
        fed = tokens_fed(self._trace, self.step)
        self._trace = trace
        self._api = api
        with self.hold_sync():
            self._meta = meta
            self._columns = columns
            self.step = step_for_tokens(trace, fed)
            self.error = ""

    def set_state(self, sync_data: dict[str, Any]) -> None:
        """Apply state from the browser; a bad chunking or step is reported in ``error``, not raised."""
        if "chunking" in sync_data:
            try:
                parse_chunking(sync_data["chunking"])
            except ValueError as exc:
                sync_data = {k: v for k, v in sync_data.items() if k != "chunking"}
                self.error = str(exc)
                self.send_state("chunking")  # put the browser's menu back
        why = step_error(sync_data["step"], self._trace.n_steps) if "step" in sync_data else None
        if why:
            self.error = why
            sync_data = {k: v for k, v in sync_data.items() if k != "step"}
            self.send_state("step")
        super().set_state(sync_data)

    # ---- live view: follow a recording while it runs -------------------------------------
    def start_live(self, prompt_ids: Sequence[int] = (), *, run_id: str | None = None) -> None:
        """Show ``prompt_ids`` and follow the tokens that ``append_tokens`` brings (e.g. from ``record(live=…)``)."""
        self._tokens = [int(t) for t in prompt_ids]
        self._prompt = len(self._tokens) if self._tokens else None
        self._live_run = run_id
        self._live_dirty = False
        self._rebuild(follow=True)

    def append_tokens(self, token_ids: Sequence[int], times: Sequence[float] | None = None) -> None:
        """Add tokens to the end of the stream; the view follows when it was showing the end.

        Rebuilding the trace costs time linear in the stream, so while tokens arrive faster
        than that, rebuilds are spaced out (at most a quarter of the time is spent on them);
        ``finish_live`` draws whatever is still pending.
        """
        if self._tokens is None:
            self._tokens = list(self._trace.ids)
        self._tokens.extend(int(t) for t in token_ids)
        self._live_dirty = True
        now = time.perf_counter()
        if now - self._live_last >= 4 * self._live_cost:
            self._rebuild(follow=self.step == self._trace.n_steps - 1)

    def finish_live(self) -> None:
        """Draw the tokens still pending at the end of a recording."""
        if self._live_dirty:
            self._rebuild(follow=self.step == self._trace.n_steps - 1)

    def _rebuild(self, *, follow: bool) -> None:
        start = time.perf_counter()
        trace, api, meta, columns = self._built(self._stream(), str(self._trace.chunking))
        step = trace.n_steps - 1 if follow else min(self.step, trace.n_steps - 1)
        self._trace = trace
        self._api = api
        with self.hold_sync():
            self._meta = meta
            self._columns = columns
            self.step = step
        self._live_dirty = False
        self._live_last = time.perf_counter()
        self._live_cost = self._live_last - start

    def save_html(self, path: str | Path, *, step: int = -1, title: str | None = None, links: Sequence[tuple[str, str]] = ()) -> Path:
        """Write this replay as one self-contained HTML page (no kernel, no network), opened at ``step``.

        Every page opens at the end of the stream (``step=-1``, negative counting from the
        end), whichever verb writes it (``hv.save_html``, ``harmony-viz html``, this);
        ``step=w.step`` opens it where the widget is now. The page is titled after
        :attr:`name` unless ``title`` is given; ``links`` are ``(text, href)`` pairs to pages
        written beside it.
        """
        return write_page(path, self._trace, step=step, title=title, name=self.name, links=links, data=(self._meta, self._columns))


def replay(source: Any, chunking: str = "token", *, role: str | None = None, step: int = 0, run: int | None = None,
           name: str | None = None, tools: Any = None) -> ReplayWidget:
    """A widget replaying ``source`` through the scanner, ``chunking`` deciding the steps.

    ``source`` is anything :func:`harmony_viz.inputs.read` reads: a path (a string naming a
    file is read as that file), Harmony text, token ids, a conversation or Chat Completions
    request (rendered first), a run, a capture or server-check results; ``run`` picks one of
    a file's runs (default 0). ``w.source`` says what was read. Chunkings: {chunkings}.
    ``role`` is for a completion that starts inside an assistant message; ``step=-1`` opens
    at the end of the stream; ``name`` says what is replayed (a saved page's title), by
    default the file's name or the run's id. Every finding of the stream is drawn on its
    token chips and listed in the Findings panel: the scanner's, the lints' (calls checked
    against ``tools``, in any form ``lint`` takes, or else the tools the stream's own prompt
    declares) and, for a capture or server-check results, the server and prompt lenses'.

    >>> w = replay([200006, 173781, 200008, 12194, 200007], chunking="every:2")
    >>> w.n_steps  # before anything, 3 chunks of up to 2 tokens, end of stream
    5
    >>> w.source
    'read the list given as token ids'
    """
    found = read(source)
    stream = found.stream(run)
    said = found.said + (f"; {stream.label}" if stream.label else "")
    return ReplayWidget(stream.ids, chunking, role=role or stream.role, step=step, server=server_tab(stream, found.name), prompt_tokens=stream.prompt_tokens,
                        source=said, name=name if name is not None else name_of(found, stream), tools=tools, logprobs=logprobs_of(stream))


replay.__doc__ = (replay.__doc__ or "").replace("{chunkings}", "; ".join(f"``{k}`` ({v})" for k, v in CHUNKINGS.items()))
