"""Known divergences: the cases an engine is known to fail, and with which codes (JSON lines, one a divergence).

The shipped ones are in ``known/`` beside this file, one file an engine; ``--known FILE`` reads
any such file, ``--write-known OUT`` writes today's failures as one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from harmony_viz.conformance._records import KNOWN_KINDS, Known, KnownKey, Outcome

__all__ = ["KNOWN_KINDS", "Known", "KnownError", "KnownKey", "read_known", "shipped_known", "write_known"]


class KnownError(ValueError):
    """A known-divergence file that cannot be used: one line naming the file and line."""


def _known_of(obj: Any, where: str) -> Known:
    if not isinstance(obj, dict):
        raise KnownError(f"{where}: a divergence is an object with case, engine, api, codes, reason and link")
    missing = [k for k in ("case", "engine", "api", "codes") if k not in obj]
    if missing:
        raise KnownError(f"{where}: missing {', '.join(missing)}")
    codes = obj["codes"]
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes) or not all(isinstance(obj[k], str) for k in ("case", "engine", "api")):
        raise KnownError(f"{where}: case, engine and api are strings, codes a list of strings")
    kind = obj.get("kind", "research-needed")  # a file from before triage: nobody has looked at it yet
    if kind not in KNOWN_KINDS:
        raise KnownError(f"{where}: kind is {json.dumps(kind)}; a divergence is one of {', '.join(KNOWN_KINDS)}")
    return Known(case=obj["case"], engine=obj["engine"], api=obj["api"], codes=frozenset(codes), reason=str(obj.get("reason") or ""),
                 link=str(obj.get("link") or ""), kind=kind, draft=str(obj.get("draft") or ""))


def read_known(path: str | Path) -> dict[KnownKey, Known]:
    """The divergences in a JSON-lines file (``case``, ``engine``, ``api``, ``codes``, ``kind``, ``reason``, ``link``, ``draft``); KnownError in one line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KnownError(f"{path}: cannot read the known-divergence file: {exc}") from None
    out: dict[KnownKey, Known] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise KnownError(f"{path}:{n}: not JSON ({exc.msg})") from None
        known = _known_of(obj, f"{path}:{n}")
        if known.case and (known.case, known.engine, known.api) in out:
            raise KnownError(f"{path}:{n}: {known.case} through {known.engine} {known.api} is listed twice")
        out[(known.case, known.engine, known.api)] = known
    return out


def write_known(outcomes: Iterable[Outcome], path: str | Path, *, reason: str = "", link: str = "") -> int:
    """Today's failures as a known-divergence file, each ``research-needed`` (nobody has triaged it yet); the number written."""
    lines = [json.dumps(Known(case=o.case.id, engine=o.engine, api=o.api, codes=frozenset(o.codes), kind="research-needed",
                              reason=reason or "recorded by --write-known, not yet triaged", link=link).to_json())
             for o in outcomes if o.status in ("fail", "known")]
    Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


_SHIPPED: dict[KnownKey, Known] | None = None


def shipped_known() -> dict[KnownKey, Known]:
    """Every divergence of the shipped known files (``known/``), read once; empty where one cannot be read (they are labels)."""
    global _SHIPPED
    if _SHIPPED is None:
        from harmony_viz.conformance._case import KNOWN_DIR

        found: dict[KnownKey, Known] = {}
        for path in sorted(KNOWN_DIR.glob("*.jsonl")):
            try:
                found.update(read_known(path))
            except KnownError:
                continue
        _SHIPPED = found
    return _SHIPPED
