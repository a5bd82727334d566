"""Open a saved page in headless chromium, offline, at one tab of the API view."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from harmony_viz import save_html


def open_tab(page: Any, source: Any, path: Path, tab: str, ready: str) -> Any:
    """Save ``source`` as a page at ``path``, open it with every non-file request refused, click ``tab``, wait for ``ready``."""
    saved = save_html(source, path)
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
    page.goto(saved.as_uri())
    page.wait_for_selector("[data-hv=token]")
    page.click(f"[data-hv={tab}]")
    page.wait_for_selector(ready)
    return page
