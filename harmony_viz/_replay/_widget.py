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
from harmony_viz._replay._steps import PRESETS, step_error, step_for_tokens, tokens_fed
from harmony_viz._static import asset
from harmony_viz.trace import CHUNKINGS, Trace, parse_chunking, tokens_of


class ReplayWidget(anywidget.AnyWidget):
    """Replays a trace in the browser; ``step``, ``selected`` and ``chunking`` are synced both ways."""

    _esm = asset("widget.js")
    _css = asset("widget.css")

    step = traitlets.Int(0, help="the step shown: 0 is before anything is fed, the last is the end of the stream").tag(sync=True)
    selected = traitlets.Int(-1, help="index of the token clicked in the browser, -1 for none").tag(sync=True)
    chunking = traitlets.Unicode("token", help="how the stream is cut into steps, e.g. 'every:4'").tag(sync=True)
    chunkings = traitlets.List(traitlets.Unicode(), help="the chunkings offered in the menu").tag(sync=True)
    error = traitlets.Unicode("", help="the last problem with a value set from the browser").tag(sync=True)
    api_view = traitlets.Dict(help="the API view as of `step`").tag(sync=True)
    _meta = traitlets.Dict().tag(sync=True)
    _columns = traitlets.Bytes().tag(sync=True)
    _live = traitlets.Bool(True).tag(sync=True)

    def __init__(self, tokens: list[int], chunking: str = "token", *, role: str | None = None, step: int = 0,
                 server: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self._tokens = list(tokens)
        self._role = role
        self._server = server  # the server tab's data (server lens), carried in the payload
        self._live_run: str | None = None
        self._live_dirty = False
        self._live_last = 0.0
        self._live_cost = 0.0
        trace = Trace.build(tokens, chunking, role=role)
        meta, columns = self._payload(trace)
        self._trace = trace
        self._api = ApiViews(trace)
        super().__init__(chunking=str(trace.chunking), chunkings=list(PRESETS), _meta=meta, _columns=columns, **kwargs)
        self.step = step if step >= 0 else trace.n_steps + step
        self.api_view = self._api.at(self.step)

    def _payload(self, trace: Trace) -> tuple[dict[str, Any], bytes]:
        meta, columns = trace.to_payload()
        if self._server is not None:
            meta["server"] = self._server
        return meta, columns

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
        trace = Trace.build(self._tokens, change["new"], role=self._role)
        # Keep the same place in the stream: the first new step that has fed at least as much.
        fed = tokens_fed(self._trace, self.step)
        self._trace = trace
        self._api = ApiViews(trace)
        meta, columns = self._payload(trace)
        with self.hold_sync():
            self._meta = meta
            self._columns = columns
            self.step = step_for_tokens(trace, fed)
            self.error = ""
        self.api_view = self._api.at(self.step)

    @traitlets.observe("step")
    def _step_changed(self, change: dict[str, Any]) -> None:
        if hasattr(self, "_api"):
            self.api_view = self._api.at(change["new"])

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
        self._live_run = run_id
        self._live_dirty = False
        self._rebuild(follow=True)

    def append_tokens(self, token_ids: Sequence[int], times: Sequence[float] | None = None) -> None:
        """Add tokens to the end of the stream; the view follows when it was showing the end.

        Rebuilding the trace costs time linear in the stream, so while tokens arrive faster
        than that, rebuilds are spaced out (at most a quarter of the time is spent on them);
        ``finish_live`` draws whatever is still pending.
        """
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
        trace = Trace.build(self._tokens, str(self._trace.chunking), role=self._role)
        meta, columns = self._payload(trace)
        step = trace.n_steps - 1 if follow else min(self.step, trace.n_steps - 1)
        self._trace = trace
        self._api = ApiViews(trace)
        with self.hold_sync():
            self._meta = meta
            self._columns = columns
            self.step = step
        self.api_view = self._api.at(self.step)
        self._live_dirty = False
        self._live_last = time.perf_counter()
        self._live_cost = self._live_last - start

    def save_html(self, path: str | Path, *, title: str | None = None) -> Path:
        """Write this replay as one self-contained HTML page (no kernel, no network), at the current step."""
        from harmony_viz._replay._page import page_html

        out = Path(path)
        out.write_text(page_html(self._trace, step=self.step, title=title, server=self._server), encoding="utf-8")
        return out


def replay(source: Any, chunking: str = "token", *, role: str | None = None, step: int = 0) -> ReplayWidget:
    """A widget replaying ``source`` through the scanner, ``chunking`` deciding the steps.

    ``source`` is token ids, Harmony text, a conversation (rendered first) or a run record.
    Chunkings: {chunkings}. ``role`` is for a completion that starts inside an assistant
    message; ``step=-1`` opens at the end of the stream.

    >>> w = replay([200006, 173781, 200008, 12194, 200007], chunking="every:2")
    >>> w.n_steps  # before anything, 3 chunks of up to 2 tokens, end of stream
    5
    """
    from harmony_viz.servers import lens_source

    lens = lens_source(source)
    if lens is not None:
        ids, lens_role, server = lens
        return ReplayWidget(ids, chunking, role=role or lens_role, step=step, server=server)
    return ReplayWidget(tokens_of(source), chunking, role=role, step=step)


replay.__doc__ = (replay.__doc__ or "").replace("{chunkings}", "; ".join(f"``{k}`` ({v})" for k, v in CHUNKINGS.items()))
