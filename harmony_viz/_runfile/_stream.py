"""A run as one token stream: prompt then completion, or its text encoded."""

from __future__ import annotations

from harmony_viz._runfile._model import Run


def run_stream(run: Run) -> tuple[list[int], int | None, str | None]:
    """(token ids, prompt length, scanner role): the run's whole stream, prompt then completion.

    The prompt length is None for a text run (a whole transcript, no split). A completion
    with no prompt that does not open with ``<|start|>`` follows ``<|start|>assistant``: its
    role is ``"assistant"``.
    """
    from harmony_viz.tokens import START, encode

    if run.text is not None:
        ids = encode(run.text)
        prompt = None
    else:
        ids = [*run.prompt_token_ids, *run.completion_token_ids]
        prompt = len(run.prompt_token_ids)
    role = "assistant" if not prompt and ids and ids[0] != START else None
    return ids, prompt, role
