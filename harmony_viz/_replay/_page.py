"""Standalone replay pages: one HTML file with the bundle and the trace inlined.

The page needs no kernel and no network, and works opened from ``file://``. Everything
embedded is JSON inside a ``<script type="application/json">`` with ``<`` escaped, so
token text can never close the script or become markup.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmony_viz._replay._api_view import ApiViews
from harmony_viz._replay._chips import fate_columns, logprob_columns
from harmony_viz._replay._findings import Lints, stream_findings
from harmony_viz._replay._steps import PRESETS, step_error
from harmony_viz._static import asset_text
from harmony_viz.trace import collecting_after

if TYPE_CHECKING:
    from harmony_viz.trace import Logprobs, Trace


def script_json(obj: Any) -> str:
    # "<" as \u003c: no "</script>" or "<!--" can appear inside the data block
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


@collecting_after
def payload(trace: Trace, server: dict[str, Any] | None = None, *, prompt_tokens: int | None = None, tools: Any = None,
            lints: Lints | None = None, logprobs: Logprobs | None = None, api: ApiViews | None = None) -> tuple[dict[str, Any], bytes]:
    """What the browser reads, widget and page alike: the trace's columns and JSON, the data to build the API view
    at any step (see :meth:`ApiViews.page_data`; ``prompt_tokens`` as there), every finding of the stream placed on
    its tokens (the scanner's, the lints' with ``tools`` or the prompt's own, the server and prompt lenses'; ``lints``
    keeps the lints of a stream across chunkings; ``api`` the trace's API views when already made), for the server lens the server tab's data and each check's fate
    of every token, and the model's log-probs when the stream has them (``_chips``: both as columns)."""
    n = trace.n_tokens
    api_columns, api_meta = (api or ApiViews(trace, prompt_tokens=prompt_tokens)).page_data()
    fate_cols, fates_meta = fate_columns(server, n)
    lp_cols, lp_meta = logprob_columns(logprobs, n)
    linted, error = (lints or Lints(tools)).of(trace)
    meta, columns = trace.to_payload({**api_columns, **fate_cols, **lp_cols}, findings=stream_findings(trace, linted, server), findings_error=error)
    meta["api"] = api_meta
    meta["fates"] = fates_meta
    meta["logprobs"] = lp_meta
    if server is not None:
        meta["server"] = {k: v for k, v in server.items() if k != "fates"}  # the fates travel as columns
    return meta, columns


def _page_parts(trace: Trace, *, step: int = -1, title: str | None = None, server: Any = None, prompt_tokens: int | None = None,
                name: str | None = None, links: Sequence[tuple[str, str]] = (), data: tuple[dict[str, Any], bytes] | None = None,
                tools: Any = None, logprobs: Logprobs | None = None) -> list[str]:
    """The text of a standalone page replaying ``trace``, opened at ``step`` (-1: the end of the stream), in pieces that join to it.

    ``name`` says what is replayed (a file, a run) and heads the page; ``links`` are
    ``(text, href)`` pairs to pages written beside it. The API view is built in the page for
    any step, from data written here (see :func:`payload`; ``data`` is that, when already made).
    ``server`` is the server tab's data (:func:`server_tab`), or the record it is built from
    (a capture run, server-check results, a prompt check: a stream's ``lens``); its
    discrepancies and prompt differences are findings of the stream, beside the scanner's and
    the lints' (``tools`` as :func:`save_html` takes them). ``logprobs`` are the model's log-probs of the
    stream's tokens (``_chips.logprobs_of``), when it has them.

    A trace with no tokens (an empty file, ``[]``, ``""``) is a page all the same, and says
    in its text that the stream is empty. The pieces are written to a file one by one
    (:func:`write_page`): a 131k-token page is never one string of 1.8M characters, four
    bytes each when the stream holds an emoji.
    """
    from harmony_viz import __version__
    from harmony_viz._replay._server import tab_of
    from harmony_viz.trace import describe

    if server is not None and not isinstance(server, dict):
        server = tab_of(server, name or "the server records given")

    step = step if step >= 0 else trace.n_steps + step
    why = step_error(step, trace.n_steps)
    if why:
        raise ValueError(why)
    meta, columns = data if data is not None else payload(trace, server, prompt_tokens=prompt_tokens, tools=tools, logprobs=logprobs)
    traits = {"step": step, "selected": -1, "chunking": str(trace.chunking), "chunkings": list(PRESETS), "error": ""}
    what = name or "a token stream"
    heading = title or f"{what} · Harmony replay"
    line = (f"A replay of {what}: {trace.n_tokens:,} tokens fed to the Harmony scanner {describe(trace.chunking)}, "
            f"{trace.n_steps - 1:,} steps, with the scanner's state, its events, its findings on the tokens, the conversation so far "
            "and the API view a streaming client would hold. Step with ←/→ (Shift: 10 steps), Home/End or the slider; Space plays; "
            "n / Shift+n go to the next / previous finding; hover or click a token for its card (Enter selects the last token fed, "
            "arrows move the selection, Escape closes it).")
    nav = " · ".join(f'<a href="{html.escape(href)}" data-hv="page-link">{html.escape(text)}</a>' for text, href in links)
    css = (asset_text("replay_page.css") + "\n" + asset_text("widget.css")).replace("</", "<\\/")
    js = asset_text("standalone.js").replace("</script", "<\\/script")
    empty = (f'<p class="hv-page-line hv-page-empty" data-hv="empty-stream" role="status"><strong>{html.escape(EMPTY_STREAM)}</strong></p>\n'
             if trace.n_tokens == 0 else "")
    return [
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta name=\"generator\" content=\"harmony-viz {__version__}\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{html.escape(heading)}</title>\n"
        f"<style>{css}</style>\n</head>\n<body>\n"
        f"<h3 class=\"hv-page-title\" data-hv=\"page-title\">{html.escape(heading)}</h3>\n"
        f"<p class=\"hv-page-line\" data-hv=\"page-line\">{html.escape(line)}{' See also: ' + nav if nav else ''}</p>\n"
        f"{empty}{_APP}\n"
        # script_json({"meta": …, "columns": …, "traits": …}) in pieces, the columns' base64 as it is: it holds nothing to escape
        '<script type="application/json" id="hv-data">{"meta":', script_json(meta), ',"columns":"', base64.b64encode(columns).decode("ascii"),
        f'","traits":{script_json(traits)}}}</script>\n'
        f"<script>{js}</script>\n</body>\n</html>\n",
    ]


# What a page of a stream with no tokens says, in its text (an empty stream is no error).
EMPTY_STREAM = "This stream is empty: no tokens, so there is nothing to replay."
_APP = '<div id="hv-app"></div>'


def page_html(trace: Trace, **kwargs: Any) -> str:
    """The standalone replay page (see :func:`_page_parts` for the arguments).

    A trace with no tokens (an empty file, ``[]``, ``""``) is a page all the same, and says
    in its text that the stream is empty.

    >>> from harmony_viz.trace import Trace
    >>> EMPTY_STREAM in page_html(Trace.build([], "token"))
    True
    """
    return "".join(_page_parts(trace, **kwargs))


def write_page(path: str | Path, trace: Trace, **kwargs: Any) -> Path:
    """Write :func:`page_html` of ``trace`` to ``path`` (UTF-8), piece by piece; returns the path."""
    out = Path(path)
    with out.open("w", encoding="utf-8") as f:  # as Path.write_text writes it
        f.writelines(_page_parts(trace, **kwargs))
    return out


def save_html(source: Any, path: str | Path, *, chunking: str = "token", role: str | None = None, step: int = -1, run: int | None = None,
              title: str | None = None, name: str | None = None, links: Sequence[tuple[str, str]] = (), tools: Any = None) -> Path:
    """Write a standalone replay page for ``source`` (anything :func:`harmony_viz.replay` takes), opened at ``step`` (-1: the end).

    ``name`` (what the page says it replays) defaults to the file's name, or the run's id;
    ``tools`` are the declared tools the lints check calls against (as ``lint`` takes them),
    by default those the stream's own prompt declares.
    """
    from harmony_viz._replay._chips import logprobs_of
    from harmony_viz._replay._server import server_tab
    from harmony_viz.inputs import read
    from harmony_viz.trace import Trace

    found = read(source)
    stream = found.stream(run)
    trace = Trace.build(stream.ids, chunking, role=role or stream.role)
    return write_page(path, trace, step=step, title=title, server=server_tab(stream, found.name), prompt_tokens=stream.prompt_tokens,
                      name=name if name is not None else name_of(found, stream), links=links, tools=tools, logprobs=logprobs_of(stream))


def name_of(found: Any, stream: Any) -> str | None:
    """What a page replays, for its title: the file's name, or the run's id, with the run picked from several."""
    if found.path is not None:
        name = found.path.name
    elif found.kind == "runs" and len(found.value) == 1:
        name = f"run {found.value[0].id}"
    else:
        return None
    return f"{name} · {stream.label}" if stream.label else name
