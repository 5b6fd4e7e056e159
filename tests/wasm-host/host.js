// A host page using the ctxguard-core npm package (pkg/) as an app would:
// init(), then every exported function, checked against the public
// conformance vectors, plus argument validation and plain-object outputs.
// The result is left in `window.ctxguardResult` for the WebDriver script.
import init, * as ctx from "../../pkg/ctxguard_core.js";

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

/** The first place where `actual` differs from `expected` (as the Rust runner compares), or null. */
function firstDifference(expected, actual, path = "$") {
  if (expected !== null && typeof expected === "object") {
    if (Array.isArray(expected)) {
      if (!Array.isArray(actual)) return `${path}: expected an array, got ${brief(actual)}`;
      for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
        const d = firstDifference(expected[i], actual[i], `${path}[${i}]`);
        if (d) return d;
      }
      return expected.length === actual.length ? null : `${path}: expected ${expected.length} items, got ${actual.length}`;
    }
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) {
      return `${path}: expected an object, got ${brief(actual)}`;
    }
    if (Object.getPrototypeOf(actual) !== Object.prototype) return `${path}: not a plain object`;
    for (const [k, v] of Object.entries(expected)) {
      if (!(k in actual)) return `${path}.${k}: expected ${brief(v)}, got nothing`;
      const d = firstDifference(v, actual[k], `${path}.${k}`);
      if (d) return d;
    }
    for (const k of Object.keys(actual)) {
      if (!(k in expected)) return `${path}.${k}: expected nothing, got ${brief(actual[k])}`;
    }
    return null;
  }
  return Object.is(expected, actual) || expected === actual ? null : `${path}: expected ${brief(expected)}, got ${brief(actual)}`;
}

function brief(v) {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

/**
 * The reference recorded the vectors in one process, whose encoding cache is
 * keyed by the lower-cased model id once tiktoken knows the id (so `GPT-4O`
 * after a `gpt-4o` case counts with o200k). tiktoken's names are all lower
 * case, so a host reproduces that by remembering lower-case ids it counted with.
 */
const seenLowerIds = new Set();
function modelFor(kase) {
  const model = kase.model ?? "gpt-4";
  if (!usesEncoding(kase)) return model;
  const lower = model.toLowerCase();
  if (seenLowerIds.has(lower)) return lower;
  if (model === lower) seenLowerIds.add(lower);
  return model;
}

function usesEncoding(kase) {
  const nonEmpty = (v) => typeof v === "string" && v.length > 0;
  switch (kase.kind) {
    case "count_text": return nonEmpty(kase.text);
    case "count_messages": case "metrics": case "metrics_baseline": return true;
    case "tool_output": return typeof kase.raw === "string" ? nonEmpty(kase.raw) : nonEmpty(kase.raw?.text);
    case "attachment_preview": return (kase.limit ?? 0) > 0 && JSON.stringify(kase.messages).includes("<attachment>");
    case "read_attachment": return nonEmpty(kase.doc?.text);
    default: return false;
  }
}

const WIRE_FIELDS = [
  "context_window", "reserved_output_tokens", "available_input_tokens", "used_input_tokens",
  "remaining_input_tokens", "remaining_percent", "display_remaining_tokens", "display_remaining_percent",
  "trigger_limit", "target_limit", "is_over_trigger",
];

/** Runs one vector through the package's API, in the shape of its `expected`. */
function evaluate(kase) {
  const model = modelFor(kase);
  switch (kase.kind) {
    case "count_text":
      return { tokens: ctx.countTokens(kase.text, model) };
    case "count_messages":
      return { tokens: ctx.countMessages(kase.messages, model) };
    case "context_config":
      return ctx.contextConfig(model, kase.model_config, kase.auto_compact_token_limit);
    case "allocate":
      return { allocations: ctx.allocateBudget(kase.sizes, kase.budget) };
    case "tool_output":
      return { rendered: ctx.renderToolOutput(kase.raw, kase.policy, model, kase.emergency) };
    case "attachment_preview": {
      const out = ctx.previewAttachments(kase.messages, model, kase.limit);
      if (!Array.isArray(out.segments)) throw new Error("segments is not an array");
      const traces = out.traces.map((t) => {
        const { duration_ms: _ignored, ...attributes } = t.attributes;
        return [t.name, attributes];
      });
      return { messages: out.messages, traces };
    }
    case "metrics":
    case "metrics_baseline": {
      const snap = ctx.contextMetrics(kase.messages, model, kase.model_config, kase.baseline);
      if (snap.breakdown !== undefined) {
        const sum = Object.values(snap.breakdown).reduce((a, b) => a + b, 0);
        if (sum !== snap.used_input_tokens) throw new Error(`breakdown sums to ${sum}, used is ${snap.used_input_tokens}`);
      }
      return Object.fromEntries(WIRE_FIELDS.map((k) => [k, snap[k]]));
    }
    case "read_attachment":
      return {
        result: ctx.readAttachmentPage(
          kase.doc, kase.attachment_id, kase.offset ?? 0, kase.limit ?? 0, kase.page_token_limit ?? 15000, model,
        ),
      };
    case "attachment_header":
      return { header: ctx.buildAttachmentHeader(kase.args) };
    case "mime":
      return { text_readable: ctx.isTextReadableMime(kase.mime ?? "") };
    case "should_emit":
      return { emit: ctx.shouldEmitStatusUpdate(kase.previous, kase.current, kase.phase) };
    default:
      throw new Error(`unknown kind ${kase.kind}`);
  }
}

function runVectors(text) {
  const counts = {};
  const metricsSnapshots = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    let kase;
    try {
      kase = JSON.parse(line);
    } catch (e) {
      check(`line ${i + 1}`, false, `malformed JSON: ${e.message}`);
      return;
    }
    const id = kase.id ?? `line ${i + 1}`;
    counts[kase.kind] = (counts[kase.kind] ?? 0) + 1;
    try {
      const diff = firstDifference(kase.expected, evaluate(kase));
      check(id, diff === null, diff);
    } catch (e) {
      check(id, false, `threw ${e.message}`);
    }
    if (kase.kind === "metrics") metricsSnapshots.push(kase.expected);
  });
  result.vectorKinds = counts;
  return metricsSnapshots;
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
    ["countMessages(cycle)", () => { const m = { role: "user" }; m.self = m; return ctx.countMessages([m], "m"); }, "nested more than 128 levels deep"],
  ];
  for (const [id, call, message] of cases) {
    try {
      call();
      check(id, false, "did not throw");
    } catch (e) {
      const ok = e instanceof Error && e.message.includes(message);
      check(id, ok, `threw ${e instanceof Error ? "Error" : typeof e} ${JSON.stringify(e?.message ?? e)}, wanted ${JSON.stringify(message)}`);
    }
  }
  // The module still works after every rejected call.
  check("usable after errors", ctx.countTokens("hello world", "gpt-4o") === 2, "countTokens changed after errors");
}

async function main() {
  const t0 = performance.now();
  await init();
  const t1 = performance.now();
  const first = ctx.countTokens("hello world", "gpt-4o");
  const t2 = performance.now();
  result.timings = { init_ms: t1 - t0, first_count_ms: t2 - t1, init_to_first_count_ms: t2 - t0 };
  check("first countTokens", first === 2, `got ${first}`);
  const vectors = await (await fetch("../conformance/vectors.jsonl", { cache: "no-store" })).text();
  const snapshots = runVectors(vectors);
  checkStatusEvents(snapshots);
  checkErrors();
}

main()
  .catch((e) => check("page", false, `threw ${e?.stack ?? e}`))
  .finally(() => {
    result.done = true;
    document.getElementById("status").textContent = `${result.passed} passed, ${result.failed} failed`;
    document.getElementById("report").textContent = result.failures.join("\n");
  });
