"""The server tab: what a capture, server-check results or a prompt check mean for the page.

The reader (``harmony_viz.inputs``) only reads such records and replays their stream; the
page builds the tab from them here, through the server lens (its check of the capture's
answer, the prompt check, the prompt's render diff: ``harmony_viz.servers.lens_source``).
"""

from __future__ import annotations

from typing import Any

from harmony_viz.inputs import InputError


def server_tab(stream: Any, name: str = "the stream") -> dict[str, Any] | None:
    """The server tab's data for a stream the reader made (``Input.stream()``); None when it carries no server lens record.

    ``name`` heads the one-line InputError when the records cannot make a tab.

    >>> from harmony_viz.inputs import read
    >>> server_tab(read([200006, 1428]).stream()) is None
    True
    """
    lens = getattr(stream, "lens", None)
    return None if lens is None else tab_of(lens, name)


def tab_of(record: Any, name: str = "the server records given") -> dict[str, Any]:
    """The server tab's data for a capture run, server-check results (of one stream) or a prompt check."""
    from harmony_viz.servers import lens_source

    try:
        found = lens_source(record)
    except ValueError as exc:
        raise InputError(f"{name}: {exc}") from None
    if found is None:
        raise InputError(f"{name}: not a capture, server-check results or a prompt check")
    return found[2]
