"""Known divergences: the cases an engine is known to fail, and with which codes (JSON lines, one a divergence).

The shipped ones are in ``known/`` beside this file, one file an engine; ``--known FILE`` reads
any such file, ``--write-known OUT`` writes today's failures as one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harmony_viz.conformance._run import Outcome

KnownKey = tuple[str, str, str]  # (case id, engine, api)


class KnownError(ValueError):
    """A known-divergence file that cannot be used: one line naming the file and line."""


@dataclass(frozen=True)
class Known:
    """One recorded divergence: this case, through this engine's api, fails with exactly these codes."""

    case: str
    engine: str
    api: str
    codes: frozenset[str]
    reason: str = ""
    link: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case, "engine": self.engine, "api": self.api, "codes": sorted(self.codes), "reason": self.reason, "link": self.link}


def _known_of(obj: Any, where: str) -> Known:
    if not isinstance(obj, dict):
        raise KnownError(f"{where}: a divergence is an object with case, engine, api, codes, reason and link")
    missing = [k for k in ("case", "engine", "api", "codes") if k not in obj]
    if missing:
        raise KnownError(f"{where}: missing {', '.join(missing)}")
    codes = obj["codes"]
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes) or not all(isinstance(obj[k], str) for k in ("case", "engine", "api")):
        raise KnownError(f"{where}: case, engine and api are strings, codes a list of strings")
    return Known(case=obj["case"], engine=obj["engine"], api=obj["api"], codes=frozenset(codes),
                 reason=str(obj.get("reason") or ""), link=str(obj.get("link") or ""))


def read_known(path: str | Path) -> dict[KnownKey, Known]:
    """The divergences in a JSON-lines file (``case``, ``engine``, ``api``, ``codes``, ``reason``, ``link``); KnownError in one line."""
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
    """Today's failures as a known-divergence file; the number written."""
    lines = [json.dumps(Known(case=o.case.id, engine=o.engine, api=o.api, codes=frozenset(o.codes),
                              reason=reason or "recorded by --write-known", link=link).to_json())
             for o in outcomes if o.status in ("fail", "known")]
    Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)
