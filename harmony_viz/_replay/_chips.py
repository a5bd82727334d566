"""What each chip carries beyond the trace: its fate in each server answer, and the model's log-probs.

Both are worked out once in Python and travel as binary columns of the payload; the browser
only draws them.

- **Fates** (a capture or server-check results): the server lens says, per check, what its
  answer made of every token (``servers.result_fates``: content, reasoning, call-name,
  call-arguments, dropped, control) beside what the format makes of it, run-length coded in
  the server tab's data. Here each check becomes two columns, ``fate.I.len`` (run lengths) and
  ``fate.I.value`` (``fate | expected << 3 | mismatch << 6``); ``meta["fates"]`` holds the code
  names and, per check, whether it has columns.
- **Log-probs** (a recorded run with ``top_logprobs``, a capture or check whose Chat answer
  carries ``logprobs``), from the first token that has one (``meta["logprobs"]["start"]``: a
  capture's prompt costs nothing): ``lp.value`` (float16 per token, NaN where none), ``lp.alt.n``
  (how many alternatives each token has), ``lp.alt.id`` and ``lp.alt.value`` (each alternative,
  as an index into a table of their own, and its float16 log-prob), the table ``lp.vocab.gap`` /
  ``lp.vocab.len`` / ``lp.vocab.bytes`` (their sorted ids as gaps, and their bytes);
  ``meta["logprobs"]`` says who reported them, the most alternatives a token has, and the
  special tokens among them by name. That is 3 bytes a token and 3 an alternative (4 past 256
  distinct ones), and each distinct alternative's id and bytes once.
"""

from __future__ import annotations

from typing import Any

from harmony_viz.trace import Logprobs


def logprobs_of(stream: Any) -> Logprobs | None:
    """The log-probs a stream the reader made carries (``Input.stream()``): a capture's or check results' answer, or a
    recorded run's; None when it has none."""
    lens = getattr(stream, "lens", None)
    if lens is not None:
        from harmony_viz.servers import lens_logprobs  # the server modules, only for a stream that has a server record

        return lens_logprobs(lens)
    run = getattr(stream, "run", None)
    if run is None or run.text is not None:
        return None
    return Logprobs.from_run(run, offset=len(run.prompt_token_ids))


def fate_columns(server: dict[str, Any] | None, n: int) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The server tab's fates (``server["fates"]``) as columns over a stream of ``n`` tokens, and their meta entry."""
    fates = (server or {}).get("fates")
    if not fates:
        return {}, None
    cols: dict[str, Any] = {}
    present = []
    for i, runs in enumerate(fates.get("checks") or []):
        if runs is None or sum(runs["lengths"]) != n:
            present.append(False)
            continue
        cols[f"fate.{i}.len"] = runs["lengths"]
        cols[f"fate.{i}.value"] = runs["values"]
        present.append(True)
    return cols, {"codes": list(fates["codes"]), "checks": present}


def logprob_columns(lp: Logprobs | None, n: int) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``lp`` as columns over a stream of ``n`` tokens, and the meta entry; ({}, None) without log-probs."""
    from harmony_viz.tokens import encoding, special_by_id

    if lp is None or lp.n != n or lp.reported == 0:
        return {}, None
    import numpy as np  # loaded already: the log-probs are numpy columns

    # the columns start at the first token with a log-prob: a capture's prompt costs nothing
    start = int(np.flatnonzero(~np.isnan(lp.value) | (lp.alt_ids >= 0).any(axis=1))[0])
    ids, values = lp.alt_ids[start:], lp.alt_values[start:]
    present = ids >= 0
    table, index = np.unique(ids[present], return_inverse=True)
    enc = encoding()
    raw = [enc.decode_single_token_bytes(int(t)) for t in table.tolist()]
    specials = {str(t): sp.literal for t in table.tolist() if (sp := special_by_id(int(t))) is not None}
    cols: dict[str, Any] = {
        "lp.value": lp.value[start:].astype(np.float16),
        "lp.alt.n": present.sum(axis=1).astype(np.int64),
        "lp.alt.id": index.reshape(-1).astype(np.int64),
        "lp.alt.value": values[present].astype(np.float16),
        "lp.vocab.gap": np.diff(table.astype(np.int64), prepend=0),  # the table's ids, sorted: each as its gap from the one before
        "lp.vocab.len": np.array([len(b) for b in raw], dtype=np.int64),
        "lp.vocab.bytes": np.frombuffer(b"".join(raw), dtype=np.uint8).astype(np.int64),
    }
    return cols, {"source": lp.source, "k": lp.k, "reported": lp.reported, "start": start, "specials": specials}
