"""The trace: a stream, a chunking, and what the scanner reported after every chunk.

The scanner is fed once, chunk by chunk, and what it reports is kept as columns: each
step's end, each content delta's step, message and span, the rarer events as they came,
and the scanner's state only at the steps where it changed. A step (its chunk, events and
snapshot) is rebuilt from these when it is asked for, so a 131k-token replay holds a few
arrays, not 131k step objects, and a page is written straight from the columns.
"""

from __future__ import annotations

import bisect
import dataclasses
import operator
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from harmony_viz.findings import Unit
from harmony_viz.scanner import ContentDelta, Diagnostic, Event, Message, MessageFold, MessageStart, Snapshot
from harmony_viz.trace._chunking import Chunking, parse_chunking, text_chunks, token_chunks

if TYPE_CHECKING:
    from harmony_viz.trace._findings import Placed


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a replay: what was fed, the events it produced, and the state after it.

    Step 0 feeds nothing (the state before the stream); the last step is the end of the
    stream (``flush``), which may close an unterminated message.
    """

    index: int
    start: int
    end: int
    chunk: str | tuple[int, ...]
    events: tuple[Event, ...]
    snapshot: Snapshot
    flush: bool = False


# Every snapshot field but the position, which moves at every step and is kept apart.
_STATE_FIELDS = tuple(f.name for f in dataclasses.fields(Snapshot) if f.name != "position")
_state_of = operator.attrgetter(*_STATE_FIELDS)


@dataclass(frozen=True, slots=True)
class Deltas:
    """The content deltas of a trace as columns (one entry per delta, in order).

    ``texts`` holds the text of each delta that differs from the text of its span (held
    back, or rebuilt); ``kinds`` the kind of each delta that differs from its message's.
    """

    step: np.ndarray
    message: np.ndarray
    start: np.ndarray
    end: np.ndarray
    texts: dict[int, str]
    kinds: dict[int, str]

    def __len__(self) -> int:
        return int(self.step.size)


@dataclass(frozen=True, slots=True)
class Rare:
    """An event other than a content delta, with its step and the number of deltas before it."""

    step: int
    after: int
    event: Event


class _Tokens:
    """The stream's distinct ids with their bytes and text, and each token as an index into them."""

    def __init__(self, ids: np.ndarray) -> None:
        from harmony_viz.tokens import encoding

        enc = encoding()
        self.ids, inverse = np.unique(ids, return_inverse=True)
        self.inverse = inverse.reshape(-1)
        self.bytes = [enc.decode_single_token_bytes(int(t)) for t in self.ids.tolist()]
        self.text = [b.decode("utf-8", errors="replace") for b in self.bytes]

    def per_token(self) -> list[bytes]:
        vb = self.bytes
        return [vb[i] for i in self.inverse.tolist()]


class _Recorder:
    """Feeds a scanner and keeps what it reports as columns (see the module docstring)."""

    def __init__(self, scanner: Any, unit_text: Any) -> None:
        self.scanner = scanner
        self.unit_text = unit_text  # (start, end) -> the text of that span of the input
        # 32-bit columns: no stream comes near 2**31 tokens or characters
        self.ends = array("i", [0])
        self.d_step, self.d_message, self.d_start, self.d_end = array("i"), array("i"), array("i"), array("i")
        self.texts: dict[int, str] = {}
        self.kinds: dict[int, str] = {}
        self.rare: list[Rare] = []
        self.kind_of: dict[int, str] = {}
        first = scanner.snapshot()
        self.snap_steps: list[int] = [0]
        self.snaps: list[Snapshot] = [first]
        self.last_state = _state_of(first)
        self.positions: dict[int, int] = {}

    def record(self, step: int, end: int, events: list[Event]) -> None:
        """Keep the events of a step and the scanner's state after it."""
        for e in events:
            if type(e) is ContentDelta:
                i = len(self.d_step)
                if self.unit_text(e.start, e.end) != e.text:
                    self.texts[i] = e.text
                if self.kind_of.get(e.message) != e.kind:
                    self.kinds[i] = e.kind
                self.d_step.append(step)
                self.d_message.append(e.message)
                self.d_start.append(e.start)
                self.d_end.append(e.end)
            else:
                if type(e) is MessageStart:
                    self.kind_of[e.message] = e.kind
                self.rare.append(Rare(step, len(self.d_step), e))
        snap = self.scanner.snapshot()
        state = _state_of(snap)
        if state != self.last_state:
            self.snap_steps.append(step)
            self.snaps.append(snap)
            self.last_state = state
        if snap.position != end:
            self.positions[step] = snap.position
        self.ends.append(end)

    def feed_tokens(self, ids: list[int], ends: Sequence[int]) -> None:
        """Feed the chunks ending at ``ends``; runs of one-token steps of body text go through ``Scanner.feed_each``."""
        scanner, feed = self.scanner, self.scanner.feed
        kind_of, kinds, out = self.kind_of, self.kinds, self.ends
        n_steps = len(ends)
        k, start = 0, 0  # chunk k feeds ids[start:ends[k]] and is step k + 1
        run = -1  # chunks k..run are one token each
        while k < n_steps:
            end = ends[k]
            if end - start == 1 and scanner.hot:
                # as many one-token steps as stay plain body text: one delta each, the state unchanged but its position
                if run < k:
                    run = k
                    while run + 1 < n_steps and ends[run + 1] - ends[run] == 1:
                        run += 1
                n, message, kind = scanner.feed_each(ids, start, start + run - k + 1)
                if n:
                    first = len(self.d_step)
                    self.d_step.extend(range(k + 1, k + 1 + n))
                    self.d_message.extend([message] * n)
                    self.d_start.extend(range(start, start + n))
                    self.d_end.extend(range(start + 1, start + n + 1))
                    out.extend(range(start + 1, start + n + 1))
                    if kind_of.get(message) != kind:
                        kinds.update(dict.fromkeys(range(first, first + n), kind))
                    k, start = k + n, start + n
                    continue
            self.record(k + 1, end, feed(ids[start:end]))
            k, start = k + 1, end

    def feed_text(self, pieces: list[str]) -> None:
        feed = self.scanner.feed
        end = 0
        for step, piece in enumerate(pieces, 1):
            end += len(piece)
            self.record(step, end, feed(piece))


@dataclass(frozen=True, eq=False)
class Trace:
    """A token stream replayed through the scanner chunk by chunk, every step kept.

    Build one with :meth:`Trace.build`; the widget and the standalone page draw from it.

    >>> t = Trace.build([200006, 173781, 200008, 12194, 200007], "token")
    >>> [len(s.events) for s in t.steps]  # start, header tokens, <|message|>, "Hi", <|end|>, flush
    [0, 0, 0, 2, 1, 1, 0]
    """

    tokens: np.ndarray
    chunking: Chunking
    text: str | None
    role: str | None
    step_ends: np.ndarray = field(repr=False)
    deltas: Deltas = field(repr=False)
    rare: tuple[Rare, ...] = field(repr=False)
    _snap_steps: tuple[int, ...] = field(repr=False)
    _snaps: tuple[Snapshot, ...] = field(repr=False)
    _positions: dict[int, int] = field(repr=False)
    _vocab: _Tokens = field(repr=False)

    @classmethod
    def build(
        cls,
        tokens: Sequence[int] | np.ndarray,
        chunking: str | Chunking = "token",
        *,
        role: str | None = None,
    ) -> Trace:
        """Feed ``tokens`` to a fresh scanner in the pieces ``chunking`` cuts, recording each step.

        ``role`` is passed to the scanner, for a completion that starts inside an assistant
        message (no ``<|start|>`` header of its own).
        """
        from harmony_viz.scanner import Scanner
        from harmony_viz.tokens import N_VOCAB, check_ids

        chunking = parse_chunking(chunking)
        ids = np.asarray(tokens, dtype=np.int64)
        if ids.ndim != 1:
            raise ValueError(f"tokens must be a flat list of ids, got an array of shape {ids.shape}")
        if ids.size and (ids.min() < 0 or ids.max() >= N_VOCAB):
            check_ids(ids.tolist())  # raises, naming the first bad id
        ids = ids.astype(np.int32)
        vocab = _Tokens(ids)
        scanner = Scanner(role=role) if role is not None else Scanner()
        text: str | None = None
        if chunking.unit == "tokens":
            # the caller's list when it is one (ids as Python ints are 36 bytes each: not twice)
            id_list = tokens if type(tokens) is list and ids.size and all(type(t) is int for t in tokens) else ids.tolist()
            vb, vt = vocab.bytes, vocab.text
            inverse = array("i")
            inverse.frombytes(vocab.inverse.astype(np.int32).tobytes())  # 4 bytes a token, read as Python ints

            def unit_text(a: int, b: int) -> str:
                if b - a == 1:
                    return vt[inverse[a]]
                return b"".join([vb[i] for i in inverse[a:b]]).decode("utf-8", errors="replace")

            rec = _Recorder(scanner, unit_text)
            rec.feed_tokens(id_list, token_chunks(len(id_list), chunking))
        else:
            per_token = vocab.per_token()
            text = b"".join(per_token).decode("utf-8", errors="replace")
            rec = _Recorder(scanner, lambda a, b: text[a:b])
            rec.feed_text(text_chunks(text, per_token, chunking))
        end = rec.ends[-1]
        rec.record(len(rec.ends), end, scanner.flush())
        deltas = Deltas(
            np.frombuffer(rec.d_step, dtype=np.int32), np.frombuffer(rec.d_message, dtype=np.int32),
            np.frombuffer(rec.d_start, dtype=np.int32), np.frombuffer(rec.d_end, dtype=np.int32), rec.texts, rec.kinds,
        )
        return cls(ids, chunking, text, role, np.frombuffer(rec.ends, dtype=np.int32), deltas, tuple(rec.rare),
                   tuple(rec.snap_steps), tuple(rec.snaps), rec.positions, vocab)

    @property
    def unit(self) -> Unit:
        """What spans count: tokens, or characters of :attr:`text` for text chunkings."""
        return self.chunking.unit

    @property
    def n_steps(self) -> int:
        return int(self.step_ends.size)

    @property
    def steps(self) -> Steps:
        """Every step, each rebuilt from the columns when it is read."""
        return Steps(self)

    # ---------------------------------------------------------------- tokens and text

    @cached_property
    def token_bytes(self) -> tuple[bytes, ...]:
        """The bytes of each token (special tokens as their literal spelling)."""
        return tuple(self._vocab.per_token())

    @cached_property
    def token_char_starts(self) -> np.ndarray:
        """Character offset in :attr:`text` where each token starts, plus the total at the end."""
        from harmony_viz.tokens import char_starts

        return char_starts(self._vocab.per_token())

    def token_bytes_of(self, token_id: int) -> bytes:
        """The bytes of one token id (any id in the vocabulary)."""
        from harmony_viz.tokens import encoding

        return encoding().decode_single_token_bytes(token_id)

    def distinct_tokens(self) -> tuple[np.ndarray, np.ndarray, list[bytes]]:
        """``(ids, index, bytes)``: the distinct ids in order, each token as an index into them, and their bytes."""
        return self._vocab.ids, self._vocab.inverse, self._vocab.bytes

    def unit_text(self, start: int, end: int) -> str:
        """The text of input span ``start:end`` (tokens decoded, or characters of :attr:`text`)."""
        if self.text is not None:
            return self.text[start:end]
        vb = self._vocab.bytes
        return b"".join(vb[i] for i in self._vocab.inverse[start:end].tolist()).decode("utf-8", errors="replace")

    # ---------------------------------------------------------------- steps, rebuilt on demand

    def step(self, k: int) -> Step:
        """Step ``k``: its chunk, its events in the order the scanner sent them, and the state after it."""
        n = self.n_steps
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError(f"step {k} is out of range: this trace has steps 0 to {n - 1}")
        end = int(self.step_ends[k])
        start = int(self.step_ends[k - 1]) if 0 < k < n - 1 else end
        flush = k == n - 1 and k > 0
        if self.text is not None:
            chunk: str | tuple[int, ...] = "" if flush or k == 0 else self.text[start:end]
        else:
            chunk = () if flush or k == 0 else tuple(self.tokens[start:end].tolist())
        return Step(k, start, end, chunk, tuple(self._events_between(k, k)), self._snapshot(k), flush=flush)

    def _snapshot(self, k: int) -> Snapshot:
        i = bisect.bisect_right(self._snap_steps, k) - 1
        snap = self._snaps[i]
        position = self._positions.get(k, int(self.step_ends[k]))
        return snap if snap.position == position else dataclasses.replace(snap, position=position)

    def snapshot_changes(self) -> list[tuple[int, Snapshot]]:
        """``(step, snapshot)`` at step 0 and wherever a field other than ``position`` changed."""
        return list(zip(self._snap_steps, self._snaps))

    def positions(self) -> np.ndarray | None:
        """Each step's snapshot ``position``, or None when it is always what was fed (the step's end)."""
        if not self._positions:
            return None
        out = self.step_ends.copy()
        for k, pos in self._positions.items():
            out[k] = pos
        return out

    @cached_property
    def _delta_offsets(self) -> np.ndarray:
        """Deltas of step s are ``offsets[s]:offsets[s + 1]``."""
        return np.searchsorted(self.deltas.step, np.arange(self.n_steps + 1), side="left")

    @cached_property
    def _rare_steps(self) -> list[int]:
        return [r.step for r in self.rare]

    @cached_property
    def _kind_of(self) -> dict[int, str]:
        return {r.event.message: r.event.kind for r in self.rare if type(r.event) is MessageStart}

    def delta(self, i: int) -> ContentDelta:
        """Content delta ``i`` (in stream order) as the scanner sent it."""
        d = self.deltas
        start, end, message = int(d.start[i]), int(d.end[i]), int(d.message[i])
        text = d.texts.get(i)
        if text is None:
            text = self.unit_text(start, end)
        return ContentDelta(message, d.kinds.get(i) or self._kind_of.get(message, "other"), text, start, end)  # type: ignore[arg-type]

    def _events_between(self, first: int, last: int) -> Iterator[Event]:
        return (e for _, e in self._stepped_events(first, last))

    def _stepped_events(self, first: int, last: int) -> Iterator[tuple[int, Event]]:
        """``(step, event)`` for every event of steps ``first..last``, in the order the scanner sent them."""
        offsets, steps = self._delta_offsets, self.deltas.step
        d, d1 = int(offsets[first]), int(offsets[last + 1])
        r = bisect.bisect_left(self._rare_steps, first)
        r1 = bisect.bisect_right(self._rare_steps, last)
        while d < d1 or r < r1:
            # a rare event recorded after `after` deltas comes before delta number `after`
            if r < r1 and (d >= d1 or self.rare[r].after <= d):
                yield self.rare[r].step, self.rare[r].event
                r += 1
            else:
                yield int(steps[d]), self.delta(d)
                d += 1

    def events(self, until: int | None = None, *, since: int = 0) -> list[Event]:
        """Every event of steps ``since..until`` (to the last step when None), in order."""
        return list(self._events_between(since, self.n_steps - 1 if until is None else until))

    @cached_property
    def diagnostics(self) -> tuple[tuple[int, Diagnostic], ...]:
        """Each diagnostic with the step that reported it."""
        return tuple((r.step, r.event) for r in self.rare if type(r.event) is Diagnostic)

    @cached_property
    def messages(self) -> tuple[Message, ...]:
        """The messages the scanner found, in order, with the step each started and ended (open ones too)."""
        return self._fold(with_text=True)

    @cached_property
    def headers(self) -> tuple[Message, ...]:
        """:attr:`messages` without their bodies (``text`` empty, no spans): every other field, at a fraction of the cost."""
        return self._fold(with_text=False)

    def _fold(self, *, with_text: bool) -> tuple[Message, ...]:
        fold = MessageFold(self.unit)
        if with_text:
            for k, e in self._stepped_events(0, self.n_steps - 1):
                fold.add(e, k)
        else:
            for r in self.rare:
                fold.add(r.event, r.step)
        return tuple(fold.messages(include_open=True))

    @cached_property
    def _deltas_by_message(self) -> tuple[np.ndarray, np.ndarray]:
        """``(order, messages)``: delta numbers sorted by message (stream order kept within one), and their messages."""
        order = np.argsort(self.deltas.message, kind="stable")
        return order, self.deltas.message[order]

    def content(self, message: int, until: int | None = None) -> str:
        """The body of ``message`` as streamed up to step ``until`` (the end when None)."""
        d = self.deltas
        last = self.n_steps - 1 if until is None else until
        # the message's deltas by bisection, not a pass over every delta per call; steps grow
        # with the delta number, so those up to ``last`` are a prefix of them
        order, messages = self._deltas_by_message
        own = order[np.searchsorted(messages, message, side="left") : np.searchsorted(messages, message, side="right")]
        picked = own[: int(np.searchsorted(d.step[own], last, side="right"))]
        return "".join(self.delta(int(i)).text for i in picked)

    def to_payload(self, extra: Mapping[str, Sequence[int]] | None = None, *, findings: Sequence[Placed] | None = None,
                   findings_error: str | None = None) -> tuple[dict[str, Any], bytes]:
        """The trace as the browser reads it: JSON metadata and one buffer of binary columns (``extra`` ones too).

        ``findings`` are the stream's findings placed on it (``trace._findings``); by default the
        scanner's diagnostics alone.
        """
        from harmony_viz.trace._findings import scanner_findings
        from harmony_viz.trace._payload import encode

        return encode(self, extra, scanner_findings(self) if findings is None else findings, findings_error)


class Steps(Sequence[Step]):
    """A trace's steps as a sequence; each is rebuilt from the trace's columns when read."""

    __slots__ = ("_trace",)

    def __init__(self, trace: Trace) -> None:
        self._trace = trace

    def __len__(self) -> int:
        return self._trace.n_steps

    @overload
    def __getitem__(self, k: int) -> Step: ...

    @overload
    def __getitem__(self, k: slice) -> list[Step]: ...

    def __getitem__(self, k: int | slice) -> Step | list[Step]:
        if isinstance(k, slice):
            return [self._trace.step(i) for i in range(*k.indices(len(self)))]
        return self._trace.step(k)

    def __iter__(self) -> Iterator[Step]:
        return (self._trace.step(i) for i in range(len(self)))
