"""The recorder end to end on the real tiny GptOssForCausalLM (CPU, offline).

A random model writes noise, so the Harmony conversations here are forced token by token
with a logits processor (``Script``); the model, ``generate``, the streamer, the stop
tokens, the scanner, the tools and the run file are all real. openai-harmony is the
oracle for the prompt, the tool messages and the chain-of-thought rule.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import openai_harmony as oh  # noqa: E402

from harmony_viz._record import ModelLoadError, Sampling, Tool, ToolRegistry, demo_tools, generate_segment, load_model, make_tiny_model, record, record_batch  # noqa: E402
from harmony_viz.runs import load_runs  # noqa: E402
from harmony_viz.tokens import CALL, RETURN  # noqa: E402

DATE = "2026-01-15"
PROMPT = "What is 2 + 3 * 4?"


class Script:
    """A logits processor that forces the given token ids, one per step, in order."""

    def __init__(self, ids: list[int]) -> None:
        self.ids = list(ids)
        self.i = 0

    def __call__(self, input_ids, scores):  # noqa: ANN001, ANN204
        forced = torch.full_like(scores, float("-inf"))
        forced[:, self.ids[self.i]] = 0.0
        self.i += 1
        return forced


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread(torch_one_thread):
    """One torch thread for every test here (see conftest)."""


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random gpt-oss checkpoint in a temporary folder."""
    return make_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def tiny(tiny_dir: Path):  # noqa: ANN201
    """The tiny checkpoint, loaded once (CPU)."""
    return load_model(tiny_dir, device="cpu")


@pytest.fixture(scope="module")
def oracle(reference_encoding):  # noqa: ANN001, ANN201
    return reference_encoding


def oh_prompt(effort: oh.ReasoningEffort, tools: ToolRegistry | None) -> list[oh.Message]:
    system = oh.SystemContent.new().with_reasoning_effort(effort).with_conversation_start_date(DATE)
    messages = [oh.Message.from_role_and_content(oh.Role.SYSTEM, system)]
    if tools is not None:
        described = [oh.ToolDescription.new(t.name, t.description, dict(t.parameters)) for t in tools]
        messages.append(oh.Message.from_role_and_content(oh.Role.DEVELOPER, oh.DeveloperContent.new().with_function_tools(described)))
    messages.append(oh.Message.from_role_and_content(oh.Role.USER, PROMPT))
    return messages


def assistant(channel: str, text: str, recipient: str | None = None) -> oh.Message:
    msg = oh.Message.from_role_and_content(oh.Role.ASSISTANT, text).with_channel(channel)
    if recipient:
        msg = msg.with_recipient(recipient).with_content_type("<|constrain|>json")
    return msg


def tool_reply(recipient: str, content: str) -> oh.Message:
    author = oh.Author.new(oh.Role.TOOL, recipient)
    return oh.Message.from_author_and_content(author, content).with_recipient("assistant").with_channel("commentary")


def continuation(oracle, messages: list[oh.Message], *, stop: int | None = None) -> list[int]:  # noqa: ANN001
    """The tokens the model writes for ``messages`` after the prompt's ``<|start|>assistant``."""
    ids: list[int] = []
    for msg in messages:
        ids += oracle.render(msg)
    assert ids[:2] == [200006, 173781]  # <|start|>assistant, already in the prompt
    ids = ids[2:]
    if stop is not None:
        ids[-1] = stop
    return ids


def describe(oracle, ids: list[int]) -> str:  # noqa: ANN001
    return oracle.decode_utf8(ids)


ANALYSIS_1 = assistant("analysis", "Need 2+3*4. Use the calculator.")
CALL_1 = assistant("commentary", '{"expression": "2+3*4"}', recipient="functions.calculator")
ANALYSIS_2 = assistant("analysis", "The tool says 14.")
FINAL = assistant("final", "2 + 3 * 4 = 14.")


def test_the_full_tool_loop_on_the_tiny_model(tiny, oracle, tmp_path: Path) -> None:  # noqa: ANN001
    turn_1 = continuation(oracle, [ANALYSIS_1, CALL_1])
    turn_2 = continuation(oracle, [ANALYSIS_2, FINAL], stop=RETURN)
    seen: list[tuple[str, int, float]] = []
    out = tmp_path / "runs.jsonl"
    run = record(
        tiny,
        PROMPT,
        effort="high",
        tools="demo",
        date=DATE,
        temperature=0,
        logits_processors=[Script(turn_1 + turn_2)],
        on_token=lambda rid, tok, t: seen.append((rid, tok, t)),
        out=out,
        run_id="tool-loop",
    )
    # The prompt is exactly what openai-harmony renders for the same conversation.
    base = oh_prompt(oh.ReasoningEffort.HIGH, demo_tools())
    assert list(run.prompt_token_ids) == oracle.render_conversation_for_completion(oh.Conversation.from_messages(base), oh.Role.ASSISTANT)
    # Stopped on <|call|>, ran the real calculator, appended its reply as the reference renders it, resumed to <|return|>.
    result = json.dumps({"expression": "2+3*4", "result": 14})
    reply = tool_reply("functions.calculator", result)
    resumed = oracle.render_conversation_for_completion(oh.Conversation.from_messages([reply]), oh.Role.ASSISTANT)
    expected = turn_1 + resumed + turn_2
    assert list(run.completion_token_ids) == expected, describe(oracle, list(run.completion_token_ids))
    meta = run.metadata.extra
    assert meta["stop_reason"] == "return" and meta["turns"] == 2
    assert meta["generated_tokens"] == len(turn_1) + len(turn_2)
    assert meta["harness_spans"] == [[len(turn_1), len(turn_1) + len(resumed)]]
    [call] = meta["tool_calls"]
    assert (call["name"], call["recipient"], call["arguments"], call["content"], call["error"]) == (
        "calculator", "functions.calculator", '{"expression": "2+3*4"}', result, None,
    )
    # CoT rule: the analysis before the call stays in what the model sees next, exactly as
    # the reference renders the history (it drops analysis only once a final follows).
    history = oh.Conversation.from_messages([*base, ANALYSIS_1, CALL_1, reply])
    upto = len(run.prompt_token_ids) + len(turn_1) + len(resumed)
    assert [*run.prompt_token_ids, *run.completion_token_ids][:upto] == oracle.render_conversation_for_completion(history, oh.Role.ASSISTANT)
    # The reference parses the whole completion into the five messages.
    parsed = oracle.parse_messages_from_completion_tokens(list(run.completion_token_ids), oh.Role.ASSISTANT)
    assert [(m.author.role, m.channel, m.recipient) for m in parsed] == [
        (oh.Role.ASSISTANT, "analysis", None),
        (oh.Role.ASSISTANT, "commentary", "functions.calculator"),
        (oh.Role.TOOL, "commentary", "assistant"),
        (oh.Role.ASSISTANT, "analysis", None),
        (oh.Role.ASSISTANT, "final", None),
    ]
    # Every token has a time, in order; the hook saw every token as it came.
    assert len(run.token_times) == len(expected)
    assert all(a <= b for a, b in zip(run.token_times, run.token_times[1:])) and run.token_times[0] > 0
    assert [tok for _, tok, _ in seen] == expected and {rid for rid, _, _ in seen} == {"tool-loop"}
    # The run file loads with the run-records loader, unchanged.
    [loaded] = load_runs(out)
    assert loaded.id == "tool-loop" and loaded.completion_token_ids == run.completion_token_ids
    assert loaded.prompt_token_ids == run.prompt_token_ids and loaded.token_times == run.token_times
    assert loaded.metadata.reasoning_effort == "high" and loaded.metadata.model == str(tiny.name)
    assert loaded.metadata.extra["kernels"] == "float32 (unquantized)" and loaded.metadata.device == "cpu"


def test_generation_stops_on_call_and_on_return(tiny) -> None:  # noqa: ANN001
    prompt = [200006, 1428, 200008, 12194, 200007, 200006, 173781]
    for stop in (CALL, RETURN):
        script = [200005, 17196, 200008, 12194, stop, 12194, 12194]
        seg = generate_segment(tiny.model, prompt, max_new_tokens=20, sampling=Sampling(temperature=0), t0=0.0, logits_processors=[Script(script)])
        assert seg.token_ids == tuple(script[:5]) and seg.stop == {CALL: "call", RETURN: "return"}[stop]
    seg = generate_segment(tiny.model, prompt, max_new_tokens=3, sampling=Sampling(temperature=0), t0=0.0, logits_processors=[Script([12194] * 5)])
    assert seg.token_ids == (12194,) * 3 and seg.stop == "length"


def test_a_raising_tool_becomes_an_error_message_and_the_run_goes_on(tiny, oracle) -> None:  # noqa: ANN001
    # Header written the way models write it: channel first, then the recipient.
    enc_text = '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Atlantis"}<|call|>'
    turn_1 = oracle.encode(enc_text, allowed_special="all")
    turn_2 = continuation(oracle, [FINAL], stop=RETURN)
    run = record(tiny, "Weather in Atlantis?", tools="demo", date=DATE, temperature=0, logits_processors=[Script(turn_1 + turn_2)])
    [call] = run.metadata.extra["tool_calls"]
    assert call["recipient"] == "functions.get_weather" and call["error"].startswith("ValueError: no weather for 'Atlantis'")
    reply = tool_reply("functions.get_weather", json.dumps({"error": call["error"]}))
    resumed = oracle.render_conversation_for_completion(oh.Conversation.from_messages([reply]), oh.Role.ASSISTANT)
    assert list(run.completion_token_ids) == turn_1 + resumed + turn_2
    assert run.metadata.extra["stop_reason"] == "return"


def test_an_unknown_tool_is_answered_with_the_known_ones(tiny, oracle) -> None:  # noqa: ANN001
    calls = continuation(oracle, [assistant("commentary", "{}", recipient="functions.get_time")])
    run = record(tiny, PROMPT, tools="demo", date=DATE, temperature=0, max_turns=2, logits_processors=[Script(calls + continuation(oracle, [FINAL], stop=RETURN))])
    [call] = run.metadata.extra["tool_calls"]
    assert call["error"] == "unknown tool 'get_time'; known tools: calculator, get_weather"
    assert run.metadata.extra["stop_reason"] == "return"


def test_the_turn_limit_stops_a_model_that_keeps_calling(tiny, oracle) -> None:  # noqa: ANN001
    one_call = continuation(oracle, [CALL_1])
    run = record(tiny, PROMPT, tools="demo", date=DATE, temperature=0, max_turns=2, logits_processors=[Script(one_call * 3)])
    meta = run.metadata.extra
    assert meta["stop_reason"] == "turn_limit" and meta["turns"] == 2
    assert len(meta["tool_calls"]) == 1  # the second call is left unanswered: no turn left to read the answer
    assert run.completion_token_ids[-1] == CALL


def test_the_token_limit_counts_model_tokens_over_all_turns(tiny, oracle) -> None:  # noqa: ANN001
    one_call = continuation(oracle, [CALL_1])
    budget = len(one_call) + 4
    run = record(tiny, PROMPT, tools="demo", date=DATE, temperature=0, max_new_tokens=budget, logits_processors=[Script(one_call * 3)])
    meta = run.metadata.extra
    assert meta["stop_reason"] == "token_limit" and meta["generated_tokens"] == budget
    start, end = meta["harness_spans"][0]
    assert len(run.completion_token_ids) == budget + (end - start)


def test_a_call_without_recipient_ends_the_run_with_the_reason(tiny, oracle) -> None:  # noqa: ANN001
    ids = oracle.encode("<|channel|>commentary<|message|>{}<|call|>", allowed_special="all")
    run = record(tiny, PROMPT, tools="demo", date=DATE, temperature=0, logits_processors=[Script(ids)])
    assert run.metadata.extra["stop_reason"] == "malformed_call"
    assert run.metadata.extra["problem"] == f"the message ending in <|call|> at token {len(ids) - 1} has no recipient, so no tool can answer it"


def test_logprobs_are_the_models_own(tiny) -> None:  # noqa: ANN001
    run = record(tiny, PROMPT, date=DATE, temperature=0, max_new_tokens=4, top_logprobs=3)
    ids = [*run.prompt_token_ids, *run.completion_token_ids]
    with torch.no_grad():
        logits = tiny.model(torch.tensor([ids])).logits[0].float().log_softmax(-1)
    n = len(run.prompt_token_ids)
    top = run.metadata.extra["top_logprobs"]
    for i, token in enumerate(run.completion_token_ids):
        row = logits[n + i - 1]
        assert run.logprobs[i] == pytest.approx(float(row[token]), abs=1e-3)
        assert [t for t, _ in top[i]] == row.topk(3).indices.tolist()
        assert token == top[i][0][0]  # greedy picks the top one


def test_batches_append_each_run_as_it_ends(tiny, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    out = tmp_path / "batch.jsonl"
    runs = record_batch(tiny, ["one", "two"], efforts=["low", "high"], out=out, max_new_tokens=2, temperature=0, date=DATE)
    bar = capsys.readouterr().err
    assert "recording: 100%" in bar and "4/4" in bar
    loaded = load_runs(out)
    assert [r.id for r in loaded] == [r.id for r in runs]
    assert [(r.metadata.extra["prompt"], r.metadata.reasoning_effort) for r in loaded] == [("one", "low"), ("one", "high"), ("two", "low"), ("two", "high")]
    assert all("Reasoning: " + r.metadata.reasoning_effort in _text(r) for r in loaded)

    # Interrupted during the third run: the two finished runs are already on disk.
    interrupted = tmp_path / "interrupted.jsonl"
    count = {"tokens": 0}

    def stop_in_third_run(run_id: str, token: int, t: float) -> None:
        count["tokens"] += 1
        if count["tokens"] == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        record_batch(tiny, ["one", "two"], efforts=["low", "high"], out=interrupted, max_new_tokens=2, temperature=0, on_token=stop_in_third_run, progress=False)
    assert len(load_runs(interrupted)) == 2


def _text(run) -> str:  # noqa: ANN001
    from harmony_viz.tokens import encoding

    return encoding().decode(list(run.prompt_token_ids))


def test_bad_models_are_named_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match=r"^no model folder '\./nowhere/model'; create one with `harmony-viz make-tiny-model \./nowhere/model`"):
        load_model("./nowhere/model")
    import transformers

    transformers.LlamaConfig(vocab_size=100, hidden_size=8, intermediate_size=8, num_hidden_layers=1, num_attention_heads=1).save_pretrained(tmp_path / "llama")
    with pytest.raises(ModelLoadError, match=r"is a 'llama' checkpoint, not gpt-oss \(model_type 'gpt_oss'\)"):
        load_model(tmp_path / "llama")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_a_model_that_needs_a_gpu_says_so(tmp_path: Path) -> None:
    import transformers

    # gpt-oss-20b's shapes, no weights
    transformers.GptOssConfig(num_hidden_layers=24, num_local_experts=32).save_pretrained(tmp_path / "big")
    with pytest.raises(ModelLoadError, match=r"has about 21B parameters and needs a CUDA GPU, but none is visible"):
        load_model(tmp_path / "big")


def test_a_custom_tool_is_offered_to_the_model_and_called(tiny, oracle) -> None:  # noqa: ANN001
    calls: list[dict] = []

    def lookup(key: str) -> str:
        calls.append({"key": key})
        return f"value of {key}"

    tool = Tool("lookup", "Look a key up.", {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}, lookup)
    script = continuation(oracle, [assistant("commentary", '{"key": "k1"}', recipient="functions.lookup")]) + continuation(oracle, [FINAL], stop=RETURN)
    run = record(tiny, PROMPT, tools=[tool], date=DATE, temperature=0, logits_processors=[Script(script)])
    assert calls == [{"key": "k1"}]
    assert "type lookup = (_: {" in _text(run)
    assert run.metadata.extra["tool_calls"][0]["content"] == "value of k1"


class Follower:
    """The live-view interface a widget offers: start_live(prompt, run_id) and append_tokens(ids, times)."""

    def __init__(self) -> None:
        self.prompt: list[int] = []
        self.run_id = ""
        self.batches: list[tuple[list[int], list[float]]] = []

    def start_live(self, prompt_ids: list[int], *, run_id: str) -> None:
        self.prompt, self.run_id = prompt_ids, run_id

    def append_tokens(self, token_ids: list[int], times: list[float]) -> None:
        self.batches.append((token_ids, times))


def test_a_widget_can_follow_a_recording_live(tiny, oracle) -> None:  # noqa: ANN001
    script = continuation(oracle, [ANALYSIS_1, CALL_1]) + continuation(oracle, [FINAL], stop=RETURN)
    follower = Follower()
    run = record(tiny, PROMPT, tools="demo", date=DATE, temperature=0, logits_processors=[Script(script)], live=follower, run_id="live")
    assert follower.run_id == "live" and follower.prompt == list(run.prompt_token_ids)
    assert [t for ids, _ in follower.batches for t in ids] == list(run.completion_token_ids)
    assert [t for _, times in follower.batches for t in times] == pytest.approx(list(run.token_times), abs=1e-5)
    with pytest.raises(TypeError, match=r"live=object cannot follow a recording: it has no append_tokens\(token_ids, times\) method"):
        record(tiny, PROMPT, live=object(), max_new_tokens=1)


def test_the_overhead_benchmark_runs_both_sides_to_the_same_length(tiny) -> None:  # noqa: ANN001
    from benchmarks.bench_record import recording_overhead

    result = recording_overhead(tiny, tokens=3, repeats=1)
    assert result.tokens == 3 and result.bare_seconds > 0 and result.record_seconds > 0
    assert result.lines()[-1].startswith("recording overhead ")


def test_sampling_with_a_seed_is_reproducible(tiny) -> None:  # noqa: ANN001
    runs = [record(tiny, PROMPT, date=DATE, temperature=1.0, top_p=0.9, max_new_tokens=6, seed=s) for s in (3, 3, 4)]
    assert runs[0].completion_token_ids == runs[1].completion_token_ids
    assert runs[0].completion_token_ids != runs[2].completion_token_ids
    assert runs[0].metadata.sampling == {"temperature": 1.0, "top_p": 0.9, "top_logprobs": 0, "max_new_tokens": 6, "max_turns": 8}


def test_the_replay_widget_follows_a_recording_live(tiny, oracle) -> None:  # noqa: ANN001
    """The real ReplayWidget as ``live=``: it ends showing the whole recorded stream, at its last step."""
    from harmony_viz import replay
    from harmony_viz.trace import Trace

    script = continuation(oracle, [ANALYSIS_1, CALL_1]) + continuation(oracle, [FINAL], stop=RETURN)
    widget = replay([])
    run = record(tiny, PROMPT, tools="demo", date=DATE, temperature=0, logits_processors=[Script(script)], live=widget, run_id="live")
    stream = list(run.prompt_token_ids) + list(run.completion_token_ids)
    assert list(widget.trace.tokens) == stream
    assert widget.step == widget.n_steps - 1
    expected = Trace.build(stream, "token")
    assert [(m.role, m.channel, m.recipient) for m in widget.trace.messages] == [(m.role, m.channel, m.recipient) for m in expected.messages]
    assert widget.get_state()["_columns"].startswith(expected.to_payload()[1])  # the trace's columns, then the API view's
