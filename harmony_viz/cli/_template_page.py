"""``harmony-viz html --template FILE REQUEST.json``: a standalone page of the chat-template render diff."""

from __future__ import annotations

import argparse
import json
import sys

from harmony_viz.cli._common import CLIError, read_input, write_page


def run_template_page(args: argparse.Namespace) -> int:
    """Write the page for ``args.file`` (a Chat Completions request) against ``args.template``."""
    from harmony_viz._playground import comparison_json, template_page_html
    from harmony_viz.templates import LensError, TemplateSourceError, compare, load_template

    try:
        template = load_template(args.template)
    except TemplateSourceError as exc:
        raise CLIError(f"--template: {exc}") from None
    origin = "stdin" if args.file == "-" else args.file
    try:
        request = json.loads(read_input(args.file))
    except json.JSONDecodeError as exc:
        raise CLIError(f"{origin}: not JSON ({exc.msg}, line {exc.lineno}); with --template give a Chat Completions request") from None
    try:
        result = compare(request, template, date=getattr(args, "date", None))
    except LensError as exc:
        raise CLIError(f"{origin}: {exc}") from None
    page = template_page_html(comparison_json(result, template.origin), title=args.title)
    out = write_page(args.out, page, "template.html")
    if out is not None:
        print(f"wrote {out} ({len(result.differences)} difference(s), {len(page) // 1024} KiB); open it in a browser", file=sys.stderr)
    return 0
