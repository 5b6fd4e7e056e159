// Type-checks a host's use of the installed ctxguard-core package (the packed tarball) against its
// declarations (`tsc --noEmit`, strict, see run.sh): every export is used here.
// Lines marked @ts-expect-error must stay errors: they prove the declarations are not `any`.
import init, {
  ContextGuard,
  SummaryRequest,
  TokenLedger,
  allocateBudget,
  buildAttachmentHeader,
  composeAttachmentBlock,
  contextConfig,
  contextMetrics,
  countMessages,
  countTokens,
  isContextTooLongError,
  isTextReadableMime,
  latestCheckpoint,
  parseStatusEvent,
  previewAttachments,
  readAttachmentPage,
  reloadMessages,
  renderToolOutput,
  sanitizeToolPairs,
  selectRecentUserMessages,
  shouldEmitStatusUpdate,
  type AfterSummaryError,
  type Attachment,
  type AttachmentPreview,
  type ComposedMessage,
  type ComposeOptions,
  type InputBlock,
  type CompactionStatusEvent,
  type GuardDecision,
  type GuardOptions,
  type GuardReady,
  type ContextLimits,
  type ContextMetricsSnapshot,
  type Message,
  type ReadResult,
  type StatusEvent,
  type Turn,
  initSync,
} from "ctxguard-core";

export async function host(wasmBytes?: ArrayBuffer): Promise<void> {
  if (wasmBytes) initSync({ module: wasmBytes });
  await init();
  const history: Message[] = [
    { role: "system", content: "be brief" },
    { role: "user", content: [{ type: "text", text: "hi" }, { type: "image_url", image_url: { url: "x" } }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "grep", arguments: '{"q": 1}' } }],
    },
    { role: "tool", tool_call_id: "c1", name: "grep", content: "found", additional_kwargs: { compacted: true } },
  ];
  const tokens: number = countTokens("hello", "gpt-4o") + countMessages(history, "gpt-4o");
  const limits: ContextLimits = contextConfig("gpt-4o");
  const custom: ContextLimits = contextConfig("m", { context_window: 32000 }, 20000);
  const snap: ContextMetricsSnapshot = contextMetrics(history, "gpt-4o", null, {
    input_tokens: 120,
    messages: history.slice(0, 2),
  });
  const attachments: number | undefined = contextMetrics(history, "gpt-4o").breakdown?.attachments;
  const allocations: number[] = allocateBudget([1, 2, 3], 4);
  const rendered: string =
    renderToolOutput("text", { kind: "tokens", limit: 64 }, "gpt-4o") +
    renderToolOutput({ text: "t", tool_name: "sh", exit_code: 0, wall_time: 1.5 }, { kind: "bytes", limit: 9 }, "gpt-4o", true);
  const preview: AttachmentPreview = previewAttachments(history, "gpt-4o", 15000);
  const cut: boolean = preview.segments.some((s) => s.truncated) && preview.traces[0]?.attributes.status === "applied";
  const header: string = buildAttachmentHeader({ attachment_id: 1, filename: "a.txt", file_size: 10, mime_type: "text/plain" });
  const uploads: Attachment[] = [
    { attachment_id: 1, filename: "a.txt", mime_type: "text/plain", file_size: 10, extracted_text: "abc" },
    { attachment_id: 2, filename: "b.png", mime_type: "image/png", is_image: true, image_base64: "iVBOR", sandbox_path: null },
  ];
  const composeOptions: ComposeOptions = { inline_attachment_content: true, inject_max_chars: 32000, message: "read these" };
  const composed: ComposedMessage = composeAttachmentBlock(uploads, composeOptions);
  const images: string[] = typeof composed === "string" ? [] : composed.flatMap((b: InputBlock) => (b.type === "input_image" ? [b.image_url] : []));
  const plain: ComposedMessage = composeAttachmentBlock([]);
  console.log(images, plain);
  const readable: boolean = isTextReadableMime("text/csv");
  const page: ReadResult = readAttachmentPage({ text: "abc", name: "a", mime_type: "text/plain" }, 1, 0, 0, 0, "gpt-4o");
  if (page.status === "success") {
    const next: number | null = page.next_offset;
    console.log(next, page.content.length);
  } else {
    const message: string = page.message;
    console.log(message);
  }
  const emit: boolean = shouldEmitStatusUpdate(null, snap, "after_tool_end") || shouldEmitStatusUpdate(snap, snap, "final");
  const event: StatusEvent = parseStatusEvent("{}");
  const compacting: boolean = event.context_compaction?.status === "started" || event.context_compaction?.status === "in_progress";
  const remaining: number = event.context_metrics.remaining_percent;
  console.log(tokens, limits, custom, attachments, allocations, rendered, cut, header, readable, emit, compacting, remaining);

  // @ts-expect-error text must be a string
  countTokens(5, "gpt-4o");
  // @ts-expect-error the model is required
  countMessages(history);
  // @ts-expect-error policy kind is "tokens" or "bytes"
  renderToolOutput("x", { kind: "lines", limit: 3 }, "gpt-4o");
  // @ts-expect-error phase is one of the five wire phases
  shouldEmitStatusUpdate(null, snap, "later");
  // @ts-expect-error header args need a filename and size
  buildAttachmentHeader({ attachment_id: 1 });
  // @ts-expect-error an attachment needs its id
  composeAttachmentBlock([{ filename: "a.txt" }]);
  // @ts-expect-error options are the three known fields
  composeAttachmentBlock([], { messages: "x" });
  // @ts-expect-error results are typed, not any
  const wrong: string = contextConfig("gpt-4o");
  console.log(wrong);
}

/** A host's summariser: another model call (here a stand-in). */
async function summarise(messages: Message[]): Promise<string> {
  return `summary of ${messages.length} messages`;
}

/** The guard loop of a host: one model call's worth of governance. */
export async function governed(history: Message[], send: (event: StatusEvent) => void): Promise<Message[]> {
  const options: GuardOptions = { auto_compact_token_limit: 90000, tool_policy_overrides: { sh: { kind: "bytes", limit: 4096 } } };
  const guard = new ContextGuard("gpt-4o", { context_window: 128000 }, options);
  const decision: GuardDecision = guard.beforeModelCall(history, Date.now(), "resp_1");
  let ready: GuardReady;
  if (decision.kind === "need_summary") {
    let request: SummaryRequest = decision.request;
    send(request.started());
    for (;;) {
      const beat: CompactionStatusEvent | null = request.heartbeat(Date.now());
      if (beat) send(beat);
      try {
        ready = request.onSummary(await summarise(request.messages()), Date.now());
        break;
      } catch (error) {
        const after: AfterSummaryError = request.onError(error instanceof Error ? error : String(error), Date.now());
        if (after.kind === "fallback") {
          ready = after;
          break;
        }
        request = after.request;
      }
    }
  } else {
    ready = decision;
  }
  for (const event of ready.events) send(event);
  const after: number | undefined = ready.events[0]?.context_compaction.after_tokens;
  const removed: number | undefined = ready.replacement?.removed_history_items;
  const trigger: number = guard.limits().trigger_limit + ready.metrics.trigger_limit + ready.used_tokens;
  console.log(after, removed, trigger, ready.changed, ready.traces.length);

  const turns: Turn[] = [
    { role: "USER", status: "COMPLETED", prompt: "q" },
    { role: "ASSISTANT", status: "COMPLETED", result: { value: "a", messages_chain: ready.messages } },
  ];
  const reloaded: Message[] = reloadMessages(turns, 20).concat(reloadMessages(turns));
  const kept: Turn[] = latestCheckpoint(turns);
  const recent: Message[] = selectRecentUserMessages(sanitizeToolPairs(reloaded), 20000, "gpt-4o");
  const tooLong: boolean = isContextTooLongError({ message: "prompt is too long", status: 400 }) || isContextTooLongError("输入过长");
  const strictGuard = new ContextGuard("gpt-4o", null, { strict_counting: true });
  strictGuard.free();
  const spent: GuardReady = new ContextGuard("gpt-4o").beforeModelCall(recent, 0) as GuardReady;
  console.log(kept.length, tooLong, spent.kind);
  guard.free();

  // @ts-expect-error the time is required: core never reads a clock
  guard.beforeModelCall(history);
  // @ts-expect-error turn roles are "USER" or "ASSISTANT", and turns have a status
  reloadMessages([{ role: "bot" }]);
  // @ts-expect-error fallback reasons are the two wire reasons
  (decision.kind === "need_summary" ? decision.request : undefined)?.fallBack(0, "tired");
  // @ts-expect-error decisions are typed, not any
  const wrong: string = guard.beforeModelCall(history, 0);
  console.log(wrong);
  return ready.messages;
}

/** The incremental ledger: O(1) snapshots of a growing history. */
export function ledgerUsage(history: Message[]): ContextMetricsSnapshot {
  const ledger = new TokenLedger("gpt-4o", { context_window: 32000 });
  ledger.pushAll(history);
  ledger.push({ role: "user", content: "one more" });
  ledger.truncate(1);
  const used: number = ledger.usedTokens() + ledger.length;
  console.log(used);
  // @ts-expect-error a length is a number
  ledger.truncate("1");
  // @ts-expect-error a message is an object, not a string
  ledger.push("hello");
  return ledger.snapshot();
}
