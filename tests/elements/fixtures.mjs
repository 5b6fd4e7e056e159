// Status events and /context bodies for the element tests (SPEC §4 and
// Wegent's chat:status_updated shape).

export const EVENT = "response.status.updated";
export const CREATED = "2026-06-23T14:55:34.000000+00:00";

/** Metrics of a 128,000-token window with `used` tokens in use (trigger 100,800). */
export function metrics(used, extra = {}) {
  const window = 128_000;
  const reserved = 16_000;
  const available = window - reserved;
  return {
    context_window: window,
    reserved_output_tokens: reserved,
    available_input_tokens: available,
    used_input_tokens: used,
    remaining_input_tokens: Math.max(0, available - used),
    remaining_percent: Math.floor((Math.max(0, available - used) * 100) / available),
    display_remaining_tokens: Math.max(0, window - used),
    display_remaining_percent: Math.floor((Math.max(0, window - used) * 100) / window),
    trigger_limit: 100_800,
    target_limit: 89_600,
    is_over_trigger: used >= 100_800,
    ...extra,
  };
}

/** An SSE payload of `phase` with `used` tokens in use. */
export function event(used, phase = "after_tool_end", extra = {}) {
  return { type: EVENT, response_id: "resp_1", phase, context_metrics: metrics(used), ...extra };
}

/** A summary_compact event whose record has `status` (and `extra` fields). */
export function compaction(status, extra = {}, used = 110_000) {
  return {
    type: EVENT,
    response_id: "resp_1",
    phase: "summary_compact",
    context_metrics: metrics(used),
    context_compaction: {
      type: "summary_compact",
      status,
      before_tokens: 110_000,
      trigger_limit: 100_800,
      target_limit: 89_600,
      used_legacy_fallback: false,
      created_at: CREATED,
      ...extra,
    },
  };
}

/** The same update in Wegent's Socket.IO `chat:status_updated` shape. */
export function wegent(sse, taskId = 7, subtaskId = 42) {
  const { type: _type, response_id: _id, ...rest } = sse;
  return { task_id: taskId, subtask_id: subtaskId, ...rest };
}

/** A /context body. */
export function context(eventId, used, extra = {}) {
  return { event_id: eventId, phase: "after_tool_end", context_metrics: used === null ? null : metrics(used), ...extra };
}

/** `created_at` `minutes` after CREATED. */
export function createdAt(minutes) {
  return new Date(Date.parse(CREATED) + minutes * 60_000).toISOString().replace("Z", "+00:00");
}
