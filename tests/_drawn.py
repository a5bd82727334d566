"""A page as chromium draws it: the HTML of its DOM once its scripts ran, for tests that read a page the bundle draws.

The conformance matrix is drawn by TypeScript from a JSON island, so its rows, columns and cells
exist only once a browser ran it. Each page is drawn by Debian's chromium (through Playwright) in
a process of its own, so a test session's other browser (tests/ui's fixtures) is left alone.
Without /usr/bin/chromium the test skips, unless HARMONY_VIZ_REQUIRE_BROWSER=1 makes that a failure.

    python tests/_drawn.py PAGE.html READY_SELECTOR   # prints the drawn HTML
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]


def drawn(page: str | Path, ready: str = "[data-hv=matrix]") -> str:
    """The drawn HTML of ``page`` (a path, or a page's text), once ``ready`` is in it; asserts nothing failed in the page."""
    import pytest

    if not Path(CHROMIUM).exists():
        if os.environ.get("HARMONY_VIZ_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is missing and HARMONY_VIZ_REQUIRE_BROWSER=1")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium): the page is drawn by its script")
    with tempfile.TemporaryDirectory() as tmp:
        if isinstance(page, str):
            path = Path(tmp) / "page.html"
            path.write_text(page, encoding="utf-8")
        else:
            path = Path(page)
        run = subprocess.run([sys.executable, __file__, str(path), ready], capture_output=True, text=True, timeout=180, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


def _main(path: str, ready: str) -> int:
    import re

    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())  # nothing but the file itself
        page.goto(Path(path).resolve().as_uri())
        page.wait_for_selector(ready, state="attached")
        text = page.content()
        browser.close()
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1], sys.argv[2]))
