"""How long one playground edit takes, against openai-harmony doing the bare render and parse.

Run ``python -m benchmarks.bench_playground``. Each preset is timed both ways in
interleaved rounds and the median ratio printed: the playground does more per edit
(render, scan, lint, the chips' payload), so the ratio says what that costs.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def _best(fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main(rounds: int = 5) -> None:
    import openai_harmony as oh

    from harmony_viz._playground import PRESETS, PlaygroundWidget
    from harmony_viz.render import Conversation
    from harmony_viz.tokens import encoding

    ref = oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
    config = oh.RenderConversationConfig(auto_drop_analysis=False)
    w = PlaygroundWidget()
    print(f"{'preset':26} {'tokens':>6} {'edit ms':>8} {'reference ms':>12} {'ratio':>6}")
    for name, preset in PRESETS.items():
        loaded = preset.load()
        if isinstance(loaded, Conversation):
            ref_conv = oh.Conversation.from_json(loaded.to_json())
            n = len(ref.render_conversation_for_training(ref_conv, config))

            def ours() -> None:
                w.conversation = Conversation()  # force a change, so the next line does the full work
                w.conversation = loaded

            def theirs() -> None:
                ref.parse_messages_from_completion_tokens(ref.render_conversation_for_training(ref_conv, config), None)
        else:
            text = encoding().decode(loaded)
            n = len(loaded)

            def ours() -> None:
                w.text = ""
                w.text = text

            def theirs() -> None:
                # the reference refuses these streams: time its non-strict parse up to the refusal
                try:
                    ref.parse_messages_from_completion_tokens(encoding().encode(text, allowed_special="all"), None, strict=False)
                except Exception:  # noqa: BLE001 - the refusal is the expected outcome
                    pass
        ratios, mine, refs = [], [], []
        for _ in range(rounds):
            a, b = _best(ours), _best(theirs)
            mine.append(a)
            refs.append(b)
            ratios.append(a / b)
        print(f"{name:26} {n:6d} {statistics.median(mine) * 1e3:8.2f} {statistics.median(refs) * 1e3:12.3f} {statistics.median(ratios):6.2f}x")


if __name__ == "__main__":
    main()
