// Types of ctxguard-toolbar: the two custom elements, their state and events.
// scripts/build-packages.sh puts core's wire types (core/src/protocol/wire.d.ts:
// StatusEvent, ContextMetricsSnapshot, ContextState, …) before these lines.
// `import "ctxguard-toolbar"` defines the elements; these declarations add
// them to HTMLElementTagNameMap, the DOM's event maps, React 19's
// JSX.IntrinsicElements (in the "react" module) and the global one (other
// JSX runtimes). Nothing here needs React's own types, so hosts without React
// type-check too.

/** Resolves once both elements are defined. */
export declare const ready: Promise<void>;

/** What became of one pushed event. */
export type EventOutcome = "applied" | "stale" | "malformed" | "unknown";

/** Where a toolbar's events come from. */
export type FeedSource = "sse" | "host";

/** The connection as the toolbar shows it (`host`: fed by the page). */
export type ConnectionState = "connecting" | "live" | "reconnecting" | "offline" | "host";

/** How a turn ended, as `turnEnded` is told (Wegent: `chat:done`, `chat:error`, `chat:cancelled`). */
export type TurnEnd = "done" | "error" | "cancelled";

/** The compaction a turn's end interrupted (its record in `compaction` still says it runs). */
export interface Interruption {
  created_at: string;
  reason: TurnEnd | null;
}

/** The detail of `ctxguard-ignored`: an event the toolbar did not apply, and why. */
export interface IgnoredEvent {
  outcome: "stale" | "malformed" | "unknown";
  /** Dotted path of the field to blame (`id`, `phase`, `context_metrics.used_input_tokens`, …), when one is. */
  field: string | null;
  /** What was wrong, for a person. */
  reason: string;
}

/** One compaction that ended. */
export interface HistoryEntry {
  /** The compaction's `created_at`: its key. */
  created_at: string;
  status: "completed" | "fallback";
  before_tokens: number;
  after_tokens: number | null;
  saved_tokens: number | null;
  /** Why it fell back (fallback only; may be empty). */
  reason: string | null;
  /** Local Unix ms its end was seen; null when a /context snapshot reported it. */
  ended_ms: number | null;
  /** How long it ran, from the first started/in_progress seen to the end. */
  duration_ms: number | null;
}

/** Turns left before compaction. */
export interface Forecast {
  /** ceil((trigger_limit − used_input_tokens) / tokens_per_turn); 0: compaction due. */
  turns: number;
  /** Mean growth per turn over the last five turns. */
  tokens_per_turn: number;
}

/** Model and per-message attachment budget the preview should use. */
export interface AttachmentBudget {
  model: string;
  limit_tokens: number;
}

/** `<ctxguard-toolbar>`'s `state`, and the detail of `ctxguard-change`. */
export interface ToolbarState {
  session: string;
  connection: ConnectionState;
  /** Shown from this browser's saved copy, not confirmed yet. */
  restored: boolean;
  last_event_id: number | null;
  phase: Phase | null;
  metrics: ContextMetricsSnapshot | null;
  compaction: ContextCompaction | null;
  /** Set when `turnEnded` interrupted the compaction shown. */
  interrupted: Interruption | null;
  /** Ended compactions, newest first (at most 50). */
  history: HistoryEntry[];
  forecast: Forecast | null;
  attachment_budget: AttachmentBudget;
}

/** The backend's refusal of an upload (its error code, which Wegent localises, and its message). */
export interface PreviewError {
  code:
    | "unsupported_type" | "unrecognized_type" | "parse_failed" | "encrypted_pdf" | "legacy_doc" | "legacy_ppt" | "legacy_xls" | "file_too_large"
    // Refused by the chat input before upload (see `admission`).
    | "attachment_limit_reached" | "max_material_type" | "max_size" | "video_upload_unavailable";
  /** The reference's message (for a refusal before upload, its English toast: title, then `: ` and the description). */
  message: string;
  /** Set when Wegent's chat input refuses the file before upload: its toast's i18n keys and values. */
  admission?: PreviewRefusalMessage;
}

/** One i18n message of Wegent's frontend: its namespaced key and interpolated values. */
export interface PreviewMessageRef {
  /** e.g. `chat:generate.max_attachments`, `common:attachment.errors.video_upload_unavailable`. */
  key: string;
  /** e.g. `{ count: "3" }` (absent when none). */
  params?: Record<string, string>;
}

/** A toast of Wegent's chat input: its title and, for some, a description. */
export interface PreviewRefusalMessage {
  title: PreviewMessageRef;
  description?: PreviewMessageRef;
}

/** How much of a document the backend keeps once its text is over MAX_EXTRACTED_TEXT_LENGTH. */
export interface UploadTruncation {
  /** The smart truncation's summary (which pages, rows or paragraphs are kept). */
  summary_message: string;
  original_length: number;
  truncated_length: number;
}

/** What one row says (`data-state`). */
export type PreviewRowState = "fits" | "cut" | "image" | "binary" | "rejected" | "truncated-on-upload" | "scanned";

/** What becomes of one attachment. */
export interface PreviewRow {
  attachment_id: number;
  name: string;
  mime_type: string | null;
  size_bytes: number;
  state: PreviewRowState;
  /** The backend's refusal, for rejected files. */
  error: PreviewError | null;
  /** Set when the backend keeps only part of the file. */
  upload_truncation: UploadTruncation | null;
  inlined: "text" | "image" | "header" | "nothing";
  /** Characters of text the backend stores. */
  stored_chars: number;
  injected_chars: number;
  capped: boolean;
  tokens: number;
  allocation: number;
  truncated: boolean;
}

/** The detail of `ctxguard-preview-progress`: bytes of one file read so far. */
export interface PreviewProgress {
  file_index: number;
  done_bytes: number;
  total_bytes: number;
}

/** The detail of `ctxguard-preview`: the block as the server will inject it. */
export interface PreviewReport {
  model: string;
  limit_tokens: number;
  block_tokens_before: number;
  block_tokens_after: number;
  attachments: PreviewRow[];
  rendered: string;
}

/** A provider's usage, as `setUsage` takes it: ctxguard's own shape, or a provider's object as it is. */
export type ProviderUsage =
  | { model?: string; input_tokens: number; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null; context_window?: number; max_output_tokens?: number }
  | { model?: string; prompt_tokens: number; context_window?: number; max_output_tokens?: number }
  | { model?: string; inputTokens: number | undefined; context_window?: number; max_output_tokens?: number }
  | { model?: string; usage: ProviderUsage; context_window?: number; max_output_tokens?: number };

/** What the guard does on the turn the send starts. */
export type ProjectionOutcome =
  | { outcome: "fits" }
  | { outcome: "compacts"; expected_after_tokens: number; expected_after_percent: number }
  | { outcome: "too_large"; exceeds_input: boolean };

/** The detail of `ctxguard-projection` (null when nothing is being written). */
export type SendProjection = ProjectionOutcome & {
  /** Tokens the send adds: the user message (overhead included) and the attachment block. */
  added_tokens: number;
  /** The user message as the backend counts it. */
  message_tokens: number;
  /** The linked preview's block after its cut. */
  block_tokens: number;
  /** "After sending: N% left", the headline's rounding. */
  remaining_percent: number;
  /** The snapshot once the send is in the history. */
  metrics: ContextMetricsSnapshot;
};

export type ToolbarChangeEvent = CustomEvent<ToolbarState>;
export type ToolbarProjectionEvent = CustomEvent<SendProjection | null>;
export type ToolbarCompactionEvent = CustomEvent<ContextCompaction>;
export type ToolbarIgnoredEvent = CustomEvent<IgnoredEvent>;
export type AttachmentPreviewEvent = CustomEvent<PreviewReport>;
export type AttachmentPreviewProgressEvent = CustomEvent<PreviewProgress>;

export interface CtxguardToolbarEventMap extends HTMLElementEventMap {
  "ctxguard-change": ToolbarChangeEvent;
  "ctxguard-compaction": ToolbarCompactionEvent;
  "ctxguard-ignored": ToolbarIgnoredEvent;
  "ctxguard-projection": ToolbarProjectionEvent;
}

export interface CtxguardAttachmentPreviewEventMap extends HTMLElementEventMap {
  "ctxguard-preview": AttachmentPreviewEvent;
  "ctxguard-preview-progress": AttachmentPreviewProgressEvent;
}

/** `<ctxguard-toolbar>`. Its state is styleable from outside: `:state(compacting)` (and every other
 * compaction and connection state) where the browser has custom states, else `[data-state]` (the
 * compaction's) and `[data-connection]` on the element. */
export declare class CtxguardToolbarElement extends HTMLElement {
  /** Reflects the `session` attribute (null: absent; setting null removes it). */
  session: string | null;
  /** Reflects `server`. */
  server: string | null;
  /** Reflects `token`. */
  token: string | null;
  /** Reflects `source`. */
  source: FeedSource | null;
  /** Reflects `compact` (present or not). */
  compact: boolean;
  /** Reflects `stale-after-ms` (null: absent or not a number). */
  staleAfterMs: number | null;
  /** Reflects `theme`. */
  theme: "light" | "dark" | null;
  /** Reflects `model`. */
  model: string | null;
  /** Reflects `context-window`. */
  contextWindow: number | null;
  /** Applies one status event (object or JSON text; SSE or chat:status_updated shape). */
  pushEvent(event: StatusEvent | ChatStatusUpdated | string | object, id?: number | string): EventOutcome;
  /** The turn ended: a compaction still running shows as interrupted (`data-state="interrupted"`), out of the history. Returns whether one was. */
  turnEnded(reason?: TurnEnd): boolean;
  /** `source="host"` only: shows the host's own socket state where "Fed by the page" is (`null` shows that again). */
  setConnection(state: "live" | "reconnecting" | "offline" | null): void;
  /** Applies a `/context` body (the server's word, as on a resync). */
  applyContext(state: ContextState | string): "applied" | "malformed";
  /** Forgets the saved state and history of this session. */
  clear(): void;
  /** A JSON-safe snapshot. */
  readonly state: ToolbarState;
  /** Builds the snapshot from a provider's usage (the `model` and `context-window` attributes when it names none) in the toolbar's worker and applies it like a status event. Rejects with a TypeError saying what to give. */
  setUsage(usage: ProviderUsage): Promise<EventOutcome>;
  /** The message being written (counted off the main thread, debounced); same as setting `draft`. */
  setDraft(text: string): void;
  draft: string;
  /** What sending the draft and the linked preview's files will do (null when nothing is written). */
  readonly projection: SendProjection | null;
  addEventListener<K extends keyof CtxguardToolbarEventMap>(
    type: K,
    listener: (this: CtxguardToolbarElement, ev: CtxguardToolbarEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof CtxguardToolbarEventMap>(
    type: K,
    listener: (this: CtxguardToolbarElement, ev: CtxguardToolbarEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

/** `<ctxguard-attachment-preview>`. */
export declare class CtxguardAttachmentPreviewElement extends HTMLElement {
  /** Reflects the `model` attribute (null: absent; setting null removes it). */
  model: string | null;
  /** Reflects `limit` (null: absent or not a number). */
  limit: number | null;
  /** Reflects `for`: the id of the toolbar to take the budget from. */
  for: string | null;
  /** Reflects `max-upload-bytes`. */
  maxUploadBytes: number | null;
  /** Reflects `max-text-length`. */
  maxTextLength: number | null;
  /** Reflects `max-attachments` (the chat input's limit before upload). */
  maxAttachments: number | null;
  /** Reflects `max-reference-images` (the chat input's limit before upload). */
  maxReferenceImages: number | null;
  /** Reflects `max-reference-images-with-video` (the chat input's limit before upload). */
  maxReferenceImagesWithVideo: number | null;
  /** Reflects `max-reference-videos` (the chat input's limit before upload). */
  maxReferenceVideos: number | null;
  /** Reflects `max-reference-audios` (the chat input's limit before upload). */
  maxReferenceAudios: number | null;
  /** Reflects `image-max-size-mb` (the chat input's limit before upload). */
  imageMaxSizeMb: number | null;
  /** Reflects `video-max-size-mb` (the chat input's limit before upload). */
  videoMaxSizeMb: number | null;
  /** Reflects `audio-max-size-mb` (the chat input's limit before upload). */
  audioMaxSizeMb: number | null;
  /** Reflects `video-uploader-max-size-bytes` (the chat input's limit before upload). */
  videoUploaderMaxSizeBytes: number | null;
  /** Reflects `theme`. */
  theme: "light" | "dark" | null;
  /** The files the preview lists (given, picked or dropped), in order; setting it previews them. */
  files: File[];
  /** Previews `files` instead of the current ones; resolves to the report (null for none, or when cancelled). */
  previewFiles(files: FileList | File[]): Promise<PreviewReport | null>;
  /** Cancels the running preview: its promise resolves to null and no `ctxguard-preview` follows. */
  cancel(): void;
  /** The latest report (null before the first). */
  readonly report: PreviewReport | null;
  addEventListener<K extends keyof CtxguardAttachmentPreviewEventMap>(
    type: K,
    listener: (this: CtxguardAttachmentPreviewElement, ev: CtxguardAttachmentPreviewEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof CtxguardAttachmentPreviewEventMap>(
    type: K,
    listener: (this: CtxguardAttachmentPreviewElement, ev: CtxguardAttachmentPreviewEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

/** Attributes of `<ctxguard-toolbar>` (all optional). */
export interface CtxguardToolbarAttributes {
  /** Session id (default `demo`). */
  session?: string;
  /** Server origin (default the page's). */
  server?: string;
  /** Read token, sent as `?token=` on every request. */
  token?: string;
  /** `en` | `zh-CN` (default the document's, then the browser's). */
  lang?: string;
  /** `sse` (default) or `host` (no network; the page pushes events). */
  source?: FeedSource;
  /** One line, no legend. */
  compact?: boolean | "";
  /** `source="sse"`: a compaction with no event for this long shows `data-state="stalled"` (default 120000). */
  "stale-after-ms"?: number | string;
  /** Follows prefers-color-scheme unless set. */
  theme?: "light" | "dark";
  /** The model `setUsage` builds limits for when the usage names none (and whose encoding counts the draft). */
  model?: string;
  /** The model's context window for `setUsage`, as a model config gives it. */
  "context-window"?: number | string;
}

/** Attributes of `<ctxguard-attachment-preview>` (all optional). */
export interface CtxguardAttachmentPreviewAttributes {
  /** Model whose tokenizer counts (default `gpt-4o`, or the linked toolbar's). */
  model?: string;
  /** Per-message token budget (default core's for the model, or the linked toolbar's). */
  limit?: number | string;
  lang?: string;
  /** Id of a `<ctxguard-toolbar>` to take `model` and the budget from. */
  for?: string;
  /** The backend's upload cap in bytes (default 104857600): larger files get its refusal, unread. */
  "max-upload-bytes"?: number | string;
  /** The backend's MAX_EXTRACTED_TEXT_LENGTH (default 500000). */
  "max-text-length"?: number | string;
  /**
   * Files per message (Wegent's `maxAttachments`; default none). Over it, every file of the
   * selection is refused before upload ("Material limit reached: Upload up to N reference materials").
   */
  "max-attachments"?: number | string;
  /** Images per message (`max_reference_images`; default none). */
  "max-reference-images"?: number | string;
  /** Images beside a video (`max_reference_images_with_video`; default none). */
  "max-reference-images-with-video"?: number | string;
  /** Videos per message (`max_reference_videos`; default none). */
  "max-reference-videos"?: number | string;
  /** Audio files per message (`max_reference_audios`; default none). */
  "max-reference-audios"?: number | string;
  /** The model's image size limit in MB (`image_max_size_mb`; default none). */
  "image-max-size-mb"?: number | string;
  /** The model's video size limit in MB (`video_max_size_mb`; default none). */
  "video-max-size-mb"?: number | string;
  /** The model's audio size limit in MB (`audio_max_size_mb`; default none). */
  "audio-max-size-mb"?: number | string;
  /**
   * The registered video uploader's `maxSizeBytes`. Absent (the default, as in Wegent's
   * open-source build): no uploader, so videos are refused before upload.
   */
  "video-uploader-max-size-bytes"?: number | string;
  theme?: "light" | "dark";
}

/** What a JSX host may pass besides the attributes: the few HTML props a host needs. */
export interface JsxHostProps<E> {
  id?: string;
  class?: string;
  className?: string;
  slot?: string;
  hidden?: boolean;
  title?: string;
  style?: string | Record<string, string | number>;
  key?: string | number | null;
  ref?: { current: E | null } | ((element: E | null) => void) | null;
}

/** `<ctxguard-toolbar>` in JSX: its attributes and, as React 19 passes them, its events. */
export type CtxguardToolbarJsx = CtxguardToolbarAttributes &
  JsxHostProps<CtxguardToolbarElement> & {
    "onctxguard-change"?: (event: ToolbarChangeEvent) => void;
    "onctxguard-compaction"?: (event: ToolbarCompactionEvent) => void;
    "onctxguard-ignored"?: (event: ToolbarIgnoredEvent) => void;
    "onctxguard-projection"?: (event: ToolbarProjectionEvent) => void;
  };

/** `<ctxguard-attachment-preview>` in JSX. */
export type CtxguardAttachmentPreviewJsx = CtxguardAttachmentPreviewAttributes &
  JsxHostProps<CtxguardAttachmentPreviewElement> & {
    "onctxguard-preview"?: (event: AttachmentPreviewEvent) => void;
  };

// React 19 reads intrinsic elements from the "react" module's JSX namespace (and adds a
// listener for a custom element's `on<event-name>` prop). Without React installed this
// augmentation is inert.
declare module "react" {
  namespace JSX {
    interface IntrinsicElements {
      "ctxguard-toolbar": CtxguardToolbarJsx;
      "ctxguard-attachment-preview": CtxguardAttachmentPreviewJsx;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    "ctxguard-toolbar": CtxguardToolbarElement;
    "ctxguard-attachment-preview": CtxguardAttachmentPreviewElement;
  }

  interface DocumentEventMap {
    "ctxguard-change": ToolbarChangeEvent;
    "ctxguard-compaction": ToolbarCompactionEvent;
    "ctxguard-ignored": ToolbarIgnoredEvent;
    "ctxguard-projection": ToolbarProjectionEvent;
    "ctxguard-preview": AttachmentPreviewEvent;
  }

  // For JSX runtimes that read the global namespace (Preact, Solid, React before 19).
  namespace JSX {
    interface IntrinsicElements {
      "ctxguard-toolbar": CtxguardToolbarJsx;
      "ctxguard-attachment-preview": CtxguardAttachmentPreviewJsx;
    }
  }
}
