"""mkdocs hooks for the docs site (mkdocs.yml ``hooks:``).

Two jobs, both at build time so that nothing on the site can drift from the code:

- the command-line page: ``<!-- cli-reference -->`` in docs/cli.md becomes a section per
  command, written from the CLI's own argparse parsers (``harmony_viz.cli.build_parser``);
- links from a page to a file of the repository outside docs/ (a notebook, the suite's schema)
  resolve on GitHub as written (``../notebooks/01_harmony_tour.ipynb``); on the site the file is
  copied under ``_repo/`` and the link pointed there. A link to a file that does not exist is
  left alone, so ``mkdocs build --strict`` fails on it.
"""

from __future__ import annotations

import argparse
import html
import posixpath
import re
from pathlib import Path
from typing import Any

MARKER = "<!-- cli-reference -->"
REPO_PREFIX = "_repo/"
# An inline link or image whose target is a relative path (no scheme, not absolute, not an anchor).
_LINK = re.compile(r"(\]\()(?![a-z][a-z0-9+.-]*:|/|#)([^)\s#]+)(#[^)\s]*)?(\))")


# -- the command-line page -------------------------------------------------------------------------


def _cell(text: str) -> str:
    """Help text as one Markdown table cell: HTML and Markdown specials escaped, one line."""
    text = html.escape(" ".join(text.split()), quote=False)
    for ch in "\\`*_[]|":
        text = text.replace(ch, "\\" + ch)
    return text


def _invocation(action: argparse.Action) -> str:
    if not action.option_strings:
        return action.metavar if isinstance(action.metavar, str) else action.dest
    flags = ", ".join(action.option_strings)
    if action.nargs == 0:
        return flags
    if action.metavar is not None:
        metavar = action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    elif action.choices is not None:
        metavar = "{" + ",".join(map(str, action.choices)) + "}"
    else:
        metavar = action.dest.upper()
    return f"{flags} {metavar}"


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        what = action.help or ""
        if action.choices is not None and action.metavar is not None:
            what += f" (one of: {', '.join(map(str, action.choices))})"
        default = action.default
        if action.option_strings and action.nargs != 0 and default not in (None, (), [], "", argparse.SUPPRESS):
            what += f" (default: {default})"
        rows.append(f"| `{_invocation(action)}` | {_cell(what)} |")
    if not rows:
        return []
    return ["| argument | what it does |", "|---|---|", *rows]


def cli_reference() -> str:
    """The reference of every ``harmony-viz`` command, as Markdown, from the parsers themselves."""
    from harmony_viz.cli import build_parser

    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {a.dest: a.help for a in commands._choices_actions}
    out = ["### harmony-viz", "", "```text", parser.format_usage().strip(), "```", ""]
    seen: set[int] = set()
    for name, sub in commands.choices.items():
        if id(sub) in seen:  # an alias of a command already written
            continue
        seen.add(id(sub))
        aliases = [other for other, p in commands.choices.items() if p is sub and other != name]
        out += [f"### `harmony-viz {name}`", ""]
        if helps.get(name):
            out += [f"*{_cell(helps[name])}*", ""]
        if aliases:
            out += ["Also spelt " + ", ".join(f"`harmony-viz {a}`" for a in aliases) + ".", ""]
        if sub.description:
            out += [_cell(sub.description), ""]
        out += ["```text", sub.format_usage().strip(), "```", ""]
        out += _arguments(sub)
        if sub.epilog:
            out += ["", "```text", sub.epilog.strip("\n"), "```"]
        out.append("")
    return "\n".join(out)


# -- links to the repository's own files -------------------------------------------------------------


def _repo_target(page_uri: str, target: str, docs_dir: Path) -> str | None:
    """The repository path a page's relative link points to, when it leaves docs/ and names a file."""
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page_uri), target))
    if not joined.startswith("../"):
        return None
    rel = joined[3:]
    # a Markdown file outside docs/ would become a page of its own: such a link stays as written (and fails)
    return rel if (docs_dir.parent / rel).is_file() and not rel.endswith(".md") else None


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    docs_dir = Path(config["docs_dir"])
    wanted: set[str] = set()
    for page in files.documentation_pages():
        text = Path(page.abs_src_path).read_text(encoding="utf-8")
        for m in _LINK.finditer(text):
            rel = _repo_target(page.src_uri, m.group(2), docs_dir)
            if rel is not None:
                wanted.add(rel)
    for rel in sorted(wanted):
        files.append(File.generated(config, REPO_PREFIX + rel, abs_src_path=str(docs_dir.parent / rel)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    docs_dir = Path(config["docs_dir"])

    def point(m: re.Match[str]) -> str:
        rel = _repo_target(page.file.src_uri, m.group(2), docs_dir)
        if rel is None:
            return m.group(0)
        here = posixpath.dirname(page.file.src_uri)
        return m.group(1) + posixpath.relpath(REPO_PREFIX + rel, here or ".") + (m.group(3) or "") + m.group(4)

    markdown = _LINK.sub(point, markdown)
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, cli_reference())
    return markdown
