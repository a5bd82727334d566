"""The replay pages a live run's matrix links to: which pages, what each replays, and the fragment that opens each result.

One page per answer case (every engine's served results together, in the replay's server tab),
one per prompt case and engine (the replay of that prompt check: its prompt tab). This module
plans them; ``conformance --html`` writes them with ``harmony_viz.save_html`` and adds the
opener (``js/openat.ts``): the page opens at the tab, engine and API its URL's fragment names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from harmony_viz._static import asset_text
from harmony_viz.conformance._run import Outcome
from harmony_viz.servers import CheckResult, PromptCheck

_SLUG = re.compile(r"[^A-Za-z0-9._-]+")

Key = tuple[str, str, str, "str | None"]  # (case, engine, api, engine_version as the result says it)


@dataclass(frozen=True)
class ReplayPage:
    """One replay page to write: ``file`` (a name in the replays folder), what it replays (``name``), the
    ``source`` that ``harmony_viz.save_html`` takes (a case's CheckResults, or a PromptCheck), and for each
    result it shows the URL fragment that opens it (``tab=server&engine=…&api=…``)."""

    file: str
    name: str
    source: Any
    fragments: Mapping[Key, str]


def _slug(text: str, used: set[str]) -> str:
    base = _SLUG.sub("-", text.replace("/", "--")).strip("-") or "case"
    name, n = base, 1
    while name in used:
        n += 1
        name = f"{base}-{n}"
    used.add(name)
    return name


def _answer_pages(case: str, mine: Sequence[Outcome], used: set[str]) -> list[ReplayPage]:
    # One page per case; an engine that replayed another stream (the reference server stops at its
    # first stop token) cannot share it: a page replays one stream, so that engine gets its own.
    streams: dict[tuple[int, ...], list[Outcome]] = {}
    for o in mine:
        streams.setdefault(tuple(o.check.token_ids), []).append(o)
    pages = []
    for k, group in enumerate(streams.values()):
        engines = list(dict.fromkeys(o.engine for o in group))
        file = _slug(case if k == 0 else f"{case}.{'.'.join(engines)}", used) + ".html"
        n = len(group[0].check.token_ids)
        name = f"{case} · {', '.join(engines)}" + (f" ({n} tokens replayed)" if len(streams) > 1 else "")
        fragments = {(case, o.engine, o.api, o.engine_version): urlencode({"tab": "server", "engine": o.engine, "api": o.api}) for o in group}
        pages.append(ReplayPage(file=file, name=name, source=[o.check for o in group], fragments=fragments))
    return pages


def replay_pages(outcomes: Sequence[Outcome]) -> list[ReplayPage]:
    """The replay pages of a run's outcomes: one per answer case (every engine's served results together), one per prompt case and engine.

    Not-served and error outcomes have no page.
    """
    used: set[str] = set()
    pages: list[ReplayPage] = []
    answers: dict[str, list[Outcome]] = {}
    for o in outcomes:
        if o.status in ("not-served", "error") or o.check is None:
            continue
        if isinstance(o.check, CheckResult):
            answers.setdefault(o.case.id, []).append(o)
        elif isinstance(o.check, PromptCheck):
            pages.append(ReplayPage(file=_slug(f"{o.case.id}.{o.engine}", used) + ".html", name=f"{o.case.id} · {o.engine}'s prompt",
                                    source=o.check.prompt_check() if hasattr(o.check, "prompt_check") else o.check,  # a round trip's: its prompt check
                                    fragments={(o.case.id, o.engine, o.api, o.engine_version): "tab=prompt"}))
    for case, mine in answers.items():
        pages += _answer_pages(case, mine, used)
    return pages


def with_opener(page_text: str) -> str:
    """A replay page's text with the opener added (the bundle's ``open_at.js``): it opens at the tab, engine and API its URL's fragment names."""
    script = "<script>" + asset_text("open_at.js").replace("</script", "<\\/script") + "</script>\n"
    at = page_text.rfind("</body>")
    return page_text[:at] + script + page_text[at:] if at >= 0 else page_text + script
