// The playground's synced traits as they arrive from Python: one interface per group.
import type { TraitModel } from "../shared/model";

/** A message in openai-harmony's JSON shape (what `Message.to_dict()` writes). */
export interface MessageDict {
  role: string;
  name: string | null;
  content: ContentPart[];
  channel?: string;
  recipient?: string;
  content_type?: string;
}

export type ContentPart = Record<string, unknown> & { type: string };

/** A message read back from the stream, with its token span. */
export interface StreamMessage {
  index: number;
  role: string;
  name: string | null;
  channel: string | null;
  recipient: string | null;
  content_type: string | null;
  kind: string;
  terminator: string;
  start: number;
  header_end: number;
  end: number;
}

export interface StreamPayload {
  pieces: string[];
  /** per token, the first token of the character it helps spell (itself when whole) */
  groups: number[];
  messages: StreamMessage[];
}

export interface DiagnosticDict {
  code: string;
  severity: "error" | "warning" | "info";
  message: string;
  start: number;
  end: number;
  source: "scanner" | "lint";
}

export interface DiffOp {
  tag: "equal" | "replace" | "delete" | "insert";
  ref: [number, number];
  model: [number, number];
  reference_text: string;
  model_text: string;
}

export interface TemplateDifference {
  code: string;
  message: string;
  ours: string;
  template: string;
  ours_span: [number, number] | null;
  template_span: [number, number] | null;
}

export interface DiffPayload {
  /** model: the model's recipient layout; template: a chat template's render; prompt: the prompt a server rendered (the other side is in `model`, its spans in `template_span`) */
  layout?: "model" | "template" | "prompt";
  origin?: string;
  differences?: TemplateDifference[];
  reference?: number[];
  model?: number[];
  reference_pieces?: string[];
  model_pieces?: string[];
  ops?: DiffOp[];
  error?: string;
}

export interface ControlToken { literal: string; kind: string; meaning: string }

export interface PlaygroundTraits {
  tokens: number[];
  text: string;
  messages: MessageDict[];
  diagnostics: DiagnosticDict[];
  origin: "messages" | "text" | "tokens";
  preset: string;
  presets: Array<{ name: string; title: string; description: string }>;
  show_diff: boolean;
  diff_layout: "model" | "template";
  chat_template_origin: string;
  error: string;
  replay_widget: string | null;
  _stream: StreamPayload;
  _diff: DiffPayload;
  _controls: Record<string, ControlToken>;
}

export interface PlaygroundModel extends TraitModel<PlaygroundTraits> {
  send(content: unknown): void;
  widget_manager?: {
    get_model(id: string): Promise<unknown>;
    create_view?(model: unknown): Promise<{ el: HTMLElement; remove?(): void }>;
  };
}
