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
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, chain
from typing import TYPE_CHECKING, Any, overload

from harmony_viz.findings import Unit
from harmony_viz.scanner import ContentDelta, Diagnostic, Event, Message, MessageStart, Snapshot, fold_messages
from harmony_viz.trace._chunking import Chunking, parse_chunking, text_chunks, token_chunks
from harmony_viz.trace._columns import Deltas, EachToken, Rare, TokenIds, TokenTable, read_tokens
from harmony_viz.trace._gc import collecting_after

if TYPE_CHECKING:
    import numpy as np

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


# A trace keeps every snapshot field but the position, which moves at every step and is kept apart (it is the last field).
assert dataclasses.fields(Snapshot)[-1].name == "position"


_new_named = tuple.__new__  # a ContentDelta without the call through its __new__: thousands a trace


class _Recorder:
    """Feeds a scanner and keeps what it reports as columns (see the module docstring).

    Deltas are numbered in stream order (``n_deltas``): those of a step fed through
    :meth:`record` go to the four arrays, and each run of one-token body steps is kept as one
    row (first delta, first step, first token, length, message) until :meth:`deltas` lays
    them all out at once.
    """

    def __init__(self, scanner: Any, unit_text: Any) -> None:
        self.scanner = scanner
        self.unit_text = unit_text  # (start, end) -> the text of that span of the input
        # 32-bit columns: no stream comes near 2**31 tokens or characters
        self.d_step, self.d_message, self.d_start, self.d_end = array("i"), array("i"), array("i"), array("i")
        self.n_deltas = 0
        self.runs: list[tuple[int, int, int, int, int]] = []
        self.run_texts: list[str] = []  # each run's text, once the feed is done (a token trace's)
        self.texts: dict[int, str] = {}
        self.kinds: dict[int, str] = {}
        # the events but the content deltas, as three columns: each one's step, the deltas before it, the event
        self.rare_step: list[int] = []
        self.rare_after: list[int] = []
        self.rare_event: list[Event] = []
        self.kind_of: dict[int, str] = {}
        first = scanner.state()[:-1]
        self.snap_steps: list[int] = [0]
        # the state (every field but position) where it changed: plain tuples, made Snapshots again when a step is read
        self.states: list[tuple[Any, ...]] = [first]
        self.last_state = first
        self.positions: dict[int, int] = {}

    def record(self, step: int, end: int, events: list[Event]) -> None:
        """Keep the events of a step and the scanner's state after it."""
        for e in events:
            if type(e) is ContentDelta:
                i = self.n_deltas
                self.n_deltas = i + 1
                message, kind, text, start, stop = e
                if self.unit_text(start, stop) != text:
                    self.texts[i] = text
                if self.kind_of.get(message) != kind:
                    self.kinds[i] = kind
                self.d_step.append(step)
                self.d_message.append(message)
                self.d_start.append(start)
                self.d_end.append(stop)
            else:
                if type(e) is MessageStart:
                    self.kind_of[e.message] = e.kind
                self.rare_step.append(step)
                self.rare_after.append(self.n_deltas)
                self.rare_event.append(e)
        now = self.scanner.state()
        state = now[:-1]
        if state != self.last_state:
            self.snap_steps.append(step)
            self.states.append(state)
            self.last_state = state
        if now[-1] != end:
            self.positions[step] = now[-1]

    def feed_tokens(self, ids: Sequence[int], ends: Sequence[int], slow: bytes) -> None:
        """Feed the chunks ending at ``ends``; runs of one-token steps of body text go through ``Scanner.feed_run``, each
        ending at a longer chunk or at the next token marked in ``slow`` (a byte a token, 1 for a token off the scanner's
        fast path, see ``Scanner.meet``).
        The other steps are :meth:`record`'s work, written out in the loop (a 131k-token stream has about 10k of them).
        """
        scanner = self.scanner
        feed, feed_id, feed_run, scanner_state, unit_text = scanner.feed, scanner.feed_id, scanner.feed_run, scanner.state, self.unit_text
        kind_of, kinds, texts, runs = self.kind_of, self.kinds, self.texts, self.runs
        add_snap_step, add_state, positions = self.snap_steps.append, self.states.append, self.positions
        rare_step, rare_after, rare_event = self.rare_step.append, self.rare_after.append, self.rare_event.append
        d_step, d_message, d_start, d_end = self.d_step.append, self.d_message.append, self.d_start.append, self.d_end.append
        last_state, n_deltas = self.last_state, self.n_deltas
        n_steps = len(ends)
        # the chunks longer than one token, by number: one-token chunks from k run up to the next of them
        longer: list[int] = [] if type(ends) is range else [k for k, (a, b) in enumerate(zip(chain((0,), ends), ends)) if b - a != 1]
        k, start = 0, 0  # chunk k feeds ids[start:ends[k]] and is step k + 1
        stop = -1  # chunks k..stop - 1 are one token each
        while k < n_steps:
            end = ends[k]
            if end - start == 1 and scanner.hot:
                # as many one-token steps as stay plain body text: one delta each, the state unchanged but its position
                if stop <= k:
                    i = bisect.bisect_right(longer, k)
                    stop = longer[i] if i < len(longer) else n_steps
                limit = start + stop - k  # a run ends at a longer chunk, or at a token off the fast path
                i = slow.find(1, start, limit)
                if i >= 0:
                    limit = i
                n, message, kind = feed_run(limit - start) if limit > start else (0, -1, "")  # none: a stop token, fed below
                if n:
                    runs.append((n_deltas, k + 1, start, n, message))
                    if kind_of.get(message) != kind:
                        kinds.update(dict.fromkeys(range(n_deltas, n_deltas + n), kind))
                    n_deltas += n
                    k, start = k + n, start + n
                    continue
            k += 1  # the step number now
            for e in feed_id(ids[start]) if end - start == 1 else feed(ids[start:end]):
                if type(e) is ContentDelta:
                    message, kind, text, a, b = e
                    if unit_text(a, b) != text:
                        texts[n_deltas] = text
                    if kind_of.get(message) != kind:
                        kinds[n_deltas] = kind
                    d_step(k)
                    d_message(message)
                    d_start(a)
                    d_end(b)
                    n_deltas += 1
                else:
                    if type(e) is MessageStart:
                        kind_of[e.message] = e.kind
                    rare_step(k)
                    rare_after(n_deltas)
                    rare_event(e)
            now = scanner_state()
            state = now[:-1]
            if state != last_state:
                add_snap_step(k)
                add_state(state)
                last_state = state
            if now[-1] != end:
                positions[k] = now[-1]
            start = end
        self.last_state, self.n_deltas = last_state, n_deltas

    def feed_text(self, pieces: list[str]) -> None:
        feed = self.scanner.feed
        end = 0
        for step, piece in enumerate(pieces, 1):
            end += len(piece)
            self.record(step, end, feed(piece))

    def deltas(self) -> Deltas:
        return Deltas((self.d_step, self.d_message, self.d_start, self.d_end), tuple(self.runs), tuple(self.run_texts), self.n_deltas,
                      self.texts, self.kinds)


@dataclass(frozen=True, eq=False)
class Trace:
    """A token stream replayed through the scanner chunk by chunk, every step kept.

    Build one with :meth:`Trace.build`; the widget and the standalone page draw from it.

    >>> t = Trace.build([200006, 173781, 200008, 12194, 200007], "token")
    >>> [len(s.events) for s in t.steps]  # start, header tokens, <|message|>, "Hi", <|end|>, flush
    [0, 0, 0, 2, 1, 1, 0]
    """

    chunking: Chunking
    text: str | None
    role: str | None
    _ends: array | EachToken = field(repr=False)  # each step's end, 32-bit (see step_ends)
    deltas: Deltas = field(repr=False)
    _rare_step: tuple[int, ...] = field(repr=False)  # the rare events (all but the content deltas) as columns: each one's step,
    _rare_after: tuple[int, ...] = field(repr=False)  # the deltas before it,
    _rare_event: tuple[Event, ...] = field(repr=False)  # and the event
    _snap_steps: tuple[int, ...] = field(repr=False)
    _state_columns: tuple[tuple[Any, ...], ...] = field(repr=False)  # each Snapshot field but position, at each of _snap_steps
    _positions: dict[int, int] = field(repr=False)
    _vocab: TokenTable = field(repr=False)

    @classmethod
    @collecting_after
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
        from harmony_viz.tokens import encoding

        chunking = parse_chunking(chunking)
        by_token = chunking.unit == "tokens"
        # every id met before it is fed (Scanner.meet): which tokens end runs of body text
        ids, vocab = read_tokens(tokens, Scanner.meet if by_token else None)
        scanner = Scanner(role=role) if role is not None else Scanner()
        text: str | None = None
        step_ends = array("i", [0])
        if by_token:
            rec = _Recorder(scanner, vocab.text_of)
            ends = token_chunks(len(ids), chunking)
            rec.feed_tokens(ids, ends, vocab.slow)
            vocab.slow = b""  # read by the feed only
            decode = encoding().decode_bytes  # a run's tokens are whole UTF-8 (the fast path's): its text is their bytes decoded
            rec.run_texts = [decode(ids[start : start + n]).decode("utf-8") for _, _, start, n, _ in rec.runs]
            if ends == range(1, len(ids) + 1):  # one token a step: 0, 1, ..., n, n (131k ints would take 6 ms to make)
                step_ends = EachToken(len(ids))
            else:
                step_ends.extend(ends)
                step_ends.append(step_ends[-1])  # the end of the stream feeds nothing
        else:
            per_token = vocab.per_token()
            text = b"".join(per_token).decode("utf-8", errors="replace")
            rec = _Recorder(scanner, lambda a, b: text[a:b])
            pieces = text_chunks(text, per_token, chunking)
            rec.feed_text(pieces)
            step_ends.extend(accumulate(map(len, pieces)))
            step_ends.append(step_ends[-1])
        rec.record(len(step_ends) - 1, step_ends[-1], scanner.flush())
        return cls(chunking, text, role, step_ends, rec.deltas(), tuple(rec.rare_step), tuple(rec.rare_after), tuple(rec.rare_event),
                   tuple(rec.snap_steps), tuple(zip(*rec.states)), rec.positions, vocab)

    @cached_property
    def tokens(self) -> np.ndarray:
        """The stream's token ids, as a numpy column (made when first asked for: a page reads :attr:`n_tokens` and the ids' indices)."""
        import numpy as np

        v = self._vocab
        if not v.inverse:
            return np.zeros(0, dtype=np.int32)
        return np.asarray(v.ids, dtype=np.int32)[np.frombuffer(v.inverse, dtype=f"u{v.inverse.itemsize}")]

    @property
    def ids(self) -> Sequence[int]:
        """The stream's token ids as a plain sequence, read through its distinct ids (no numpy, no list made)."""
        return TokenIds(self._vocab)

    @property
    def n_tokens(self) -> int:
        """How many tokens the stream has."""
        return len(self._vocab.inverse)

    def token_key(self) -> tuple[tuple[int, ...], bytes]:
        """What tells streams apart: two traces' keys are equal exactly when their token ids are."""
        return tuple(self._vocab.ids), self._vocab.inverse.tobytes()

    @cached_property
    def step_ends(self) -> np.ndarray:
        """Each step's end, in input units (tokens, or characters of :attr:`text`): a numpy column, made when first asked for."""
        import numpy as np

        if isinstance(self._ends, EachToken):
            return np.append(np.arange(self._ends.n + 1, dtype=np.int32), np.int32(self._ends.n))
        return np.frombuffer(self._ends, dtype=np.int32).copy()

    def step_fed(self, units: int) -> int:
        """The first step by whose end ``units`` input units (tokens, or characters of :attr:`text`) have been fed."""
        if isinstance(self._ends, EachToken):
            n = self._ends.n  # step k ends at k (and the last, the end of the stream, at n again): no search
            return 0 if units < 0 else units if units <= n else n + 2
        return bisect.bisect_left(self._ends, units)

    def step_end(self, k: int) -> int:
        """Where step ``k``'s chunk ends: the input units (tokens, or characters of :attr:`text`) fed by then."""
        return self._ends[k]

    @property
    def unit(self) -> Unit:
        """What spans count: tokens, or characters of :attr:`text` for text chunkings."""
        return self.chunking.unit

    @property
    def n_steps(self) -> int:
        return len(self._ends)

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

    def distinct_tokens(self) -> tuple[list[int], array, list[bytes]]:
        """``(ids, index, bytes)``: the distinct ids ascending, each token as an index into them (an unsigned array), and their bytes."""
        return self._vocab.ids, self._vocab.inverse, self._vocab.bytes

    def unit_text(self, start: int, end: int) -> str:
        """The text of input span ``start:end`` (tokens decoded, or characters of :attr:`text`)."""
        if self.text is not None:
            return self.text[start:end]
        return self._vocab.text_of(start, end)

    # ---------------------------------------------------------------- steps, rebuilt on demand

    def step(self, k: int) -> Step:
        """Step ``k``: its chunk, its events in the order the scanner sent them, and the state after it."""
        n = self.n_steps
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError(f"step {k} is out of range: this trace has steps 0 to {n - 1}")
        end = self._ends[k]
        start = self._ends[k - 1] if 0 < k < n - 1 else end
        flush = k == n - 1 and k > 0
        if self.text is not None:
            chunk: str | tuple[int, ...] = "" if flush or k == 0 else self.text[start:end]
        else:
            chunk = () if flush or k == 0 else tuple(self.ids[start:end])
        return Step(k, start, end, chunk, tuple(self._events_between(k, k)), self._snapshot(k), flush=flush)

    def _snapshot(self, k: int) -> Snapshot:
        j = bisect.bisect_right(self._snap_steps, k) - 1  # columns, not a tuple a change: 9k fewer objects for the collector
        return Snapshot(*[column[j] for column in self._state_columns], self._positions.get(k, self._ends[k]))

    def positions(self) -> array | None:
        """Each step's snapshot ``position``, or None when it is always what was fed (the step's end)."""
        if not self._positions:
            return None
        if isinstance(self._ends, array):
            out = array("i", self._ends)
        else:
            out = array("i", range(self._ends.n + 1))
            out.append(self._ends.n)
        for k, pos in self._positions.items():
            out[k] = pos
        return out

    @cached_property
    def rare(self) -> tuple[Rare, ...]:
        """Every event but the content deltas, each with its step and the number of deltas before it."""
        return tuple(map(Rare, self._rare_step, self._rare_after, self._rare_event))

    def rare_events(self) -> Iterator[tuple[int, Event]]:
        """``(step, event)`` for every event but the content deltas, in order."""
        return zip(self._rare_step, self._rare_event)

    @cached_property
    def _kind_of(self) -> dict[int, str]:
        return {e.message: e.kind for e in self._rare_event if type(e) is MessageStart}

    def delta(self, i: int) -> ContentDelta:
        """Content delta ``i`` (in stream order) as the scanner sent it."""
        if not 0 <= i < self.deltas.n:
            raise IndexError(f"delta {i} is out of range: this trace has {self.deltas.n}")
        return self._delta(*next(self.deltas.each(i, i + 1)))

    def _delta(self, i: int, step: int, message: int, start: int, end: int) -> ContentDelta:
        d = self.deltas
        text = d.texts.get(i)
        if text is None:
            text = self.unit_text(start, end)
        return ContentDelta(message, d.kinds.get(i) or self._kind_of.get(message, "other"), text, start, end)  # type: ignore[arg-type]

    def _events_between(self, first: int, last: int) -> Iterator[Event]:
        return (e for _, e in self._stepped_events(first, last))

    def _stepped_events(self, first: int, last: int) -> Iterator[tuple[int, Event]]:
        """``(step, event)`` for every event of steps ``first..last``, in the order the scanner sent them."""
        deltas = self.deltas
        # the deltas of steps first..last: their steps grow with their number (two searches, not an offset for every step)
        d, d1 = deltas.first_at(first), deltas.first_at(last + 1)
        each = deltas.each(d, d1)
        rare_step, rare_after, rare_event = self._rare_step, self._rare_after, self._rare_event
        r = bisect.bisect_left(rare_step, first)
        r1 = bisect.bisect_right(rare_step, last)
        while d < d1 or r < r1:
            # a rare event recorded after `after` deltas comes before delta number `after`
            if r < r1 and (d >= d1 or rare_after[r] <= d):
                yield rare_step[r], rare_event[r]
                r += 1
            else:
                row = next(each)
                yield row[1], self._delta(*row)
                d += 1

    def events(self, until: int | None = None, *, since: int = 0) -> list[Event]:
        """Every event of steps ``since..until`` (to the last step when None), in order."""
        return list(self._events_between(since, self.n_steps - 1 if until is None else until))

    @cached_property
    def diagnostics(self) -> tuple[tuple[int, Diagnostic], ...]:
        """Each diagnostic with the step that reported it."""
        return tuple((step, e) for step, e in self.rare_events() if type(e) is Diagnostic)

    @cached_property
    def messages(self) -> tuple[Message, ...]:
        """The messages the scanner found, in order, with the step each started and ended (open ones too)."""
        return tuple(fold_messages(self._stepped_events(0, self.n_steps - 1), self.unit))

    @cached_property
    def headers(self) -> tuple[Message, ...]:
        """:attr:`messages` without their bodies (``text`` empty, no spans): every other field, at a fraction of the cost."""
        return tuple(fold_messages(self.rare_events(), self.unit))

    def scanned_messages(self) -> list[Message]:
        """The messages as one scan of the whole stream reads them (``scan(ids, role=...).messages``), for a token trace.

        Chunking only cuts a body into more pieces (the scanner is chunk-safe: its events are
        the same once adjacent deltas of one message are joined), so the deltas are joined here
        where nothing but a step parts them, and the scanner's fold reads those pieces with the
        other events: the same records, without a second scan. The whole scan's one feed ends
        before its flush, so what the flush releases (text held back at the end) is a piece of
        its own there, and here.

        >>> from harmony_viz.scanner import scan
        >>> ids = [200006, 173781, 200005, 17196, 200008, 12194, 3274, 200007]
        >>> Trace.build(ids, "token").scanned_messages() == scan(ids).messages
        True
        """
        if self.unit != "tokens":
            raise ValueError("scanned_messages is for token traces; a text trace's spans count characters")
        return fold_messages(self._scanned_events(), self.unit)

    def _scanned_events(self) -> list[tuple[None, Event]]:
        """The events of one scan of the whole stream that make its messages: the rare ones, and the deltas joined into the pieces that scan gives."""
        out: list[tuple[None, Event]] = []
        pieces = self._scan_pieces()
        i, n = 0, len(pieces)
        for after, e in zip(self._rare_after, self._rare_event):
            if type(e) is Diagnostic:  # no part of any message
                continue
            # a rare event recorded after `after` deltas comes before the piece that begins at delta number `after`
            while i < n and pieces[i][0] < after:
                out.append((None, pieces[i][1]))
                i += 1
            out.append((None, e))
        out.extend((None, delta) for _, delta in pieces[i:])
        return out

    def _scan_pieces(self) -> list[tuple[int, ContentDelta]]:
        """``(first delta, delta)`` for each run of deltas one scan of the whole stream gives as one.

        Read from the deltas' units (:meth:`Deltas.units`), not delta by delta: nothing parts the
        deltas of a run (one message, contiguous, no event between them: the scanner was fed
        plain body text), so a piece begins only where a unit does.
        """
        d = self.deltas
        if not d.n:
            return []
        cuts = set(self._rare_after)  # an event between two deltas parts them
        last_step = self.n_steps - 1  # the flush: what it releases (held-back text) is a piece of its own, as in the one feed
        text_of, texts, kinds, kind_of = self._vocab.text_of, d.texts, d.kinds, self._kind_of
        runs, run_texts = d.runs, d.run_texts
        r = 0  # the run next
        out: list[tuple[int, ContentDelta]] = []
        parts: list[str] = []
        first = m = a = b = -1
        flushed = False
        for i, step, message, start, end, count in d.unit_list():
            if message != m or start != b or i in cuts or (step >= last_step and not flushed):
                if first >= 0:
                    out.append((first, _new_named(ContentDelta, (m, kinds.get(first) or kind_of.get(m, "other"), "".join(parts), a, b))))
                first, m, a = i, message, start
                parts = []
                flushed = flushed or step >= last_step
            if r < len(runs) and runs[r][0] == i:  # a run: its text, decoded at build
                parts.append(run_texts[r])
                r += 1
            else:  # a delta fed alone: its tokens' text, unless rebuilt or held back (its own then)
                text = texts.get(i)
                parts.append(text_of(start, end) if text is None else text)
            b = end
        out.append((first, _new_named(ContentDelta, (m, kinds.get(first) or kind_of.get(m, "other"), "".join(parts), a, b))))
        return out

    @cached_property
    def _deltas_by_message(self) -> tuple[np.ndarray, np.ndarray]:
        """``(order, messages)``: delta numbers sorted by message (stream order kept within one), and their messages."""
        import numpy as np

        order = np.argsort(self.deltas.message, kind="stable")
        return order, self.deltas.message[order]

    def content(self, message: int, until: int | None = None) -> str:
        """The body of ``message`` as streamed up to step ``until`` (the end when None)."""
        d = self.deltas
        last = self.n_steps - 1 if until is None else until
        # the message's deltas by bisection, not a pass over every delta per call; steps grow
        # with the delta number, so those up to ``last`` are a prefix of them
        import numpy as np

        order, messages = self._deltas_by_message
        own = order[np.searchsorted(messages, message, side="left") : np.searchsorted(messages, message, side="right")]
        picked = own[: int(np.searchsorted(d.step[own], last, side="right"))]
        return "".join(self.delta(int(i)).text for i in picked)

    @collecting_after
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
