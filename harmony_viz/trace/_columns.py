"""A trace's columns: the stream's tokens (its distinct ids, each token as an index into them) and its content deltas.

They are kept in the stdlib's arrays, not numpy's: a page is written without numpy, whose import
costs a first call more than the page itself (its BLAS threads spin idle on another core for a
tenth of a second). The numpy views a caller may ask for (``Trace.tokens``, ``Trace.step_ends``,
``Deltas.step``, ...) are made when asked for.
"""

from __future__ import annotations

import bisect
import struct
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple, overload

from harmony_viz.scanner import Event

if TYPE_CHECKING:
    import numpy as np

Run = tuple[int, int, int, int, int]  # (first delta, first step, first token, length, message): a run of one-token body deltas


@dataclass(frozen=True, eq=False)
class Deltas:
    """The content deltas of a trace (one entry per delta, in order), kept as the recorder made them.

    Most deltas come in runs of one-token body steps, one delta a token: ``runs`` holds each
    run as ``(first delta, first step, first token, length, message)``. ``singles`` holds the
    others, the deltas fed one by one, as four columns (step, message, start, end), in order.
    ``step``, ``message``, ``start`` and ``end`` lay out every delta's as numpy columns when
    first asked for; a page reads the runs as they are (:meth:`units`).
    ``texts`` holds the text of each delta that differs from the text of its span (held
    back, or rebuilt); ``kinds`` the kind of each delta that differs from its message's;
    ``run_texts`` each run's text (its tokens' text, decoded at once: each is whole UTF-8).
    """

    singles: tuple[array, array, array, array] = field(repr=False)
    runs: tuple[Run, ...] = field(repr=False)
    run_texts: tuple[str, ...] = field(repr=False)
    n: int
    texts: dict[int, str]
    kinds: dict[int, str]

    def __len__(self) -> int:
        return self.n

    def units(self) -> Iterator[tuple[int, int, int, int, int, int]]:
        """``(first delta, step, message, start, end, count)`` for each delta fed alone (count 1) and each run (its first
        delta's step, the run's span; count its length), in stream order."""
        s_step, s_message, s_start, s_end = self.singles
        i = j = 0  # the delta and the single next
        for first, step, start, n, message in self.runs:
            while i < first:
                yield i, s_step[j], s_message[j], s_start[j], s_end[j], 1
                i += 1
                j += 1
            yield first, step, message, start, start + n, n
            i = first + n
        for j in range(j, len(s_step)):
            yield i, s_step[j], s_message[j], s_start[j], s_end[j], 1
            i += 1

    def unit_list(self) -> list[tuple[int, int, int, int, int, int]]:
        """:meth:`units` as a list, made once."""
        return self._units[0]

    @cached_property
    def _units(self) -> tuple[list[tuple[int, int, int, int, int, int]], list[int], list[int]]:
        """The units, with each one's first delta and last step (both grow): what :meth:`each` and :meth:`first_at` search."""
        units = list(self.units())
        return units, [u[0] for u in units], [u[1] + u[5] - 1 for u in units]

    def first_at(self, step: int) -> int:
        """The first delta of ``step`` or a later one (``n`` when none)."""
        units, _, last_steps = self._units
        k = bisect.bisect_left(last_steps, step)
        if k == len(units):
            return self.n
        first, s, *_ = units[k]
        return first + max(0, step - s)  # within a run, one step a delta

    def each(self, i: int, j: int) -> Iterator[tuple[int, int, int, int, int]]:
        """``(delta, step, message, start, end)`` for deltas ``i`` to ``j - 1``, in order."""
        units, firsts, _ = self._units
        k = max(0, bisect.bisect_right(firsts, i) - 1)
        while i < j and k < len(units):
            first, step, message, start, end, n = units[k]
            if n == 1:
                if i == first:
                    yield i, step, message, start, end
                    i += 1
            else:
                for o in range(i - first, min(n, j - first)):
                    yield first + o, step + o, message, start + o, start + o + 1
                i = max(i, first + n)
            k += 1

    @cached_property
    def _columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        import numpy as np

        singles = [np.frombuffer(a, dtype=np.int32) if len(a) else np.zeros(0, dtype=np.int32) for a in self.singles]
        if not self.runs:
            return singles[0], singles[1], singles[2], singles[3]
        first, step, start, length, message = np.array(self.runs, dtype=np.int32).T  # 32-bit, as the columns: a third of the memory
        # the k-th delta of all runs is the (k - deltas of the runs before)-th of its run: each column is a run's first value plus that
        before = np.cumsum(length, dtype=np.int32) - length
        k = np.arange(int(length.sum()), dtype=np.int32)
        at = k + np.repeat(first - before, length)  # its number among all deltas
        one_by_one = np.ones(self.n, dtype=bool)
        one_by_one[at] = False
        columns = []
        for single, base in zip(singles, (step, None, start, start + 1)):
            column = np.empty(self.n, dtype=np.int32)
            column[at] = np.repeat(message, length) if base is None else k + np.repeat(base - before, length)
            column[one_by_one] = single
            columns.append(column)
        return columns[0], columns[1], columns[2], columns[3]

    step = property(lambda self: self._columns[0], doc="Each delta's step (a numpy column).")
    message = property(lambda self: self._columns[1], doc="Each delta's message (a numpy column).")
    start = property(lambda self: self._columns[2], doc="Where each delta's span starts (a numpy column).")
    end = property(lambda self: self._columns[3], doc="Where each delta's span ends (a numpy column).")


class Rare(NamedTuple):
    """An event other than a content delta, with its step and the number of deltas before it."""

    step: int
    after: int
    event: Event


class TokenTable:
    """The stream's distinct ids (ascending) with their bytes and text, and each token as an index into them.

    ``slow`` (build only, then dropped) has a byte a token, 1 where its id does not take the scanner's fast path.
    """

    def __init__(self, ids: Sequence[int], meet: Any = None) -> None:
        from harmony_viz.tokens import N_VOCAB, encoding

        enc = encoding()
        self.ids: list[int] = sorted(set(ids))
        if self.ids and not (0 <= self.ids[0] and self.ids[-1] < N_VOCAB and all(type(t) is int for t in self.ids)):
            raise TypeError("not token ids")  # read_tokens names the first bad one (or reads numpy's integers as ints)
        self.bytes = list(map(enc.decode_single_token_bytes, self.ids))
        self.text = list(map(bytes.decode, self.bytes, repeat("utf-8"), repeat("replace")))
        # Two tables by id, each read for every token in one C loop (itemgetter's): at 131k tokens a few ms each in all,
        # where a loop in Python would take three times as long.
        each = itemgetter(*ids) if len(ids) > 1 else (lambda table: tuple(table[t] for t in ids))
        table: list[Any] = [0] * N_VOCAB
        for i, t in enumerate(self.ids):
            table[t] = i
        # each token as its index, in the smallest unsigned type that holds one: the payload's column as it is
        code = "B" if len(self.ids) <= 1 << 8 else "H" if len(self.ids) <= 1 << 16 else "I"
        self.inverse = array(code)
        self.inverse.frombytes(struct.pack(f"={len(ids)}{code}", *each(table)))
        self.slow = b""
        if meet is not None:
            for t, fast in zip(self.ids, meet(self.ids, self.bytes)):
                table[t] = 0 if fast else 1
            self.slow = bytes(each(table))

    def per_token(self) -> list[bytes]:
        return list(map(self.bytes.__getitem__, self.inverse))

    def text_of(self, start: int, end: int) -> str:
        """The text of tokens ``start:end``: one token's own text, or their bytes joined and decoded."""
        if end - start == 1:
            return self.text[self.inverse[start]]
        return b"".join(map(self.bytes.__getitem__, self.inverse[start:end])).decode("utf-8", errors="replace")


def read_tokens(tokens: Any, meet: Any) -> tuple[Sequence[int], TokenTable]:
    """``(ids, their TokenTable)``: ``tokens`` read (a list or tuple of ints as it is: ids as Python ints are 36 bytes
    each, not twice), or ValueError: not flat, or not token ids, naming the first bad entry."""
    if type(tokens) is list or type(tokens) is tuple:
        try:
            return tokens, TokenTable(tokens, meet)
        except (TypeError, IndexError, struct.error):
            pass  # named below
    shape = getattr(tokens, "shape", None)
    if shape is not None and len(shape) != 1:
        raise ValueError(f"tokens must be a flat list of ids, got an array of shape {tuple(shape)}")
    items = tokens.tolist() if hasattr(tokens, "tolist") else list(tokens)
    for t in items:
        if isinstance(t, (list, tuple)):
            raise ValueError(f"tokens must be a flat list of ids, got an entry {t!r}")
    from harmony_viz.tokens import check_ids

    ids = check_ids(items)
    return ids, TokenTable(ids, meet)


class EachToken:
    """The step ends of a replay fed one token a step: 0, 1, ..., n, and n again for the end of the stream (each made as
    read: 131k ints would take 6 ms to make). Read by length and index, as the array of any other chunking's is."""

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n + 2

    def __getitem__(self, k: int) -> int:
        i = k + self.n + 2 if k < 0 else k
        if not 0 <= i < self.n + 2:
            raise IndexError(f"step {k} is out of range: there are {self.n + 2}")
        return min(i, self.n)


class TokenIds(Sequence[int]):
    """A trace's token ids: each read as its distinct id, from the index the trace keeps (2 bytes a token, not 36)."""

    __slots__ = ("_vocab",)

    def __init__(self, vocab: TokenTable) -> None:
        self._vocab = vocab

    def __len__(self) -> int:
        return len(self._vocab.inverse)

    def __iter__(self) -> Iterator[int]:
        return map(self._vocab.ids.__getitem__, self._vocab.inverse)

    @overload
    def __getitem__(self, k: int) -> int: ...

    @overload
    def __getitem__(self, k: slice) -> list[int]: ...

    def __getitem__(self, k: int | slice) -> int | list[int]:
        if isinstance(k, slice):
            return list(map(self._vocab.ids.__getitem__, self._vocab.inverse[k]))
        return self._vocab.ids[self._vocab.inverse[k]]
