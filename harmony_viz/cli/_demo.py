"""``harmony-viz demo``: a replay page of one bundled real transcript and a stats report of all bundled runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harmony_viz.cli._common import CLIError, add_out, command, need_folder

# The transcript the replay page shows: a real tool-calling conversation (analysis,
# three get_weather calls, their results, a final table) from the bundled sample.
REPLAY_SAMPLE = "tool_calling/cities_3_cot_true_trial-1.md"

_EXAMPLES = """\
examples:
  harmony-viz demo -o demo.html        writes demo.html (replay) and demo-stats.html (charts)
  harmony-viz demo -o demo/            writes demo/replay.html and demo/stats.html
"""


def add_parser(subparsers: Any) -> None:
    p = command(subparsers, "demo", run, help="write a replay page and a stats report of the bundled real gpt-oss runs", description="Write two self-contained HTML pages from the sample of real gpt-oss runs shipped "
        "with the package (see harmony_viz/data/PROVENANCE.md): a replay of one tool-calling "
        "transcript, and charts of where the output tokens of all bundled runs go.", epilog=_EXAMPLES)
    add_out(p, metavar="FILE_OR_DIR", default="demo.html", help="an .html file name, or a folder (default: demo.html)", output_alias=True)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def demo_paths(output: str) -> tuple[Path, Path]:
    """(replay page, stats report) for ``-o``: ``x.html`` → x.html and x-stats.html; a folder → replay.html and stats.html."""
    out = Path(output)
    if out.suffix.lower() in (".html", ".htm"):
        if out.is_dir():
            raise CLIError(f"{output}: is a folder; give a new file name or the folder without .html")
        need_folder(out.parent, output)  # as html and every command refuse a missing folder
        return out, out.with_name(f"{out.stem}-stats.html")
    if out.exists() and not out.is_dir():
        raise CLIError(f"{output}: exists and is not a folder; give a name ending in .html or a folder")
    need_folder(out.parent, output)  # the folder named is made, in a folder that exists
    return out / "replay.html", out / "stats.html"


def run(args: argparse.Namespace) -> int:
    from harmony_viz.charts import save_report
    from harmony_viz.data import sample_paths

    replay, report = demo_paths(args.out)
    try:
        report.parent.mkdir(exist_ok=True)
    except OSError as exc:
        raise CLIError(f"{report.parent}: cannot create the folder ({exc.strerror})") from None
    # the two pages link each other by their file names: they are written side by side
    save_report(sample_paths(), report, title="harmony-viz demo: bundled real gpt-oss runs", progress=False if args.no_progress else None,
                links=[("the replay of one tool-calling run", replay.name)])
    write_replay(replay, links=[("charts of all bundled runs", report.name)])
    written = [replay, report]
    for path in written:
        print(path)
    print(f"open {written[0]} in a browser; the pages work offline", file=sys.stderr)
    return 0


def replay_tokens() -> list[int]:
    """The replayed transcript's ids: the last turn of the bundled trial, which holds the whole conversation."""
    from harmony_viz.data import sample_path
    from harmony_viz.runs import load_file

    last = load_file(sample_path(REPLAY_SAMPLE))[-1]
    return [*last.prompt_token_ids, *last.completion_token_ids]


def write_replay(path: Path, links: list[tuple[str, str]] | None = None) -> None:
    """Write the replay page with the widget's HTML export."""
    from harmony_viz._replay import save_html

    try:
        # Opened at the last step, as `html` pages are, so the page shows the whole conversation; scrub back to replay it.
        save_html(replay_tokens(), path, step=-1, name=f"{Path(REPLAY_SAMPLE).name} (a real gpt-oss-20b tool-calling run)", links=links or ())
    except FileNotFoundError as exc:  # the frontend bundle was not built on install
        raise CLIError(f"wrote the stats report, but not the replay page: {exc}") from None
