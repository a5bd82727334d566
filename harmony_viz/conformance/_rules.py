"""The format's rules that cases cite: a numbered table, each rule with its level (``rules.jsonl`` beside this file).

A rule's level says how far the format itself decides the answer (issue 34):
``must``: the format decides it, on a well-formed stream or request; ``should``: recovery from
malformed model output, where the format is silent; ``may``: our choice, where the stream is
well formed but the format leaves the answer open. A case's level is the strictest of its rules'.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

Level = Literal["must", "should", "may"]
LEVELS: tuple[Level, ...] = ("must", "should", "may")  # strictest first
RULES_PATH = Path(__file__).resolve().parent / "rules.jsonl"


@dataclass(frozen=True)
class Rule:
    """One rule of the format: its id (``H01``), level, text (one or two sentences) and source."""

    id: str
    level: Level
    text: str
    source: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "level": self.level, "text": self.text, "source": self.source}


@lru_cache(maxsize=1)
def _table() -> tuple[Rule, ...]:
    rules = []
    for line in RULES_PATH.read_text(encoding="utf-8").splitlines():
        if line.strip():
            obj = json.loads(line)
            rules.append(Rule(id=obj["id"], level=obj["level"], text=obj["text"], source=obj["source"]))
    return tuple(rules)


def rules() -> tuple[Rule, ...]:
    """The shipped rules, in their table's order."""
    return _table()


def rules_by_id() -> dict[str, Rule]:
    return {r.id: r for r in _table()}


def strictest(levels: Iterable[str]) -> Level | None:
    """The strictest of ``levels`` (``must`` over ``should`` over ``may``); None for none of them.

    >>> strictest(["may", "should"])
    'should'
    """
    given = set(levels)
    return next((lv for lv in LEVELS if lv in given), None)


def level_of_rules(ids: Iterable[str]) -> Level | None:
    """The strictest level of the rules named (ids not in the table are left out); None when none is known."""
    table = rules_by_id()
    return strictest(table[i].level for i in ids if i in table)
