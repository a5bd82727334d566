"""The trace: a stream, a chunking, and what the scanner reported after every chunk."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from harmony_viz.findings import Unit
from harmony_viz.scanner import ContentDelta, Diagnostic, Event, Message, MessageFold, Snapshot
from harmony_viz.trace._chunking import Chunking, parse_chunking, text_chunks, token_chunks


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
    steps: tuple[Step, ...]
    text: str | None = None
    role: str | None = None
    _token_bytes: tuple[bytes, ...] = field(default=(), repr=False)

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
        from harmony_viz.tokens import N_VOCAB, check_ids, encoding

        chunking = parse_chunking(chunking)
        ids = np.asarray(tokens, dtype=np.int64)
        if ids.ndim != 1:
            raise ValueError(f"tokens must be a flat list of ids, got an array of shape {ids.shape}")
        if ids.size and (ids.min() < 0 or ids.max() >= N_VOCAB):
            check_ids(ids.tolist())  # raises, naming the first bad id
        ids = ids.astype(np.int32)
        enc = encoding()
        token_bytes = tuple(enc.decode_single_token_bytes(int(t)) for t in ids)
        scanner = Scanner(role=role) if role is not None else Scanner()
        steps: list[Step] = [Step(0, 0, 0, () if chunking.unit == "tokens" else "", (), scanner.snapshot())]
        text: str | None = None
        if chunking.unit == "tokens":
            start = 0
            id_list = ids.tolist()
            for end in token_chunks(len(id_list), chunking):
                chunk = id_list[start:end]
                events = scanner.feed(chunk)
                steps.append(Step(len(steps), start, end, tuple(chunk), tuple(events), scanner.snapshot()))
                start = end
        else:
            text = b"".join(token_bytes).decode("utf-8", errors="replace")
            start = 0
            for piece in text_chunks(text, token_bytes, chunking):
                end = start + len(piece)
                events = scanner.feed(piece)
                steps.append(Step(len(steps), start, end, piece, tuple(events), scanner.snapshot()))
                start = end
        end = steps[-1].end
        tail = scanner.flush()
        steps.append(Step(len(steps), end, end, () if chunking.unit == "tokens" else "", tuple(tail or ()), scanner.snapshot(), flush=True))
        return cls(ids, chunking, tuple(steps), text, role, token_bytes)

    @property
    def unit(self) -> Unit:
        """What spans count: tokens, or characters of :attr:`text` for text chunkings."""
        return self.chunking.unit

    @property
    def n_steps(self) -> int:
        return len(self.steps)

    @property
    def token_bytes(self) -> tuple[bytes, ...]:
        """The bytes of each token (special tokens as their literal spelling)."""
        return self._token_bytes

    @cached_property
    def token_char_starts(self) -> np.ndarray:
        """Character offset in :attr:`text` where each token starts, plus the total at the end."""
        from harmony_viz.tokens import char_starts

        return char_starts(self._token_bytes)

    def token_bytes_of(self, token_id: int) -> bytes:
        """The bytes of one token id (any id in the vocabulary)."""
        from harmony_viz.tokens import encoding

        return encoding().decode_single_token_bytes(token_id)

    def events(self, until: int | None = None) -> list[Event]:
        """Every event of steps ``0..until`` (all steps when None), in order."""
        last = self.n_steps - 1 if until is None else until
        return [e for s in self.steps[: last + 1] for e in s.events]

    @cached_property
    def diagnostics(self) -> tuple[tuple[int, Diagnostic], ...]:
        """Each diagnostic with the step that reported it."""
        return tuple((s.index, e) for s in self.steps for e in s.events if isinstance(e, Diagnostic))

    @cached_property
    def messages(self) -> tuple[Message, ...]:
        """The messages the scanner found, in order, with the step each started and ended (open ones too)."""
        fold = MessageFold(self.unit)
        for s in self.steps:
            fold.feed(s.events, s.index)
        return tuple(fold.messages(include_open=True))

    def content(self, message: int, until: int | None = None) -> str:
        """The body of ``message`` as streamed up to step ``until`` (the end when None)."""
        return "".join(e.text for e in self.events(until) if isinstance(e, ContentDelta) and e.message == message)

    def to_payload(self) -> tuple[dict[str, Any], bytes]:
        """The trace as the browser reads it: JSON metadata and one buffer of binary columns."""
        from harmony_viz.trace._payload import encode

        return encode(self)
