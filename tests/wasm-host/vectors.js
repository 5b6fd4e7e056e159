// The conformance vectors through the ctxguard-core JS API, as every JS host
// test runs them (the browser page host.js, the Node host tests/npm-node):
// each case goes through the package function of its kind and is compared
// with its `expected` the way core/src/conformance/compare.rs compares: the
// first differing path, numbers by value, and `"<uuid4>"` standing for any
// fresh, distinct uuid4 that appears nowhere in the case's input.
// Plain ES module with no imports, so browsers and Node load it as it is.

/** How a case records an id the reference drew at random. */
export const UUID4_PLACEHOLDER = "<uuid4>";

const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Kinds whose step has no function of its own in the JS API (the guard classes run them inside). */
export const NOT_IN_JS = Symbol("no JS function for this kind");

/** The message every `attachment_block` case composes. */
const CASE_MESSAGE = "MSG";

export function brief(v) {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

/** The first place where `actual` differs from `expected` (as the Rust runner compares), or null. */
export function firstDifference(expected, actual, path = "$") {
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
  if (expected === UUID4_PLACEHOLDER && typeof actual === "string") {
    return UUID4.test(actual) ? null : `${path}: expected a fresh uuid4, got ${brief(actual)}`;
  }
  return Object.is(expected, actual) || expected === actual ? null : `${path}: expected ${brief(expected)}, got ${brief(actual)}`;
}

/** The strings of `actual` standing where `expected` holds the uuid4 placeholder. */
function placeheld(expected, actual, out = []) {
  if (expected === UUID4_PLACEHOLDER && typeof actual === "string") {
    out.push(actual);
  } else if (Array.isArray(expected) && Array.isArray(actual)) {
    expected.forEach((e, i) => placeheld(e, actual[i], out));
  } else if (expected && typeof expected === "object" && actual && typeof actual === "object") {
    for (const [k, e] of Object.entries(expected)) placeheld(e, actual[k], out);
  }
  return out;
}

/** Why the fresh ids of `actual` are not fresh (repeated, or already in the case's input), or null. */
export function staleIds(kase, actual) {
  const ids = placeheld(kase.expected, actual);
  if (ids.length === 0) return null;
  const { expected: _expected, ...inputs } = kase;
  const inputText = JSON.stringify(inputs);
  const seen = new Set();
  for (const id of ids) {
    if (seen.has(id)) return `fresh ids: ${id} is given to two messages`;
    if (inputText.includes(id)) return `fresh ids: ${id} already appears in the input`;
    seen.add(id);
  }
  return null;
}

/** The case's model id: every function lower-cases it itself, with no state between calls. */
function modelFor(kase) {
  return kase.model ?? "gpt-4";
}

const WIRE_FIELDS = [
  "context_window", "reserved_output_tokens", "available_input_tokens", "used_input_tokens",
  "remaining_input_tokens", "remaining_percent", "display_remaining_tokens", "display_remaining_percent",
  "trigger_limit", "target_limit", "is_over_trigger",
];

/** Runs one case through the package's API `ctx`, in the shape of its `expected`, or returns NOT_IN_JS. */
export function evaluate(ctx, kase) {
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
    case "attachment_block":
      return {
        blocks: ctx.composeAttachmentBlock(kase.attachments, {
          inline_attachment_content: kase.inline_attachment_content,
          inject_max_chars: kase.inject_max_chars,
          message: kase.message ?? CASE_MESSAGE,
        }),
      };
    case "mime":
      return { text_readable: ctx.isTextReadableMime(kase.mime ?? "") };
    case "should_emit":
      return { emit: ctx.shouldEmitStatusUpdate(kase.previous, kase.current, kase.phase) };
    case "sanitize_tool_pairs":
      return { messages: ctx.sanitizeToolPairs(kase.messages) };
    case "recent_user_messages":
      return { messages: ctx.selectRecentUserMessages(kase.messages, kase.limit, model) };
    case "context_too_long":
      return { context_too_long: ctx.isContextTooLongError({ message: kase.message, status: kase.status_code }) };
    default:
      return NOT_IN_JS;
  }
}

/**
 * Runs every case of the JSONL `text` through `ctx`, reporting each to
 * `check(id, ok, detail)`. Returns the count of cases run per kind and the
 * recorded `metrics` snapshots (for the status-event round trips).
 */
export function runVectors(ctx, text, check) {
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
    try {
      const actual = evaluate(ctx, kase);
      if (actual === NOT_IN_JS) return;
      counts[kase.kind] = (counts[kase.kind] ?? 0) + 1;
      const diff = firstDifference(kase.expected, actual) ?? staleIds(kase, actual);
      check(id, diff === null, diff);
    } catch (e) {
      check(id, false, `threw ${e?.message ?? e}`);
    }
    if (kase.kind === "metrics") metricsSnapshots.push(kase.expected);
  });
  return { counts, metricsSnapshots };
}

/** Kinds the JS API runs, with the public cases each has (tests/conformance/vectors.jsonl). */
export const JS_KINDS = [
  "count_text", "count_messages", "context_config", "allocate", "tool_output", "attachment_preview",
  "metrics", "metrics_baseline", "read_attachment", "attachment_header", "attachment_block", "mime",
  "should_emit", "sanitize_tool_pairs", "recent_user_messages", "context_too_long",
];

/** How many cases of `text` the JS API should run (every case of a kind in JS_KINDS). */
export function expectedCaseCount(text) {
  return text.split("\n").filter((line) => {
    if (!line.trim()) return false;
    try {
      return JS_KINDS.includes(JSON.parse(line).kind);
    } catch {
      return true;
    }
  }).length;
}
