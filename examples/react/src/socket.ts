// A stand-in for the Socket.IO client a Wegent frontend holds: `on`, `off`
// and an `emit` the scripted conversation below drives. The payloads are
// Wegent's `chat:status_updated` shape (task_id, subtask_id, phase,
// context_metrics, context_compaction?), exactly what the backend emits.
import type { ChatStatusUpdated, CompactionStatus, ContextMetricsSnapshot, Phase } from "ctxguard-toolbar";

type Handler = (payload: ChatStatusUpdated) => void;

/** A minimal Socket.IO-like event emitter. */
export class FakeSocket {
  private handlers = new Map<string, Set<Handler>>();

  on(event: string, handler: Handler): this {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)!.add(handler);
    return this;
  }

  off(event: string, handler: Handler): this {
    this.handlers.get(event)?.delete(handler);
    return this;
  }

  emit(event: string, payload: ChatStatusUpdated): void {
    for (const handler of this.handlers.get(event) ?? []) handler(payload);
  }
}

const WINDOW = 128_000;
const RESERVED = 16_000;
const TRIGGER = 100_800;
const TARGET = 89_600;

function metrics(used: number): ContextMetricsSnapshot {
  const available = WINDOW - RESERVED;
  return {
    context_window: WINDOW,
    reserved_output_tokens: RESERVED,
    available_input_tokens: available,
    used_input_tokens: used,
    remaining_input_tokens: Math.max(0, available - used),
    remaining_percent: Math.floor((Math.max(0, available - used) * 100) / available),
    display_remaining_tokens: Math.max(0, WINDOW - used),
    display_remaining_percent: Math.floor((Math.max(0, WINDOW - used) * 100) / WINDOW),
    trigger_limit: TRIGGER,
    target_limit: TARGET,
    is_over_trigger: used >= TRIGGER,
    breakdown: {
      system: 1_400,
      user: Math.round(used * 0.14),
      assistant: Math.round(used * 0.22),
      tool_outputs: Math.round(used * 0.5),
      attachments: Math.round(used * 0.1),
      overhead: Math.max(0, used - 1_400 - Math.round(used * 0.14) - Math.round(used * 0.22) - Math.round(used * 0.5) - Math.round(used * 0.1)),
    },
  };
}

type Step =
  | { phase: Phase; used: number }
  | { phase: "summary_compact"; used: number; status: CompactionStatus; run: number; after?: number; reason?: string };

// Turns that grow the history, a compaction that completes, more turns, one that falls back,
// and a few turns after it: enough for a history of two and a forecast.
const SCRIPT: Step[] = [
  { phase: "build_messages", used: 42_000 },
  { phase: "after_tool_end", used: 49_500 },
  { phase: "build_messages", used: 55_000 },
  { phase: "after_tool_end", used: 63_000 },
  { phase: "build_messages", used: 70_000 },
  { phase: "build_messages", used: 86_000 },
  { phase: "after_tool_end", used: 98_000 },
  { phase: "build_messages", used: 103_500 },
  { phase: "summary_compact", used: 103_500, status: "started", run: 1 },
  { phase: "summary_compact", used: 103_500, status: "in_progress", run: 1 },
  { phase: "summary_compact", used: 103_500, status: "completed", run: 1, after: 31_800 },
  { phase: "after_compaction", used: 31_800 },
  { phase: "build_messages", used: 38_000 },
  { phase: "after_tool_end", used: 52_000 },
  { phase: "build_messages", used: 58_000 },
  { phase: "build_messages", used: 79_000 },
  { phase: "build_messages", used: 101_200 },
  { phase: "summary_compact", used: 101_200, status: "started", run: 2 },
  { phase: "summary_compact", used: 101_200, status: "fallback", run: 2, reason: "summary_compact_failed" },
  { phase: "build_messages", used: 62_000 },
  { phase: "after_tool_end", used: 66_400 },
  { phase: "build_messages", used: 71_000 },
  { phase: "build_messages", used: 78_500 },
];

/**
 * Emits the conversation on `socket`, one step every `stepMs`; resolves when done.
 * Returns a function that stops it.
 */
export function playConversation(socket: FakeSocket, stepMs = 350, onDone?: () => void): () => void {
  const runs = new Map<number, string>();
  let i = 0;
  const timer = setInterval(() => {
    const step = SCRIPT[i++];
    if (!step) {
      clearInterval(timer);
      onDone?.();
      return;
    }
    const payload: ChatStatusUpdated = {
      task_id: 4182,
      subtask_id: 9000 + i,
      phase: step.phase,
      context_metrics: metrics(step.used),
    };
    if ("status" in step) {
      if (!runs.has(step.run)) runs.set(step.run, new Date().toISOString());
      payload.context_compaction = {
        type: "summary_compact",
        status: step.status,
        before_tokens: step.used,
        trigger_limit: TRIGGER,
        target_limit: TARGET,
        used_legacy_fallback: false,
        created_at: runs.get(step.run)!,
        ...(step.after !== undefined ? { after_tokens: step.after, summary_message_id: `msg_${step.run}` } : {}),
        ...(step.reason !== undefined ? { failure_reason: step.reason } : {}),
      };
    }
    socket.emit("chat:status_updated", payload);
  }, stepMs);
  return () => clearInterval(timer);
}
