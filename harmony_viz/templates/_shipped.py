"""Template outputs shipped as data, so the lens can be shown where no template is at hand.

``harmony_viz/data/chat_template_outputs.jsonl`` holds, per line, a request, the date it was
rendered with and the text the gpt-oss chat template gave for it (``render_jinja_template``).
The template itself is not shipped; see ``harmony_viz/data/PROVENANCE.md`` for where it came
from, and regenerate with::

    python -m harmony_viz.templates._shipped ../shared/templates/gpt-oss.jinja
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from harmony_viz.templates._lens import TemplateComparison, compare_renders, render_ours

FILE = "chat_template_outputs.jsonl"
DATE = "2025-08-05"


@dataclass(frozen=True, slots=True)
class ShippedOutput:
    """One request and the text a chat template rendered for it on ``date``."""

    name: str
    request: dict[str, Any]
    date: str
    for_completion: bool
    template_text: str

    def compare(self) -> TemplateComparison:
        """Our render of the request (same date) against the shipped template text."""
        return compare_renders(render_ours(self.request, date=self.date, for_completion=self.for_completion), self.template_text)


def shipped_path() -> Path:
    return Path(str(resources.files("harmony_viz.data").joinpath(FILE)))


def shipped_outputs() -> list[ShippedOutput]:
    """Every shipped output, in file order (the notebook's example first)."""
    out = []
    with shipped_path().open(encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            out.append(ShippedOutput(d["name"], d["request"], d["date"], d["for_completion"], d["template_text"]))
    return out


def _records(template: Any) -> list[dict[str, Any]]:
    from harmony_viz.templates._jinja import render_template
    from harmony_viz.templates._samples import example_request, sample_requests

    named = [("example", example_request()), *((f"sample-{i}", r) for i, r in enumerate(sample_requests()))]
    return [{"name": name, "date": DATE, "for_completion": False, "request": r,
             "template_text": render_template(template, r, date=DATE)} for name, r in named]


def main(argv: list[str]) -> int:
    from harmony_viz.templates._source import load_template

    if len(argv) != 1:
        print("usage: python -m harmony_viz.templates._shipped TEMPLATE.jinja", file=sys.stderr)
        return 2
    records = _records(load_template(argv[0]))
    with shipped_path().open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} outputs to {shipped_path()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
