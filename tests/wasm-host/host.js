// A host page using the ctxguard-core npm package as a page without a bundler
// would: the packed tarball is installed into tests/wasm-host/node_modules and
// index.html's import map points `ctxguard-core` at its browser entry. The page
// checks that the API refuses calls before init(), then init(), then every
// exported function against the public conformance vectors (vectors.js, which
// the Node host runs too), argument validation and plain-object outputs, and
// the guard classes driven through one compaction.
// The result is left in `window.ctxguardResult` for run.mjs.
import init, * as ctx from "ctxguard-core";
import { brief, expectedCaseCount, firstDifference, runVectors } from "./vectors.js";

const result = { done: false, passed: 0, failed: 0, failures: [], timings: {} };
window.ctxguardResult = result;

function check(id, ok, detail) {
  if (ok) {
    result.passed += 1;
  } else {
    result.failed += 1;
    result.failures.push(`${id}: ${detail}`);
  }
}

/** parseStatusEvent has no vectors of its own: round-trip events built from recorded snapshots. */
function checkStatusEvents(snapshots) {
  snapshots.forEach((snap, i) => {
    const phase = ["build_messages", "after_tool_end", "after_compaction", "summary_compact", "final"][i % 5];
    const event = { type: "response.status.updated", response_id: `resp_${i}`, phase, context_metrics: snap };
    if (phase === "summary_compact") {
      event.context_compaction = {
        type: "summary_compact", status: i % 2 ? "in_progress" : "completed", before_tokens: snap.used_input_tokens,
        trigger_limit: snap.trigger_limit, target_limit: snap.target_limit, used_legacy_fallback: false,
        created_at: "2026-06-23T14:55:34.512345+00:00",
        ...(i % 2 ? {} : { after_tokens: 10, summary_message_id: "m1" }),
      };
    }
    try {
      const parsed = ctx.parseStatusEvent(JSON.stringify({ ...event, unknown_field: 1 }));
      const diff = firstDifference(event, parsed);
      check(`status event ${i}`, diff === null, diff);
      const emit = ctx.shouldEmitStatusUpdate(null, parsed.context_metrics, parsed.phase);
      check(`status event ${i} emit`, emit === true, `first update not emitted`);
    } catch (e) {
      check(`status event ${i}`, false, `threw ${e.message}`);
    }
  });
}

/** Bad input throws an Error naming the argument; nothing traps. */
function checkErrors() {
  const cases = [
    ["countTokens(5)", () => ctx.countTokens(5, "gpt-4o"), "text: expected a string"],
    ["countTokens(model)", () => ctx.countTokens("x"), "model: expected a string, got undefined"],
    ["countMessages(object)", () => ctx.countMessages({ role: "user" }, "gpt-4o"), "messages: expected an array"],
    ["countMessages([1])", () => ctx.countMessages([1], "gpt-4o"), "messages[0]: expected a message object"],
    ["contextConfig(bad config)", () => ctx.contextConfig("m", { context_window: -1 }), "modelConfig.context_window: must be ≥ 0"],
    ["contextMetrics(bad baseline)", () => ctx.contextMetrics([], "m", null, { input_tokens: 1 }), "baseline: missing required field \"messages\""],
    ["allocateBudget(negative)", () => ctx.allocateBudget([1], -1), "budget: must be ≥ 0, got -1"],
    ["allocateBudget(float)", () => ctx.allocateBudget([1.5], 1), "sizes[0]: expected an integer, got 1.5"],
    ["renderToolOutput(policy)", () => ctx.renderToolOutput("x", { kind: "tokens", limit: -3 }, "m"), "policy.limit: must be ≥ 0"],
    ["renderToolOutput(kind)", () => ctx.renderToolOutput("x", { kind: "lines", limit: 3 }, "m"), "policy: unknown variant `lines`"],
    ["renderToolOutput(raw)", () => ctx.renderToolOutput(7, { kind: "tokens", limit: 3 }, "m"), "raw: expected a string or an object"],
    ["previewAttachments(limit)", () => ctx.previewAttachments([], "m", -1), "limit: must be ≥ 0"],
    ["buildAttachmentHeader(missing)", () => ctx.buildAttachmentHeader({ attachment_id: 1 }), "args: missing required field \"filename\""],
    ["isTextReadableMime(null)", () => ctx.isTextReadableMime(null), "mime: expected a string, got null"],
    ["readAttachmentPage(limit)", () => ctx.readAttachmentPage(null, 1, 0, -1, 0, "m"), "limit: must be ≥ 0"],
    ["shouldEmitStatusUpdate(phase)", () => ctx.shouldEmitStatusUpdate(null, { remaining_percent: 1, is_over_trigger: false }, "soon"), "phase: unknown phase \"soon\""],
    ["parseStatusEvent(malformed)", () => ctx.parseStatusEvent("{"), "data: invalid status event"],
    ["parseStatusEvent(object)", () => ctx.parseStatusEvent({}), "data: expected a string"],
    ["composeAttachmentBlock(object)", () => ctx.composeAttachmentBlock({}), "attachments: expected an array of attachment objects"],
    ["composeAttachmentBlock(no id)", () => ctx.composeAttachmentBlock([{ filename: "a" }]), "attachments[0]: missing required field \"attachment_id\""],
    ["composeAttachmentBlock(cap)", () => ctx.composeAttachmentBlock([], { inject_max_chars: 0.5 }), "options.inject_max_chars: expected a safe integer, got 0.5"],
    ["composeAttachmentBlock(option)", () => ctx.composeAttachmentBlock([], { messages: "x" }), "options: unknown field `messages`"],
    ["countMessages(cycle)", () => { const m = { role: "user" }; m.self = m; return ctx.countMessages([m], "m"); }, "nested more than 128 levels deep"],
  ];
  for (const [id, call, message] of cases) expectThrows(id, call, message);
  // The module still works after every rejected call.
  check("usable after errors", ctx.countTokens("hello world", "gpt-4o") === 2, "countTokens changed after errors");
}

/**
 * TokenLedger through JS. Regressions: `truncate` took a u32, so NaN, 0.5, -1 and 2^53 were turned
 * into counts; `push` let a getter's non-Error throw pass through, and left the ledger borrowed.
 */
function checkLedger() {
  const ledger = new ctx.TokenLedger("gpt-4o");
  ledger.pushAll([{ role: "user", content: "a" }, { role: "user", content: "b" }]);
  expectThrows("truncate(NaN)", () => ledger.truncate(Number.NaN), "length: expected an integer, got NaN");
  expectThrows("truncate(0.5)", () => ledger.truncate(0.5), "length: expected an integer, got 0.5");
  expectThrows("truncate(-1)", () => ledger.truncate(-1), "length: must be ≥ 0, got -1");
  expectThrows("truncate(2^53)", () => ledger.truncate(2 ** 53), "length: expected a safe integer");
  check("refused truncates keep the history", ledger.length === 2, `length ${ledger.length}`);
  const bad = { role: "user", get content() { throw "boom"; } };
  expectThrows("push(getter throws a string)", () => ledger.push(bad), 'message.content: reading it threw the string "boom"');
  ledger.push({ role: "user", content: "c" });
  check("ledger usable after a throwing getter", ledger.length === 3
    && ledger.usedTokens() === ctx.countMessages([{ role: "user", content: "a" }, { role: "user", content: "b" }, { role: "user", content: "c" }], "gpt-4o"),
    `length ${ledger.length}`);
  ledger.truncate(1);
  check("truncate(1)", ledger.length === 1, `length ${ledger.length}`);
  ledger.free();
}

/** Checks that `call` throws an `Error` whose message contains `message`; returns the error. */
function expectThrows(id, call, message) {
  try {
    call();
    check(id, false, "did not throw");
  } catch (e) {
    const ok = e instanceof Error && e.message.includes(message);
    check(id, ok, `threw ${e instanceof Error ? "Error" : typeof e} ${JSON.stringify(e?.message ?? e)}, wanted ${JSON.stringify(message)}`);
    return e;
  }
  return undefined;
}

/** 2026-06-23T14:55:34.512Z, the host's clock in these checks. */
const GUARD_NOW_MS = Date.UTC(2026, 5, 23, 14, 55, 34, 512);

/** The guard as a JS host drives it: one compaction whose first summary call is too long, then the edges. */
function checkGuard() {
  const guard = new ctx.ContextGuard("gpt-4o", null, { auto_compact_token_limit: 300 });
  const limits = guard.limits();
  check("guard limits", limits.trigger_limit === 300 && limits.target_limit === 299, brief(limits));
  const history = [
    { role: "system", content: "be brief" },
    { role: "user", content: "first question ".repeat(200) },
    { role: "assistant", content: "first answer" },
    { role: "user", content: "and now?" },
  ];
  const now = GUARD_NOW_MS;
  const decision = guard.beforeModelCall(history, now, "resp_guard");
  check("guard need_summary", decision.kind === "need_summary", `kind ${decision.kind}`);
  if (decision.kind !== "need_summary") return;
  const first = decision.request;
  const events = [first.started()];
  const input = first.messages();
  check("guard summary input", input.at(-1).content.startsWith("You are performing a CONTEXT CHECKPOINT COMPACTION.") && first.inputTokens() <= 299,
    `${input.length} messages, ${first.inputTokens()} tokens`);
  check("guard no early heartbeat", first.heartbeat(now + 1000) === null, "heartbeat before 15 s");
  const beat = first.heartbeat(now + 15000);
  if (beat) events.push(beat);
  check("guard heartbeat", beat?.context_compaction.status === "in_progress", brief(beat));
  check("guard next heartbeat", first.nextHeartbeatAtMs() === now + 30000, `${first.nextHeartbeatAtMs()}`);
  const failure = new Error("This model's maximum context length is 300 tokens");
  const afterError = first.onError(failure, now + 16000);
  check("guard retry", afterError.kind === "retry", `kind ${afterError.kind}`);
  if (afterError.kind !== "retry") return;
  expectThrows("guard request answers once", () => first.messages(), "request: this summary request was already answered");
  const retry = afterError.request;
  check("guard retry input", retry.attempt() === 2 && retry.messages().length < input.length, `attempt ${retry.attempt()}`);
  const ready = retry.onSummary(`summary of ${retry.messages().length} messages`, now + 20000);
  events.push(...ready.events);
  check("guard proceed", ready.kind === "proceed" && ready.changed && ready.replacement !== null, `kind ${ready.kind}`);
  const statuses = events.map((e) => e.context_compaction.status).join(",");
  check("guard events", statuses === "started,in_progress,completed", statuses);
  for (const [i, event] of events.entries()) {
    const diff = firstDifference(event, ctx.parseStatusEvent(JSON.stringify(event)));
    check(`guard event ${i} is a wire event`, diff === null && event.response_id === "resp_guard"
      && event.context_compaction.created_at === "2026-06-23T14:55:34.512000+00:00", diff ?? brief(event));
  }
  const completed = events.at(-1).context_compaction;
  check("guard after_tokens", completed.after_tokens === ready.used_tokens && ready.used_tokens < 300
    && ctx.countMessages(ready.messages, "gpt-4o") === ready.used_tokens, brief(completed));
  check("guard replacement", ready.messages.length === 3 && ready.replacement.removed_history_items === 2
    && ready.messages[1].additional_kwargs?.checkpoint_retained === true
    && ready.messages[2].additional_kwargs?.summary_compacted === true
    && ready.messages[2].id === completed.summary_message_id, brief(ready.messages));

  // Under the trigger it proceeds untouched; a non-context error falls back to the uncompacted history.
  const small = guard.beforeModelCall([{ role: "user", content: "hi" }], now);
  check("guard proceed untouched", small.kind === "proceed" && !small.changed && small.events.length === 0
    && small.replacement === null && small.used_tokens === 9, brief(small));
  const again = guard.beforeModelCall(history, now);
  if (again.kind === "need_summary") {
    const out = again.request.onError({ message: "invalid parameter", status: 400 }, now + 1);
    check("guard fallback", out.kind === "fallback" && out.messages.length === 4
      && out.events[0]?.context_compaction.failure_reason === "summary_compact_failed", brief(out));
  } else {
    check("guard fallback", false, `kind ${again.kind}`);
  }
  guard.free();

  // A knowledge-base payload that must not be cut: a typed Error telling the user to narrow the request.
  const strict = new ctx.ContextGuard("gpt-4o", null, { auto_compact_token_limit: 300, summary_enabled: false });
  const kb = JSON.stringify({ mode: "direct_injection", chunks: ["fact ".repeat(2000)] });
  const kbHistory = [
    { role: "user", content: "q" },
    { role: "assistant", content: "", tool_calls: [{ id: "kb", type: "function", function: { name: "knowledge_base_search", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "kb", name: "knowledge_base_search", content: kb },
    { role: "user", content: "now" },
  ];
  const e = expectThrows("guard bypassed payload", () => strict.beforeModelCall(kbHistory, now),
    "Current context still exceeds the safe input budget after compaction, and at least one protected payload cannot be truncated safely. Narrow the request or avoid direct injection for this turn.");
  check("guard bypassed payload fields", e?.code === "bypassed_payload_too_large" && e.trigger_limit === 300
    && e.message.startsWith("history: "), brief({ code: e?.code, message: e?.message }));

  expectThrows("ContextGuard(model)", () => new ctx.ContextGuard(5), "model: expected a string, got the number 5");
  expectThrows("ContextGuard(options)", () => new ctx.ContextGuard("m", null, { summaryEnabled: false }), "options: unknown field `summaryEnabled`");
  expectThrows("beforeModelCall(nowMs)", () => strict.beforeModelCall([]), "nowMs: expected a time in milliseconds");
  expectThrows("beforeModelCall(history)", () => strict.beforeModelCall({}, now), "history: expected an array");
  expectThrows("selectRecentUserMessages(limit)", () => ctx.selectRecentUserMessages([], 1.5, "m"), "tokenLimit: expected an integer, got 1.5");
  expectThrows("reloadMessages(role)", () => ctx.reloadMessages([{ role: "bot" }]), "turns[0].role: expected \"USER\" or \"ASSISTANT\"");

  // The history helpers.
  const sanitized = ctx.sanitizeToolPairs([
    { role: "user", content: "q" }, { role: "tool", tool_call_id: "gone", content: "orphan" }, { role: "assistant", content: "a" },
  ]);
  check("sanitizeToolPairs", sanitized.map((m) => m.role).join(",") === "user,assistant", brief(sanitized));
  const recent = ctx.selectRecentUserMessages(history, 50, "gpt-4o");
  check("selectRecentUserMessages", recent.length >= 1 && recent.at(-1).content === "and now?"
    && recent.every((m) => m.additional_kwargs.checkpoint_retained === true && /^[0-9a-f-]{14}4/.test(m.id)), brief(recent));
  const turns = [
    { role: "USER", status: "COMPLETED", prompt: "u1" },
    { role: "ASSISTANT", status: "COMPLETED", result: { messages_chain: ready.messages.concat([{ role: "assistant", content: "a1" }]) } },
    { role: "USER", status: "COMPLETED", prompt: "u2" },
  ];
  const reloaded = ctx.reloadMessages(turns);
  check("reloadMessages", reloaded.length === 5 && reloaded.at(-1).content === "u2", brief(reloaded));
  check("latestCheckpoint", ctx.latestCheckpoint(turns, 1).length === 1 && ctx.latestCheckpoint(turns)[0].role === "ASSISTANT"
    && ctx.latestCheckpoint(turns, 0).length === 2, "checkpoint");
  check("isContextTooLongError", ctx.isContextTooLongError("输入长度超过限制") && ctx.isContextTooLongError({ message: "x", status: 413 })
    && !ctx.isContextTooLongError({ message: "invalid parameter", status: 400 }), "context-too-long rules");
}

/** The README's guard example, verbatim but for a 300-token trigger and stand-ins for `summarise` (too long once) and `send`. */
async function checkReadmeGuardExample() {
  let history = [
    { role: "system", content: "be brief" },
    { role: "user", content: "first question ".repeat(200) },
    { role: "assistant", content: "first answer" },
    { role: "user", content: "and now?" },
  ];
  const sent = [];
  const send = (event) => sent.push(event);
  let calls = 0;
  const summarise = async (messages) => {
    calls += 1;
    if (calls === 1) throw Object.assign(new Error("Request too large"), { status: 413 });
    return `summary of ${messages.length} messages`;
  };
  const { ContextGuard } = ctx;
  const guard = new ContextGuard("gpt-4o", null, { auto_compact_token_limit: 300 });
  let step = guard.beforeModelCall(history, Date.now(), "resp_1");    // proceed | fallback | need_summary
  if (step.kind === "need_summary") send(step.request.started());
  while (step.kind === "need_summary" || step.kind === "retry") {
    const { request } = step;                                         // meanwhile: request.heartbeat(Date.now())
    const reply = await summarise(request.messages()).then((text) => ({ text }), (error) => ({ error }));
    step = reply.error ? request.onError(reply.error, Date.now()) : request.onSummary(reply.text, Date.now());
  }
  step.events.forEach(send);                                          // summary_compact status events (SPEC §4)
  history = step.messages;                                            // call the model with these, and store them
  const statuses = sent.map((e) => e.context_compaction.status).join(",");
  check("README guard example", calls === 2 && statuses === "started,completed" && history.length === 3
    && step.replacement?.removed_history_items === 2, `${calls} calls, ${statuses}, ${history.length} messages`);
}

/** Before init() every entry point throws an Error saying to `await init()`; init() is idempotent. */
async function checkInit() {
  const notReady = "call `await init()`";
  expectThrows("countTokens before init", () => ctx.countTokens("hello", "gpt-4o"), notReady);
  expectThrows("TokenLedger before init", () => new ctx.TokenLedger("gpt-4o"), notReady);
  expectThrows("composeAttachmentBlock before init", () => ctx.composeAttachmentBlock([]), notReady);
  const t0 = performance.now();
  const [a, b] = await Promise.all([init(), init()]);
  const t1 = performance.now();
  check("init() twice at once", a === b && a !== undefined, "two initialisations");
  check("init() after init()", (await init()) === a, "a second instance");
  return { t0, t1 };
}

async function main() {
  const { t0, t1 } = await checkInit();
  const first = ctx.countTokens("hello world", "gpt-4o");
  const t2 = performance.now();
  result.timings = {
    init_ms: t1 - t0,
    first_count_ms: t2 - t1,
    init_to_first_count_ms: t2 - t0,
    // From the start of the page's navigation: HTML, the module graph, the .wasm, its compile, the count.
    navigation_to_first_count_ms: t2,
  };
  check("first countTokens", first === 2, `got ${first}`);
  const vectors = await (await fetch("../conformance/vectors.jsonl", { cache: "no-store" })).text();
  const { counts, metricsSnapshots } = runVectors(ctx, vectors, check);
  result.vectorKinds = counts;
  result.vectorsExpected = expectedCaseCount(vectors);
  checkStatusEvents(metricsSnapshots);
  checkErrors();
  checkLedger();
  checkGuard();
  await checkReadmeGuardExample();
}

main()
  .catch((e) => check("page", false, `threw ${e?.stack ?? e}`))
  .finally(() => {
    result.done = true;
    document.getElementById("status").textContent = `${result.passed} passed, ${result.failed} failed`;
    document.getElementById("report").textContent = result.failures.join("\n");
  });
