"""The playground widget: message cards on one side, the token stream on the other, Python in between."""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets
from ipywidgets import widget_serialization

from harmony_viz._playground._convert import check_tokens, coerce_conversation, conversation_from_scan, decode_tokens, parse_ids_text, render
from harmony_viz._playground._diff import RenderDiff, render_diff
from harmony_viz._playground._presets import PRESETS
from harmony_viz._playground._presets import preset as find_preset
from harmony_viz._playground._stream import CONTROL_TOKENS, pieces, read_stream, stream_json
from harmony_viz._static import asset
from harmony_viz.inputs import read
from harmony_viz.render import Conversation, RenderError
from harmony_viz.tokens import encode


class PlaygroundWidget(anywidget.AnyWidget):
    """Edit a conversation or a raw stream; tokens, parse and diagnostics follow, computed in Python.

    ``tokens`` (ids) and ``conversation`` can be read and set; ``diagnostics`` is read-only.
    A stream given as text or ids is kept exactly as given, and the messages come from
    scanning it; only an edit to a message renders the stream anew.
    """

    _esm = asset("playground.js")
    _css = asset("playground.css")

    tokens = traitlets.List(traitlets.Int(), help="the stream as token ids").tag(sync=True)
    text = traitlets.Unicode("", help="the stream as Harmony text, control tokens spelled out").tag(sync=True)
    messages = traitlets.List(traitlets.Dict(), help="the conversation as message dicts (openai-harmony's JSON)").tag(sync=True)
    diagnostics = traitlets.List(traitlets.Dict(), read_only=True, help="scanner and lint findings, spans in tokens").tag(sync=True)
    origin = traitlets.Unicode("messages", help="where the stream came from: 'messages' (rendered), 'text' or 'tokens' (kept as given)").tag(sync=True)
    preset = traitlets.Unicode("", help="the preset loaded last ('' after any edit)").tag(sync=True)
    presets = traitlets.List(traitlets.Dict(), help="the presets on offer").tag(sync=True)
    show_diff = traitlets.Bool(False, help="show the reference vs model layout diff").tag(sync=True)
    diff_layout = traitlets.Enum(("model", "template"), "model",
                                 help="what the diff compares the reference with: the model's layout or a chat template's render").tag(sync=True)
    chat_template_origin = traitlets.Unicode("", help="where the chat template for the 'template' layout was read from").tag(sync=True)
    error = traitlets.Unicode("", help="the last problem with an edit; the previous stream stays").tag(sync=True)
    # typed as any widget: naming ReplayWidget would import the replay (numpy, the trace) at the first playground()
    replay_widget = traitlets.Instance(anywidget.AnyWidget, allow_none=True,
                                       help="the replay (a ReplayWidget) opened by 'replay this'").tag(sync=True, **widget_serialization)
    _stream = traitlets.Dict().tag(sync=True)
    _diff = traitlets.Dict().tag(sync=True)
    _controls = traitlets.Dict().tag(sync=True)

    def __init__(self, source: Any = None, *, preset: str | None = None, chat_template: Any = None, **kwargs: Any) -> None:
        self._busy = False
        self.source = ""
        self._conversation = Conversation()
        self._chat_template = _chat_template(chat_template)
        if self._chat_template is not None:
            kwargs.setdefault("chat_template_origin", self._chat_template.origin)
        super().__init__(presets=[p.to_json() for p in PRESETS.values()], _controls=CONTROL_TOKENS, **kwargs)
        self.on_msg(self._on_custom)
        if preset is not None or source is None:
            self.load_preset(preset or next(iter(PRESETS)))
        else:
            found = read(source)
            self.source = found.said  # what was read, as what
            if found.kind in ("conversation", "chat"):
                self._take_conversation(found.conversation())
            elif found.kind == "text":
                self._take_stream(encode(found.value), "text", text=found.value)
            else:
                self._take_stream(list(found.stream().ids), "tokens")

    # ------------------------------------------------------------ Python API

    @property
    def conversation(self) -> Conversation:
        """The conversation on show: as edited, or as read from a stream given as text or ids."""
        return self._conversation

    @conversation.setter
    def conversation(self, value: Any) -> None:
        self._take_conversation(coerce_conversation(value))

    def load_preset(self, name: str) -> None:
        """Start again from preset ``name`` (see ``PRESETS``); unknown names raise KeyError listing the known ones."""
        loaded = find_preset(name).load()
        if isinstance(loaded, Conversation):
            self._take_conversation(loaded)
        else:
            self._take_stream(loaded, "tokens")
        self._set(preset=name)

    def render_diff(self) -> RenderDiff:
        """The conversation in openai-harmony's layout and in the model's, with the token diff."""
        return render_diff(self._conversation)

    def open_replay(self) -> Any:
        """Open the current stream in the replay widget (also shown inside the playground); returns it."""
        from harmony_viz._replay import replay

        if not self.tokens:
            raise ValueError("the stream is empty: add a message or type some Harmony text before replaying it")
        self.replay_widget = replay(list(self.tokens), step=-1)
        return self.replay_widget

    # ------------------------------------------------------------ the two sides

    def _set(self, **values: Any) -> None:
        """Set traits without their observers re-deriving the other side."""
        self._busy = True
        try:
            with self.hold_sync():
                for name, value in values.items():
                    self.set_trait(name, value)
        finally:
            self._busy = False

    def _take_conversation(self, conv: Conversation) -> None:
        tokens = render(conv)  # raises RenderError before anything changes
        self._conversation = conv
        self._show(tokens, "messages", text=decode_tokens(tokens), messages=[m.to_dict() for m in conv.messages])

    def _take_stream(self, tokens: list[int], origin: str, text: str | None = None) -> None:
        self._show(tokens, origin, text=decode_tokens(tokens) if text is None else text)

    def _show(self, tokens: list[int], origin: str, *, text: str, messages: list[dict[str, Any]] | None = None) -> None:
        view = read_stream(tokens)
        if messages is None:
            self._conversation = conversation_from_scan(view.result)
            messages = [m.to_dict() for m in self._conversation.messages]
        values: dict[str, Any] = {"tokens": tokens, "text": text, "messages": messages, "origin": origin,
                                  "diagnostics": view.diagnostics_json(), "_stream": stream_json(tokens, view),
                                  "error": "", "preset": ""}
        if self.show_diff:
            values["_diff"] = self._diff_json()
        self._set(**values)

    def _diff_json(self) -> dict[str, Any]:
        if self.diff_layout == "template":
            from harmony_viz._playground._template_diff import template_diff_json

            return template_diff_json(self._conversation, self._chat_template)
        try:
            diff = self.render_diff()
        except RenderError as exc:
            return {"error": str(exc)}
        # The browser has no vocabulary: send each side's token texts along.
        return {**diff.to_json(), "reference_pieces": pieces(diff.reference)[0], "model_pieces": pieces(diff.model)[0]}

    # ------------------------------------------------------------ observers: edits from either side

    @traitlets.validate("tokens")
    def _check_tokens(self, proposal: dict[str, Any]) -> list[int]:
        try:
            return check_tokens(proposal["value"])
        except ValueError as exc:
            raise traitlets.TraitError(str(exc)) from None

    @traitlets.observe("tokens")
    def _tokens_set(self, change: dict[str, Any]) -> None:
        if not self._busy:
            self._take_stream(list(change["new"]), "tokens")

    @traitlets.observe("text")
    def _text_set(self, change: dict[str, Any]) -> None:
        if not self._busy:
            self._take_stream(encode(change["new"]), "text", text=change["new"])

    @traitlets.observe("messages")
    def _messages_set(self, change: dict[str, Any]) -> None:
        if self._busy:
            return
        try:
            self._take_conversation(coerce_conversation(change["new"]))
        except RenderError as exc:
            # Keep what was typed on show; the stream stays as it was until the edit is valid.
            self.error = f"{exc}; the stream still shows the last valid conversation"

    @traitlets.observe("preset")
    def _preset_set(self, change: dict[str, Any]) -> None:
        if not self._busy and change["new"]:
            self.load_preset(change["new"])

    @traitlets.observe("show_diff")
    def _diff_toggled(self, change: dict[str, Any]) -> None:
        self._diff = self._diff_json() if change["new"] else {}

    @traitlets.observe("diff_layout")
    def _layout_set(self, change: dict[str, Any]) -> None:
        if self.show_diff:
            self._diff = self._diff_json()

    def set_state(self, sync_data: dict[str, Any]) -> None:
        """Apply an edit from the browser; a bad one is reported in ``error``, never raised into the kernel."""
        sync_data = {k: v for k, v in sync_data.items() if k not in _PYTHON_ONLY}
        if "tokens" in sync_data:
            try:
                raw = sync_data["tokens"]
                sync_data["tokens"] = parse_ids_text(raw) if isinstance(raw, str) else check_tokens(raw)
            except ValueError as exc:
                del sync_data["tokens"]
                self.error = str(exc)
                self.send_state("tokens")  # the browser still holds the rejected list
        if "preset" in sync_data and sync_data["preset"] and sync_data["preset"] not in PRESETS:
            self.error = f"no preset {sync_data.pop('preset')!r}; known presets: {', '.join(PRESETS)}"
        if sync_data:
            super().set_state(sync_data)

    def _on_custom(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if content.get("type") == "replay":
            try:
                self.open_replay()
            except ValueError as exc:
                self.error = str(exc)
        elif content.get("type") == "close-replay":
            self.replay_widget = None


# Traits only Python writes: a browser update to them is dropped.
_PYTHON_ONLY = frozenset({"diagnostics", "origin", "presets", "replay_widget", "_stream", "_diff", "_controls", "chat_template_origin"})


def _chat_template(value: Any) -> Any:
    """A ChatTemplate from a path (file or model folder), a ChatTemplate, or HARMONY_VIZ_CHAT_TEMPLATE when None."""
    from harmony_viz.templates import ChatTemplate, load_template, template_from_env

    if value is None:
        return template_from_env()
    if isinstance(value, ChatTemplate):
        return value
    return load_template(value)


def playground(conversation_or_text: Any = None, *, preset: str | None = None, chat_template: Any = None) -> PlaygroundWidget:
    """A playground: edit messages or the raw stream, and see tokens, parse and diagnostics follow.

    ``conversation_or_text`` is anything :func:`harmony_viz.inputs.read` reads: a path (a
    string naming a file is read as that file), a Conversation (or its JSON, or a list of
    messages), a Chat Completions request, Harmony text, token ids or a run; nothing (or
    ``preset=``) starts from a preset; ``w.source`` says what was read. Text and ids are kept
    exactly as given; the messages come from scanning them. ``chat_template``
    (a .jinja file, a model folder or a ChatTemplate; default ``HARMONY_VIZ_CHAT_TEMPLATE``)
    enables the render diff's "chat template" layout (``diff_layout="template"``).

    >>> w = playground("<|start|>user<|message|>Hi<|end|>")  # doctest: +SKIP
    >>> w.tokens  # doctest: +SKIP
    [200006, 1428, 200008, 12194, 200007]
    """
    return PlaygroundWidget(conversation_or_text, preset=preset, chat_template=chat_template)
