"""``harmony-viz html --template FILE REQUEST.json``: a standalone page of the chat-template render diff."""

from __future__ import annotations

import argparse
import sys

from harmony_viz.cli._common import CLIError, say_read, write_page
from harmony_viz.cli._template_check import needs_templates_extra, read_request


def run_template_page(args: argparse.Namespace) -> int:
    """Write the page for ``args.file`` (a Chat Completions request) against ``args.template``."""
    from harmony_viz._playground import comparison_json, template_page_html
    from harmony_viz.templates import LensError, TemplateSourceError, check_chat_template, compare, load_template

    needs_templates_extra()
    try:
        template = load_template(args.template)
        check_chat_template(template)
    except (TemplateSourceError, LensError) as exc:
        raise CLIError(f"--template: {exc}") from None
    origin = "stdin" if args.file == "-" else args.file
    found = read_request(args.file, args)
    try:
        result = compare(found.value, template, date=getattr(args, "date", None))
    except LensError as exc:
        raise CLIError(f"{origin}: {exc}") from None
    say_read(found)
    page = template_page_html(comparison_json(result, template.origin), title=args.title)
    out = write_page(args.out, page, "template.html")
    if out is not None:
        print(f"wrote {out} ({len(result.differences)} difference(s), {len(page) // 1024} KiB); open it in a browser", file=sys.stderr)
    return 0
