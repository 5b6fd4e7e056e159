// The TypeScript declarations of every data type of the ctxguard-core JS API.
// wasm-bindgen puts this file into the package's .d.ts (core/src/wasm.rs
// includes it at build time); the functions and classes are declared from
// their Rust signatures, whose parameter types name the types below.
/** Any JSON value; `undefined` object properties count as absent. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue | undefined };

/** A `{type: "text"}` part of a multimodal message. */
export type TextPart = { type: "text"; text: string; [key: string]: JsonValue | undefined };
/** An image part, counted as 170 tokens. */
export type ImagePart = { type: "image_url"; image_url?: JsonValue; [key: string]: JsonValue | undefined };
/** One element of a content list: a text part, an image part, a bare string, or some other object (counted as nothing). */
export type ContentPart = TextPart | ImagePart | string | JsonObject;
/** The `function` of an OpenAI-shaped tool call; `arguments` is a JSON string or an object. */
export type FunctionCall = { name: string; arguments: string | JsonObject; [key: string]: JsonValue | undefined };
/** A tool call: OpenAI's `{id, type, function}` or LangChain's `{name, args, id}`. */
export type ToolCall =
  | { id?: string; type?: string; function: FunctionCall; [key: string]: JsonValue | undefined }
  | { id?: string; name: string; args?: JsonObject | string; [key: string]: JsonValue | undefined };
/** A chat message (OpenAI or LangChain shape); unknown fields are kept as they are. */
export type Message = {
  role: string;
  content?: string | ContentPart[] | null;
  name?: string | null;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string | null;
  additional_kwargs?: JsonObject | null;
  [key: string]: JsonValue | undefined;
};

/** Per-model overrides; a `context_window` replaces the built-in model table. */
export interface ModelConfig { context_window?: number | null; max_output_tokens?: number | null }
/** A model's derived budget (SPEC §2). */
export interface ContextLimits {
  context_window: number;
  reserved_output_tokens: number;
  available_tokens: number;
  trigger_limit: number;
  target_limit: number;
}
/** The input tokens a provider reported for the messages of its last call. */
export interface ProviderBaseline { input_tokens: number; messages: Message[] }
/** What throttling needs of a snapshot (a whole `ContextMetricsSnapshot` fits). */
export interface EmitState { remaining_percent: number; is_over_trigger: boolean }

/** How much of a tool output survives a cut. */
export interface TruncationPolicy { kind: "tokens" | "bytes"; limit: number }
/** A structured tool result before rendering. */
export interface RawToolOutput {
  text: string;
  tool_name?: string | null;
  exit_code?: number | null;
  wall_time?: number | null;
}

/** A protection trace record, `context_protection.<operation>`. */
export interface ProtectionTrace {
  name: string;
  attributes: {
    operation: string;
    status: string;
    before_tokens?: number;
    after_tokens?: number;
    tokens_saved?: number;
    [key: string]: JsonValue | undefined;
  };
}
/** What the preview did to one attachment. */
export interface SegmentReport {
  message_index: number;
  attachment_id: string;
  name: string;
  mime_type: string | null;
  chars: number;
  tokens: number;
  allocation: number;
  truncated: boolean;
}
/** The result of `previewAttachments`. */
export interface AttachmentPreview { messages: Message[]; traces: ProtectionTrace[]; segments: SegmentReport[] }
/** Inputs of `buildAttachmentHeader`. */
export interface HeaderArgs {
  attachment_id: number;
  filename: string;
  mime_type?: string | null;
  file_size: number;
  sandbox_path?: string | null;
  is_image?: boolean | null;
}

/** An attachment's extracted text, as the host fetched it. */
export interface AttachmentDocument { text: string; name: string; mime_type: string; source_truncated?: boolean | null }
/** A page of text (SPEC §7). */
export interface ReadSuccess {
  status: "success";
  attachment_id: number;
  name: string;
  mime_type: string;
  offset: number;
  chars_read: number;
  total_chars: number;
  next_offset: number | null;
  has_more: boolean;
  source_truncated: boolean;
  content: string;
  warning?: string;
}
/** The attachment has no text. */
export interface ReadEmpty { status: "empty"; attachment_id: number; message: string }
/** The attachment could not be read. */
export interface ReadError { status: "error"; message: string }
/** Too many calls this turn. */
export interface ReadRejected { status: "rejected"; message: string }
/** The `read_attachment` tool result. */
export type ReadResult = ReadSuccess | ReadEmpty | ReadError | ReadRejected;

/** One attachment of a user message, with the fields Wegent's backend composes its block from. */
export interface Attachment {
  /** Attachment id, as `read_attachment` takes it. */
  attachment_id: number;
  /** The uploaded file name (any path; only its last part is shown). */
  filename: string;
  mime_type?: string | null;
  /** Size in bytes; null counts as 0. */
  file_size?: number | null;
  /** The text the backend's parser extracted; null or empty: nothing to inline. */
  extracted_text?: string | null;
  /** Whether parsing stopped before the end of the file (default false). */
  is_truncated?: boolean | null;
  /** Whether the attachment is an image (default false). */
  is_image?: boolean | null;
  /** The image bytes in base64, for images sent to the model as image blocks. */
  image_base64?: string | null;
  /** Where the file sits in the agent's sandbox, when it was copied there. */
  sandbox_path?: string | null;
}
/** How `composeAttachmentBlock` composes, and the user message it composes. */
export interface ComposeOptions {
  /** Inline extracted text and images (default true); false: headers only. */
  inline_attachment_content?: boolean | null;
  /** Cap on each inlined text, in code points (default 32000); 0 or less: no cap. */
  inject_max_chars?: number | null;
  /** The user's message text (default ""). */
  message?: string | null;
}
/** A text block of a composed user message. */
export interface InputTextBlock { type: "input_text"; text: string }
/** An image block of a composed user message: `data:MIME;base64,DATA`. */
export interface InputImageBlock { type: "input_image"; image_url: string }
/** One block of a composed user message. */
export type InputBlock = InputTextBlock | InputImageBlock;
/** The user message as the backend sends it: the message itself when no attachment adds anything, else blocks. */
export type ComposedMessage = string | InputBlock[];
/** Who produced a stored turn. */
export type TurnRole = "USER" | "ASSISTANT";
/** The status of a stored turn, as the backend records its subtasks. */
export type TurnStatus = "PENDING" | "RUNNING" | "COMPLETED" | "FAILED" | "CANCELLED" | "DELETE" | "PENDING_CONFIRMATION";
/** One stored turn of a conversation, oldest first in a list (the reference backend's subtask). */
export interface Turn {
  role: TurnRole;
  status: TurnStatus;
  /** What an assistant turn stored: `{value?, messages_chain?}` (a compacted turn's chain holds the retained users, the summary and the reply). */
  result?: { value?: JsonValue; messages_chain?: Message[]; [key: string]: unknown } | JsonValue | null;
  /** What a user turn said. */
  prompt?: string | null;
}
/** Tunables of a `ContextGuard`; every field is optional and defaults to the production configuration. */
export interface GuardOptions {
  /** Where compaction triggers, as `contextConfig`'s `autoCompactTokenLimit`. */
  auto_compact_token_limit?: number | null;
  /** Policy of the source pass for tool outputs (default `{kind: "tokens", limit: 15000}`). */
  tool_output_policy?: TruncationPolicy | null;
  /** Per-tool policies by tool name, overriding `tool_output_policy`. */
  tool_policy_overrides?: { [toolName: string]: TruncationPolicy } | null;
  /** Whether over-trigger histories are summarised (default true; false: straight to the emergency pass). */
  summary_enabled?: boolean | null;
  /** Most tokens of recent user messages a replacement keeps, before the `target / 2` cap (default 20000). */
  recent_user_token_limit?: number | null;
  /** Most summary retries after context-too-long errors (default 3). */
  max_overflow_retries?: number | null;
  /** Interval between `in_progress` heartbeats, in milliseconds (default 15000). */
  heartbeat_interval_ms?: number | null;
  /**
   * Count as the metrics do instead of reproducing the reference's guard (default false): tool calls
   * count in the usage, the trim and the emergency pass, and retained users are measured without a
   * reply priming each and cut so that they fit their limit.
   */
  strict_counting?: boolean | null;
}
/** A `summary_compact` status event (SPEC §4): it always carries the `context_compaction` record. */
export type CompactionStatusEvent = StatusEvent & { phase: "summary_compact"; context_compaction: ContextCompaction };
/** A completed summary compaction: what replaced the history. */
export interface Replacement {
  /** The summary body as the summariser returned it, stripped. */
  summary_text: string;
  /** The `id` of the summary message. */
  summary_message_id: string;
  /** Messages trimmed or shed from the summariser's input. */
  removed_history_items: number;
  /** The `completed` record, as also sent in `events`. */
  record: ContextCompaction;
}
/** A history the model may be called with, and what the guard did to it. */
export interface GuardReady {
  /** `fallback` when the compaction did not happen (the events end with a `fallback` event), else `proceed`. */
  kind: "proceed" | "fallback";
  /** The governed history, to send and to store (it replaces the input). */
  messages: Message[];
  /** `countMessages(messages)`. */
  used_tokens: number;
  /** Metrics of `messages` (send with phase `after_compaction` when `changed`). */
  metrics: ContextMetricsSnapshot;
  /** Whether any message differs from the input. */
  changed: boolean;
  /** Set when a summary compaction completed: `messages` starts from a new checkpoint. */
  replacement: Replacement | null;
  /** Lifecycle events to emit, in order: `completed`, or `fallback` (after `started` when it never asked for a summary). */
  events: CompactionStatusEvent[];
  /** Protection traces of this step. */
  traces: ProtectionTrace[];
}
/** Call the model with `messages`. */
export type GuardProceed = GuardReady & { kind: "proceed" };
/** Compaction did not happen (the events end with `fallback`): call the model with `messages`, the uncompacted history after the emergency pass. */
export type GuardFallback = GuardReady & { kind: "fallback" };
/** Usage reached the trigger: call the summariser with `request.messages()` and report back to `request`. */
export interface GuardNeedSummary { kind: "need_summary"; request: SummaryRequest }
/** The result of `ContextGuard.beforeModelCall`. */
export type GuardDecision = GuardProceed | GuardFallback | GuardNeedSummary;
/** Context too long: call the summariser again with the shorter `request.messages()`. */
export interface GuardRetry { kind: "retry"; request: SummaryRequest }
/** The result of `SummaryRequest.onError`. */
export type AfterSummaryError = GuardRetry | GuardFallback;
/** How the summariser call failed: its error text, or an object (an `Error` fits) with the HTTP status when there was one. */
export type SummaryFailure = string | { message: string; status?: number | null };
/** What the summariser replied: its text, or its content parts (text and `thinking` parts are read). */
export type SummaryReply = string | ContentPart[];
/** Why a compaction fell back. */
export type FailureReason = "summary_compact_failed" | "summary_compact_not_applicable";
