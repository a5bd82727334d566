"""Hypothesis strategies the tool-declaration tests share: JSON Schema objects built from child schemas."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def objects(children: st.SearchStrategy[dict[str, Any]], *, min_size: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """``{"type": "object", ...}`` with up to four properties drawn from ``children``, some of them required."""
    names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
    return st.dictionaries(names, children, min_size=min_size, max_size=4).flatmap(
        lambda props: st.builds(
            lambda req: {"type": "object", "properties": props, **({"required": req} if req else {})},
            st.lists(st.sampled_from(sorted(props)), unique=True) if props else st.just([]),
        )
    )
