// What the Node host checks through `import` and through `require` alike:
// every public case of the JS kinds, the export list, and the facade's
// argument handling as a Node caller meets it.
import { assert, wanted } from "../support/net.mjs";
import { expectedCaseCount, runVectors } from "../wasm-host/vectors.js";

/** Every function and class the package exports (init and initSync aside). */
export const FUNCTIONS = [
  "countTokens", "countMessages", "contextConfig", "contextMetrics", "allocateBudget", "renderToolOutput",
  "previewAttachments", "buildAttachmentHeader", "composeAttachmentBlock", "isTextReadableMime",
  "readAttachmentPage", "shouldEmitStatusUpdate", "parseStatusEvent", "sanitizeToolPairs",
  "selectRecentUserMessages", "latestCheckpoint", "reloadMessages", "isContextTooLongError",
];
export const CLASSES = ["TokenLedger", "ContextGuard", "SummaryRequest"];

/** Runs every case of `vectors` through `api`, one tally entry per case; failures are printed. */
export async function checkVectors(style, api, vectors, tally) {
  const failures = [];
  let ran = 0;
  const { counts } = runVectors(api, vectors, (id, ok, detail) => {
    ran += 1;
    if (!wanted(`${style}: ${id}`)) return;
    if (ok) {
      tally.passed += 1;
    } else {
      tally.failed += 1;
      failures.push(`${id}: ${detail}`);
    }
  });
  for (const f of failures) console.log(`FAIL ${style}: ${f}`);
  console.log(`${style}: ${ran} cases through the package, ${failures.length} failed (${JSON.stringify(counts)})`);
  const expected = expectedCaseCount(vectors);
  await tally.check(`${style}: every case of the JS kinds ran`, () => assert(ran === expected, `ran ${ran}, expected ${expected}`));
}

/** Throws unless `call` throws an Error whose message starts with `start`. */
function throwsError(call, start) {
  try {
    call();
  } catch (e) {
    assert(e instanceof Error, `threw a ${typeof e} (${String(e)}), not an Error`);
    assert(e.message.startsWith(start), `threw ${JSON.stringify(e.message)}, wanted it to start with ${JSON.stringify(start)}`);
    return;
  }
  throw new Error("did not throw");
}

/** The export list and the facade's handling of what a Node caller passes. */
export async function checkNodeApi(style, api, tally) {
  await tally.check(`${style}: exports every function and class`, () => {
    const missing = [...FUNCTIONS, ...CLASSES, "default", "initSync"].filter((name) => typeof api[name] !== "function");
    assert(missing.length === 0, `missing: ${missing.join(", ")}`);
  });
  await tally.check(`${style}: TokenLedger.truncate refuses NaN, 0.5, -1 and 2^53`, () => {
    const ledger = new api.TokenLedger("gpt-4o");
    ledger.pushAll([{ role: "user", content: "a" }, { role: "user", content: "b" }]);
    throwsError(() => ledger.truncate(Number.NaN), "length: expected an integer, got NaN");
    throwsError(() => ledger.truncate(0.5), "length: expected an integer, got 0.5");
    throwsError(() => ledger.truncate(-1), "length: must be ≥ 0, got -1");
    throwsError(() => ledger.truncate(2 ** 53), "length: expected a safe integer");
    assert(ledger.length === 2, `length ${ledger.length} after refused truncates`);
    ledger.truncate(1);
    assert(ledger.length === 1, `length ${ledger.length} after truncate(1)`);
    ledger.free();
  });
  await tally.check(`${style}: a getter's non-Error throw becomes an Error, and the ledger stays usable`, () => {
    const ledger = new api.TokenLedger("gpt-4o");
    const bad = { role: "user", get content() { throw "boom"; } };
    throwsError(() => ledger.push(bad), 'message.content: reading it threw the string "boom"');
    ledger.push({ role: "user", content: "hello" });
    assert(ledger.length === 1 && ledger.usedTokens() === api.countMessages([{ role: "user", content: "hello" }], "gpt-4o"),
      `ledger after the throw: ${ledger.length} messages, ${ledger.usedTokens()} tokens`);
    ledger.free();
  });
  await tally.check(`${style}: composeAttachmentBlock defaults and errors`, () => {
    assert(api.composeAttachmentBlock([]) === "", "no attachments and no message: the empty message");
    const doc = { attachment_id: 7, filename: "notes.txt", mime_type: "text/plain", file_size: 5, extracted_text: "hello" };
    const blocks = api.composeAttachmentBlock([doc], { message: "read this" });
    assert(Array.isArray(blocks) && blocks.length === 2 && blocks[1].text === "read this"
      && blocks[0].text.startsWith("<attachment>[Attachment 1]\n[Attachment: notes.txt | ID: 7 | Type: text/plain | Size: 5 bytes"),
      JSON.stringify(blocks));
    const headerOnly = api.composeAttachmentBlock([doc], { inline_attachment_content: false });
    assert(!headerOnly[0].text.includes("hello"), "headers-only mode inlined the text");
    throwsError(() => api.composeAttachmentBlock({}), "attachments: expected an array of attachment objects");
    throwsError(() => api.composeAttachmentBlock([{ filename: "a" }]), 'attachments[0]: missing required field "attachment_id"');
    throwsError(() => api.composeAttachmentBlock([{ ...doc, file_size: -1 }]), "attachments[0].file_size: must be ≥ 0, got -1");
    throwsError(() => api.composeAttachmentBlock([doc], { inject_max_chars: 0.5 }), "options.inject_max_chars: expected a safe integer");
    throwsError(() => api.composeAttachmentBlock([doc], { messages: "x" }), "options: unknown field `messages`");
  });
  await tally.check(`${style}: ContextGuard proceeds under the trigger`, () => {
    const guard = new api.ContextGuard("gpt-4o");
    const step = guard.beforeModelCall([{ role: "user", content: "hi" }], Date.now(), "resp_1");
    assert(step.kind === "proceed" && step.used_tokens === 9 && step.events.length === 0, JSON.stringify(step).slice(0, 200));
    guard.free();
  });
}
