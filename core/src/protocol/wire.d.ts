// The wire contracts of core/src/protocol (SPEC §3, §4 and the /context body)
// in TypeScript: the one source of these declarations, included in both npm
// packages (ctxguard-core's .d.ts through wasm-bindgen, ctxguard-toolbar's by
// scripts/build-packages.sh). Keep in sync with core/src/protocol/*.rs and
// core/src/metrics.rs.

/** The five phases of SPEC §4, at which a status update is sent. */
export type KnownPhase = "build_messages" | "after_tool_end" | "after_compaction" | "summary_compact" | "final";

/** A phase as received: one of the five, or a name a newer sender (or Wegent's frontend: `persisted`) uses. */
export type Phase = KnownPhase | (string & {});

/** Where the used tokens come from; the parts sum to `used_input_tokens`. */
export interface UsageBreakdown {
  system: number;
  user: number;
  assistant: number;
  tool_outputs: number;
  attachments: number;
  overhead: number;
}

/** One context usage snapshot: the 11 wire fields (SPEC §3) and, for a full recount, the per-source breakdown. */
export interface ContextMetricsSnapshot {
  context_window: number;
  reserved_output_tokens: number;
  available_input_tokens: number;
  used_input_tokens: number;
  remaining_input_tokens: number;
  remaining_percent: number;
  display_remaining_tokens: number;
  display_remaining_percent: number;
  trigger_limit: number;
  target_limit: number;
  is_over_trigger: boolean;
  breakdown?: UsageBreakdown;
}

/** State of a summary compaction; `started` and `in_progress` both mean compacting. */
export type CompactionStatus = "started" | "in_progress" | "completed" | "fallback";

/** The `context_compaction` object of a `summary_compact` event. */
export interface ContextCompaction {
  type: "summary_compact";
  status: CompactionStatus;
  before_tokens: number;
  trigger_limit: number;
  target_limit: number;
  used_legacy_fallback: boolean;
  /** ISO 8601 UTC start time (the server's clock), e.g. `2026-06-23T14:55:34.512345+00:00`. */
  created_at: string;
  after_tokens?: number;
  summary_message_id?: string;
  failure_reason?: string;
}

/** The JSON of one `response.status.updated` SSE `data:` field (SPEC §4). */
export interface StatusEvent {
  type: "response.status.updated";
  response_id: string;
  phase: Phase;
  context_metrics: ContextMetricsSnapshot;
  context_compaction?: ContextCompaction;
}

/** Wegent's Socket.IO `chat:status_updated` payload (accepted wherever a StatusEvent is). */
export interface ChatStatusUpdated {
  task_id?: string | number;
  subtask_id?: string | number | null;
  phase: Phase;
  context_metrics: ContextMetricsSnapshot;
  context_compaction?: ContextCompaction;
}

/** The `/context` body: a session's latest state (`event_id` 0 and no metrics before any event). */
export interface ContextState {
  event_id: number;
  phase: Phase | null;
  context_metrics: ContextMetricsSnapshot | null;
  context_compaction?: ContextCompaction;
  model?: string;
  attachment_limit?: number;
  /** The server also serves the shared stream `GET /api/events?session=…`; absent: only `/api/sessions/{id}/events`. */
  shared_stream?: boolean;
}
