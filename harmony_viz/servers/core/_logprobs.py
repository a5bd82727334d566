"""Log-probs in a Chat Completions answer: the one reader of its ``logprobs.content`` entries.

An entry names its token by ``id`` (llama.cpp), by a ``token_id:N`` token (vLLM's
``return_tokens_as_token_ids``), else by its bytes or its token text, read through the encoding.
The answer's token ids (when the server sent no ``token_ids``) and the widget's log-prob columns
both come from here.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harmony_viz.trace import Logprobs


def logprob_entries(api: str, server: Any) -> list[dict[str, Any]]:
    """The ``logprobs.content`` entries of a Chat Completions answer (object or chunks), in order; [] for Responses or none."""
    if not api.startswith("chat") or not server:
        return []
    pieces = server if isinstance(server, list) else [server]
    return [e for p in pieces if isinstance(p, dict) for c in p.get("choices") or [] if isinstance(c, dict)
            for e in ((c.get("logprobs") or {}).get("content") or []) if isinstance(e, dict)]


class _Encoding:
    """The encoding, loaded on the first entry that names its token only by bytes or text."""

    def __init__(self) -> None:
        self._enc: Any = None

    def token(self, raw: bytes) -> int:
        if self._enc is None:
            from harmony_viz.tokens import encoding

            self._enc = encoding()
        return int(self._enc.encode_single_token(raw))


def entry_id(entry: dict[str, Any], enc: _Encoding | None = None) -> int | None:
    """The token id of one logprob entry (an ``id``, a ``token_id:N`` token, else its bytes); None when it names no token."""
    got = entry.get("id")
    if isinstance(got, int) and not isinstance(got, bool):
        return got
    tok = str(entry.get("token") or "")
    if tok.startswith("token_id:"):
        try:
            return int(tok.split(":", 1)[1])
        except ValueError:
            return None
    raw = bytes(entry["bytes"]) if isinstance(entry.get("bytes"), list) else tok.encode("utf-8")
    try:
        return (enc or _Encoding()).token(raw)
    except (KeyError, ValueError, TypeError):
        return None


def ids_from_logprobs(api: str, server: Any) -> tuple[int, ...] | None:
    """The token ids a Chat answer's logprob entries name, in order; None without entries or when one names no token."""
    entries = logprob_entries(api, server)
    if not entries:
        return None
    enc = _Encoding()
    ids = [entry_id(e, enc) for e in entries]
    return None if any(i is None for i in ids) else tuple(i for i in ids if i is not None)


def answer_logprobs(api: str, server: Any, ids: Sequence[int], *, source: str) -> Logprobs | None:
    """The log-probs a Chat answer carries for completion ``ids`` (a ``trace.Logprobs``), or None when it has none.

    Each entry is matched to the next token of ``ids`` with its id, in order: a stream's entries
    may skip tokens (llama.cpp sends them only with chunks that carry a delta), and those keep none.
    Alternatives are each entry's ``top_logprobs``, their ids read as the entry's own.
    """
    from harmony_viz.trace import Logprobs

    entries = logprob_entries(api, server)
    if not entries:
        return None
    enc = _Encoding()
    where: dict[int, list[int]] = {}
    for t, i in enumerate(ids):
        where.setdefault(int(i), []).append(t)
    rows, at = [], 0
    for e in entries:
        i = entry_id(e, enc)
        places = where.get(i) if i is not None else None
        k = bisect.bisect_left(places, at) if places else 0
        if not places or k == len(places):
            continue
        t = places[k]
        alts = [(a, float(x["logprob"])) for x in e.get("top_logprobs") or [] if isinstance(x, dict) and isinstance(x.get("logprob"), (int, float))
                and (a := entry_id(x, enc)) is not None]
        lp = e.get("logprob")
        rows.append((t, float(lp) if isinstance(lp, (int, float)) else None, alts))
        at = t + 1
    if not rows:
        return None
    k = max(len(r[2]) for r in rows)
    return Logprobs.from_rows(len(ids), rows, f"{source}, top {k}" if k else source)
