"""``harmony-viz template-check``: what a chat template does to your conversations, against the format."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harmony_viz.cli._common import CLIError, command, difference_lines, read_source, say_read, write_json

EXAMPLES = """\
examples:
  harmony-viz template-check --template gpt-oss.jinja request.json
  harmony-viz template-check --model ./gpt-oss-20b --json train.jsonl > diffs.jsonl
  harmony-viz template-check --template gpt-oss.jinja --for-completion train.parquet

Input: a Chat Completions request (messages, optional tools and reasoning_effort) in a
.json file, or a dataset of them: .jsonl (one per line), .parquet (one per row) or a .json
array. Both sides get the same date (--date, default today) and reasoning effort.
Output: the differences, each with its code; --json prints one line per conversation,
{"index", "identical", "differences": [{"code", "message", "ours", "template"}]}. A dataset
shows a progress bar on stderr and ends with the counts per code (on stderr with --json).
Exit 0 when every conversation renders alike, 1 when some differ, 2 on bad input.
"""


def add_parser(subparsers: Any) -> None:
    p = command(subparsers, "template-check", run, help="compare a Jinja chat template's render with the Harmony format, message by message", description="Render Chat Completions requests through a Jinja chat template (transformers' "
        "apply_chat_template machinery) and through the Harmony renderer (= openai-harmony), and name "
        "every difference: double-encoded arguments, missing <|constrain|>, dropped parallel calls, ...", epilog=EXAMPLES)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--template", metavar="FILE", help="the chat template (.jinja)")
    src.add_argument("--model", metavar="DIR", help="a local model folder (chat_template.jinja or tokenizer_config.json)")
    p.add_argument("file", metavar="REQUEST.json|DATA.jsonl|DATA.parquet", help="a request, or a dataset of requests")
    p.add_argument("--for-completion", action="store_true", help="compare prompts for the next turn (add_generation_prompt) instead of training text")
    p.add_argument("--json", action="store_true", help="one JSON line per conversation")
    p.add_argument("--date", metavar="YYYY-MM-DD", default=None, help="the date both sides write (default: today)")
    p.add_argument("--batch-size", type=int, default=1024, metavar="N", help="rows read at a time from a dataset (default 1024)")


def _template(args: argparse.Namespace) -> Any:
    """The chat template of --template or --model, checked to be one (it reads `messages` and renders a conversation)."""
    from harmony_viz.templates import LensError, TemplateSourceError, check_chat_template, load_template, template_from_model

    try:
        template = load_template(args.template) if args.template else template_from_model(args.model)
        check_chat_template(template)
    except (TemplateSourceError, LensError) as exc:
        raise CLIError(str(exc)) from None
    return template


def needs_templates_extra() -> None:
    """CLIError (one line naming the ``templates`` extra) when jinja2 or transformers is missing."""
    from harmony_viz.extras import MissingExtraError
    from harmony_viz.templates import jinja_modules

    try:
        jinja_modules()
    except MissingExtraError as exc:
        raise CLIError(str(exc)) from None


def read_request(path: str, args: argparse.Namespace) -> Any:
    """The Chat Completions request in ``path``, read by the one reader (an ``Input``; ``say_read`` it once it is used)."""
    found = read_source(path, args, form="chat")
    if found.kind != "chat":
        raise CLIError(f"{'stdin' if path == '-' else path}: {found.form}; the template lens compares a Chat Completions request")
    return found


def _is_dataset(path: Path) -> bool:
    """Parquet, JSONL, or a JSON array of request objects; anything else is one request (read by the one reader)."""
    if path.suffix == ".parquet" or path.name.endswith((".jsonl", ".jsonl.gz")):
        return True
    with path.open("rb") as f:
        head = f.read(4096).lstrip()
    return head.startswith(b"[") and head[1:].lstrip().startswith(b"{")


def _print_one(index: int, result: Any) -> None:
    if not result.differences:
        print(f"conversation {index}: identical")
        return
    print(f"conversation {index}: {len(result.differences)} difference(s)")
    for d in result.differences:
        print("\n".join(difference_lines(d)))


def run(args: argparse.Namespace) -> int:
    from harmony_viz.templates import DatasetSummary, LensError, check_requests, parse_date, read_requests

    if args.batch_size < 1:
        raise CLIError("--batch-size must be at least 1")
    needs_templates_extra()
    if args.date is not None:
        try:
            parse_date(args.date)
        except LensError as exc:
            raise CLIError(f"--date: {exc}") from None
    template = _template(args)
    path = Path(args.file)
    if not path.is_file():
        raise CLIError(f"{args.file}: no such file" if not path.exists() else f"{args.file}: is a folder, expected a file")
    dataset = _is_dataset(path)
    try:
        if dataset:
            rows = read_requests(path, batch_size=args.batch_size)
        else:
            found = read_request(args.file, args)
            rows = iter([(0, found.value)])
        results = check_requests(rows, template, date=args.date, for_completion=args.for_completion)
        if not dataset:
            index, result = next(results, (0, LensError(f"{args.file}: holds no request")))
            if isinstance(result, LensError):
                raise CLIError(f"{args.file}: {result}")
            say_read(found)
            write_json(result.to_json(index)) if args.json else _print_one(index, result)
            return 0 if result.identical else 1
        return _run_dataset(args, results, DatasetSummary())
    except LensError as exc:
        raise CLIError(str(exc)) from None


def _run_dataset(args: argparse.Namespace, results: Any, summary: Any) -> int:
    from tqdm.auto import tqdm

    from harmony_viz.templates import LensError

    for index, result in tqdm(results, desc="conversations", unit="conv", file=sys.stderr, mininterval=0.5):
        summary.add(result)
        if args.json:
            if isinstance(result, LensError):
                write_json({"index": index, "identical": False, "error": str(result), "differences": []})
            else:
                write_json(result.to_json(index))
        elif not isinstance(result, LensError) and result.differences and summary.rows <= 3:
            _print_one(index, result)  # a few examples; the summary counts the rest
    if summary.rows == 0:
        raise CLIError(f"{args.file}: holds no request")
    print(summary.to_text(), file=sys.stderr if args.json else sys.stdout)
    return 0 if summary.identical == summary.rows else 1
