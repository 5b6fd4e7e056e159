// Faults once found in the package, each pinned as a Node caller meets it:
//   - an array too long to hold is an Error naming the argument and the limit (it was a
//     WebAssembly trap that poisoned every later call), and a trap, forced here, instantiates
//     the module again: later calls work, objects made before it throw a clear Error;
//   - parseStatusEvent refuses a key named twice (as the relay and the toolbar do);
//   - reloadMessages holds one JS value at a time however many turns it reads (it held one
//     per turn: the table wasm-bindgen keeps them in grew with the input), and grows the
//     memory a few times, not once per 64 KiB, however much free room an earlier call left
//     (V8 may collect the whole JS heap at each growth: it was quadratic in sequence).
// checkTrap runs last: it replaces the instance.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { assert } from "../support/net.mjs";

/** The limit of every array argument (MAX_ARRAY_LENGTH in core/src/wasm/args.rs). */
const MAX_ARRAY_LENGTH = 2 ** 23;

/** The Error `call` throws; fails when it does not throw or throws a trap. */
function thrown(call) {
  try {
    call();
  } catch (e) {
    assert(e instanceof Error, `threw ${String(e)}, not an Error`);
    assert(!(e instanceof WebAssembly.RuntimeError), `threw a WebAssembly.RuntimeError: ${e.message}`);
    return e;
  }
  throw new Error("did not throw");
}

/** An array of `n` holes (what `a = []; a.length = n` makes). */
function holes(n) {
  const a = [];
  a.length = n;
  return a;
}

/** Array limits, repeated keys and reload memory (the package's instance stays the one it was). */
export async function checkFaults(style, api, tally) {
  await tally.check(`${style}: countMessages of 10 000 000 holes is an Error naming the limit, and counts go on`, () => {
    const e = thrown(() => api.countMessages(holes(1e7), "gpt-4o"));
    const want = `messages: 10000000 elements is over the limit of ${MAX_ARRAY_LENGTH}`;
    assert(e.message === want, `threw ${JSON.stringify(e.message)}, wanted ${JSON.stringify(want)}`);
    assert(api.countTokens("hello world", "gpt-4o") === 2, "countTokens after it");
    const under = thrown(() => api.countMessages(holes(8e6), "gpt-4o"));
    assert(under.message === "messages[0]: expected a message object", under.message);
    assert(api.countTokens("hello world", "gpt-4o") === 2, "countTokens after 8 000 000 holes");
  });
  await tally.check(`${style}: every function taking an array refuses one over the limit with an Error`, () => {
    const big = holes(MAX_ARRAY_LENGTH + 1);
    const model = "gpt-4o";
    const calls = {
      countMessages: () => api.countMessages(big, model),
      contextMetrics: () => api.contextMetrics(big, model),
      allocateBudget: () => api.allocateBudget(big, 10),
      sanitizeToolPairs: () => api.sanitizeToolPairs(big),
      selectRecentUserMessages: () => api.selectRecentUserMessages(big, 10, model),
      latestCheckpoint: () => api.latestCheckpoint(big),
      reloadMessages: () => api.reloadMessages(big),
      composeAttachmentBlock: () => api.composeAttachmentBlock(big),
      previewAttachments: () => api.previewAttachments(big, model),
      "TokenLedger.pushAll": () => new api.TokenLedger(model).pushAll(big),
      "ContextGuard.beforeModelCall": () => new api.ContextGuard(model).beforeModelCall(big, Date.now(), "r"),
      "a nested array": () => api.countMessages([{ role: "user", content: big }], model),
    };
    const wrong = [];
    for (const [name, call] of Object.entries(calls)) {
      try {
        const e = thrown(call);
        if (!e.message.includes(`elements is over the limit of ${MAX_ARRAY_LENGTH}`)) wrong.push(`${name}: ${e.message}`);
      } catch (e) {
        wrong.push(`${name}: ${e.message}`);
      }
    }
    assert(wrong.length === 0, wrong.join("; "));
    assert(api.countTokens("hello world", model) === 2, "countTokens after them");
  });
  await tally.check(`${style}: parseStatusEvent refuses a key named twice`, () => {
    const data = JSON.stringify({
      type: "response.status.updated", response_id: "r", phase: "after_tool_end",
      context_metrics: {
        context_window: 100, reserved_output_tokens: 10, available_input_tokens: 90, used_input_tokens: 5,
        remaining_input_tokens: 85, remaining_percent: 94, display_remaining_tokens: 95, display_remaining_percent: 95,
        trigger_limit: 81, target_limit: 63, is_over_trigger: false,
      },
    });
    assert(api.parseStatusEvent(data).phase === "after_tool_end", "the event without a repeat");
    const repeated = data.replace('"phase":', '"phase":"turn_end","phase":');
    const e = thrown(() => api.parseStatusEvent(repeated));
    assert(e.message.startsWith("data: ") && e.message.includes("duplicate field `phase`"), e.message);
    const nested = data.replace('"used_input_tokens":5', '"used_input_tokens":5,"used_input_tokens":6');
    assert(thrown(() => api.parseStatusEvent(nested)).message.includes("duplicate field `used_input_tokens`"), "nested");
  });
  await tally.check(`${style}: reloadMessages of 200 000 turns holds a bounded number of JS values`, async () => {
    const raw = await api.default();
    const [name, table] = Object.entries(raw).find(([n, v]) => v instanceof WebAssembly.Table && n.includes("externref")) ?? [];
    assert(table, `no externref table among the exports: ${Object.keys(raw).join(", ")}`);
    const turns = [];
    for (let i = 0; i < 100_000; i++) {
      turns.push({ role: "USER", status: "COMPLETED", prompt: `question ${i}` });
      turns.push({ role: "ASSISTANT", status: "COMPLETED", result: { value: `answer ${i}`, messages_chain: [{ role: "assistant", content: `answer ${i}` }] } });
    }
    const before = table.length;
    const messages = api.reloadMessages(turns);
    assert(messages.length === 200_000 && messages[199_999].content === "answer 99999", `${messages.length} messages`);
    const grown = table.length - before;
    console.log(`${style}: ${name} grew by ${grown} slots reading 200 000 turns (it holds the JS values the facade has in hand)`);
    assert(grown < 1024, `the table grew by ${grown} slots: the facade held about one JS value per turn`);
  });
}

/**
 * Point 4's memory check, in a worker (a fresh instance: the memory of this one only ever grew):
 * reloadMessages of 25 000 turns, then of 100 000 through a Proxy whose `get` trap, run at each turn
 * read, counts the changes of the memory's size. The rule before the fix grew it 175 times here
 * (once per 64 KiB once the 25 000 turns' free room was used), the geometric one 1 to 9 times.
 */
const MEMORY_GROWS_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const api = await import(workerData.entry);
  const memory = (await api.default()).memory;
  const turns = (n) => {
    const out = [];
    for (let i = 0; i < n; i += 2) {
      out.push({ role: "USER", status: "COMPLETED", prompt: "question " + i });
      out.push({ role: "ASSISTANT", status: "COMPLETED", result: { value: "answer " + i, messages_chain: [{ role: "assistant", content: "answer " + i }] } });
    }
    return out;
  };
  const first = api.reloadMessages(turns(25000)).length;
  let grows = 0;
  let bytes = memory.buffer.byteLength;
  const observed = new Proxy(turns(100000), {
    get(target, key, receiver) {
      if (memory.buffer.byteLength !== bytes) {
        grows++;
        bytes = memory.buffer.byteLength;
      }
      return Reflect.get(target, key, receiver);
    },
  });
  const second = api.reloadMessages(observed).length;
  parentPort.postMessage({ first, second, grows, mib: memory.buffer.byteLength / 2 ** 20 });
})().catch((e) => parentPort.postMessage({ error: String(e.stack ?? e) }));
`;

/** The package's Node entry as the project running this (its cwd) resolves it. */
function packageEntry() {
  return pathToFileURL(createRequire(join(process.cwd(), "package.json")).resolve("ctxguard-core")).href;
}

/** Point 4's memory growth, measured in a worker of its own. */
export async function checkMemoryGrowth(style, tally) {
  await tally.check(`${style}: reloadMessages of 100 000 turns after 25 000 grows the memory a few times, not once per 64 KiB`, async () => {
    const worker = new Worker(MEMORY_GROWS_WORKER, { eval: true, workerData: { entry: packageEntry() } });
    const result = await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    assert(!result.error, result.error);
    assert(result.first === 25_000 && result.second === 100_000, `${result.first} and ${result.second} messages`);
    console.log(`${style}: the memory grew ${result.grows} times while 100 000 turns were read after 25 000 (${result.mib} MiB)`);
    assert(result.grows <= 24, `the memory grew ${result.grows} times while the turns were read: once per 64 KiB, not in geometric steps`);
  });
}

/** Point 1's last part: a trap, forced through the raw exports (a malloc of 4 GiB), then what survives it. */
export async function checkTrap(style, api, tally) {
  await tally.check(`${style}: a trap instantiates the module again; later calls work and older objects throw`, async () => {
    const ledger = new api.TokenLedger("gpt-4o");
    ledger.push({ role: "user", content: "hello" });
    const used = ledger.usedTokens();
    const raw = await api.default();
    const malloc = raw.__wbindgen_malloc;
    assert(typeof malloc === "function", `no __wbindgen_malloc among ${Object.keys(raw).join(", ")}`);
    const e = thrown(() => malloc(2 ** 32 - 8, 8));
    assert(e.message.includes("trapped") && e.cause instanceof WebAssembly.RuntimeError, `${e.message} (cause ${e.cause})`);
    assert(api.countTokens("hello world", "gpt-4o") === 2, "countTokens after the trap");
    assert(api.countMessages([{ role: "user", content: "hello" }], "gpt-4o") === used, "countMessages after the trap");
    const stale = thrown(() => ledger.usedTokens());
    assert(stale.message.includes("made before the WebAssembly module trapped"), stale.message);
    const fresh = new api.TokenLedger("gpt-4o");
    fresh.push({ role: "user", content: "hello" });
    assert(fresh.usedTokens() === used, "a new TokenLedger works");
    fresh.free();
    ledger.free();
  });
}
