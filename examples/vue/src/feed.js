// A scripted chat session standing in for your backend's socket: each step is one
// status update in the SSE shape (what `response.status.updated` carries), pushed to the
// toolbar through its `pushEvent` method. A real app calls pushEvent from its own socket
// handler, or leaves source="sse" and lets the toolbar follow the server.
const WINDOW = 128_000, RESERVED = 16_000, TRIGGER = 100_800, TARGET = 89_600;

function metrics(used) {
  const available = WINDOW - RESERVED;
  const remaining = Math.max(0, available - used);
  return {
    context_window: WINDOW, reserved_output_tokens: RESERVED, available_input_tokens: available,
    used_input_tokens: used, remaining_input_tokens: remaining,
    remaining_percent: Math.floor((remaining * 100) / available),
    display_remaining_tokens: Math.max(0, WINDOW - used),
    display_remaining_percent: Math.floor((Math.max(0, WINDOW - used) * 100) / WINDOW),
    trigger_limit: TRIGGER, target_limit: TARGET, is_over_trigger: used >= TRIGGER,
  };
}

/** [phase, used tokens, compaction status?, tokens after?, pause ms?] per step. */
const SCRIPTS = {
  "task-1": [
    ["build_messages", 44_000], ["after_tool_end", 58_000], ["build_messages", 71_000],
    ["after_tool_end", 86_000], ["build_messages", 103_000],
    ["summary_compact", 103_000, "started"], ["summary_compact", 103_000, "in_progress", null, 1_500],
    ["summary_compact", 103_000, "completed", 30_500],
    ["after_compaction", 30_500], ["build_messages", 41_000], ["after_tool_end", 52_000], ["build_messages", 60_000],
  ],
  "task-2": [["build_messages", 12_000], ["after_tool_end", 19_500]],
};

const CREATED = "2026-12-07T09:30:00.000000+00:00";

/** Plays `session`'s script into `toolbar`; returns a function that stops it. Calls `done` at its end. */
export function play(toolbar, session, done, stepMs = 60) {
  let timer;
  let i = 0;
  const next = () => {
    const step = SCRIPTS[session]?.[i++];
    if (!step) return done();
    const [phase, used, status, after, pause] = step;
    const event = { type: "response.status.updated", response_id: `resp_${session}`, phase, context_metrics: metrics(used) };
    if (status) {
      event.context_compaction = {
        type: "summary_compact", status, before_tokens: used, trigger_limit: TRIGGER, target_limit: TARGET,
        used_legacy_fallback: false, created_at: CREATED,
        ...(after ? { after_tokens: after, saved_tokens: used - after } : {}),
      };
    }
    toolbar.pushEvent(event);
    timer = setTimeout(next, pause ?? stepMs);
  };
  timer = setTimeout(next, stepMs);
  return () => clearTimeout(timer);
}
