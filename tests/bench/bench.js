// The browser bench page: ctxguard's npm package (release build) beside five
// JS tokenizers from the npm registry, all o200k, on the same inputs in the
// same page. Driven by run.mjs through chromedriver; the result is left in
// `window.benchResult`. The inputs are the files scripts/bench.sh wrote with
// tests/bench/corpus.mjs (`corpus=` folder, served from the repository root).
//
//   ?mode=init&tok=NAME             fresh page: time from loading NAME to its first count result
//   ?mode=cold&tok=NAME&input=KEY   fresh page: NAME set up and warmed on a probe, then the
//                                   first count of input KEY (a text this page has not seen)
//   ?mode=warm&tok=NAME&input=KEY   fresh page: as cold, after counting KEY-2 (another text of the same kind)
//   ?mode=fresh&tok=NAME&input=KEY&before=OTHER
//                                   fresh page: as cold, after counting OTHER (the race's "fresh text
//                                   of the same kind after a warm-up": caches kept, new text)
//   ?mode=again&tok=NAME&input=KEY  fresh page: as cold, after counting KEY itself once (the race's
//                                   "warm": each engine's caches kept, the same text again)
//   ?mode=initparts                 fresh page: ctxguard's init split into its parts (import of
//                                   the glue, fetch, compile, instantiate, o200k set-up + first count)
//   ?mode=run                       every tokenizer: count checks, repeated-run MB/s, worst cases
// Every mode takes `pkg=` (the folder of ctxguard's npm package, from the repository root;
// default pkg/core).

const params = new URLSearchParams(location.search);
const PKG = `/${params.get("pkg") ?? "pkg/core"}`;
const CORPUS = `/${params.get("corpus") ?? "tests/bench/.corpus"}`;
const NM = "/tests/bench/node_modules";
const MODEL = "gpt-4o"; // o200k_base
const PROBE = "hello world";

/**
 * Each loader resolves to `{ count(text) -> number, reset?() }`, starting from nothing loaded.
 * `reset` empties a cache kept across calls where the tokenizer offers a way to (gpt-tokenizer's
 * merge cache, ai-tokenizer's), so that a timed run counts its text as new text. Where it offers
 * none, the cache stays warm between calls in one page: ctxguard keeps a piece cache per encoding
 * (at most 4 MiB) and hypertok a long-piece cache (unbounded, keyed on the whole piece); only a fresh
 * page (the cold modes) starts them empty (tests/bench/race.mjs's `CACHES` says so in the tables).
 */
export const TOKENIZERS = {
  ctxguard: async () => {
    const m = await import(`${PKG}/ctxguard_core.js`);
    const wasm = await m.default();
    return { count: (s) => m.countTokens(s, MODEL), memory: () => wasm.memory.buffer.byteLength };
  },
  "gpt-tokenizer": async () => {
    const m = await import(`${NM}/gpt-tokenizer/esm/encoding/o200k_base.js`);
    // Ordinary encoding: special-token text is plain text, as in ctxguard.
    const plain = { disallowedSpecial: new Set() };
    return { count: (s) => m.countTokens(s, plain), reset: () => m.clearMergeCache() };
  },
  hypertok: async () => {
    // As its README loads it: the vocabulary package's URL fetched, its bytes to `fromBytes`;
    // the `single` tier (the calling thread, synchronous `encodeSync`).
    const [{ fromBytes }, { vocabulary }] = await Promise.all([import("hypertok"), import("@hypertok/vocab-o200k")]);
    const bytes = new Uint8Array(await (await fetch(vocabulary)).arrayBuffer());
    const enc = await fromBytes(bytes, { tier: "single" });
    // Its plain path matches reserved-token text (`<|endoftext|>`) as special tokens; ctxguard
    // counts that text as plain text, which hypertok does with `reserved: { match: [] }` (a slower
    // path, taken only for a text that contains `<|`).
    const literal = { reserved: { match: [] } };
    return { count: (s) => enc.encodeSync(s, s.includes("<|") ? literal : undefined).length };
  },
  "js-tiktoken": async () => {
    const [{ Tiktoken }, ranks] = await Promise.all([
      import(`${NM}/js-tiktoken/dist/lite.js`),
      import(`${NM}/js-tiktoken/dist/ranks/o200k_base.js`),
    ]);
    const enc = new Tiktoken(ranks.default);
    return { count: (s) => enc.encode(s, [], []).length };
  },
  "ai-tokenizer": async () => {
    const [{ Tokenizer }, o200k] = await Promise.all([
      import(`${NM}/ai-tokenizer/dist/index.js`),
      import(`${NM}/ai-tokenizer/dist/encoding/o200k_base.js`),
    ]);
    const enc = new Tokenizer(o200k);
    // allowedSpecial "all" takes its ordinary path, where special-token text is plain text.
    return { count: (s) => enc.encode(s, "all").length, reset: () => enc.mergeCache.clear() };
  },
  "tiktoken (npm wasm)": async () => {
    const m = await import(`${NM}/tiktoken/lite/init.js`);
    await m.init((imports) => WebAssembly.instantiateStreaming(fetch(`${NM}/tiktoken/lite/tiktoken_bg.wasm`), imports));
    const data = await (await fetch(`${NM}/tiktoken/encoders/o200k_base.json`)).json();
    const enc = new m.Tiktoken(data.bpe_ranks, data.special_tokens, data.pat_str);
    return { count: (s) => enc.encode_ordinary(s).length };
  },
};

const result = { done: false, error: null, progress: "starting" };
window.benchResult = result;
const yieldToBrowser = () => new Promise((r) => setTimeout(r, 0));
const utf8 = (s) => new TextEncoder().encode(s).length;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timeOnce(fn, tk) {
  tk?.reset?.();
  await yieldToBrowser();
  const t0 = performance.now();
  const out = fn();
  return { ms: performance.now() - t0, out };
}

/**
 * One warm-up, then runs until 2 s have been spent (at least 3, at most 10): the median.
 * With `keepCache`, a tokenizer's cross-call cache stays warm between the runs.
 */
async function throughput(tk, text, keepCache = false) {
  const bytes = utf8(text);
  const reset = keepCache ? null : tk;
  const warm = await timeOnce(() => tk.count(text), reset);
  const times = [];
  let spent = 0;
  while (times.length < 3 || (spent < 2000 && times.length < 10)) {
    const { ms } = await timeOnce(() => tk.count(text), reset);
    times.push(ms);
    spent += ms;
  }
  const ms = median(times);
  return { tokens: warm.out, bytes, ms, mbps: bytes / 1e6 / (ms / 1000), runs: times.length };
}

/** The longest prefix of `text` of at most `bytes` bytes of UTF-8 (cut at a whole character). */
const prefix = (text, bytes) => text.slice(0, new TextEncoder().encodeInto(text, new Uint8Array(bytes)).read);

/**
 * Worst case: prefixes growing 4× at a time from 1 KiB to 1 MB (in bytes of UTF-8), stopping
 * before a size whose time, extrapolated quadratically from the last one, would pass `LIMIT_MS`
 * (tiktoken's merge is quadratic in the length of one piece, and the `a`, letters and cjk inputs
 * are one piece). A step's `size` is the bytes of its prefix.
 */
const LIMIT_MS = 10_000;
async function worstCase(tk, text) {
  const total = utf8(text);
  const sizes = [1024, 4096, 16_384, 65_536, 262_144, total];
  await timeOnce(() => tk.count(prefix(text, 256)), tk);
  const steps = [];
  for (const bytes of sizes) {
    const last = steps.at(-1);
    if (last && last.ms * (bytes / last.size) ** 2 > LIMIT_MS) break;
    const part = prefix(text, bytes);
    const size = utf8(part);
    const runs = [];
    // Repeat fast runs for a steadier figure.
    do runs.push(await timeOnce(() => tk.count(part), tk));
    while (runs.length < 3 && runs[0].ms < 1000);
    steps.push({ size, ms: median(runs.map((r) => r.ms)), tokens: runs[0].out });
  }
  const last = steps.at(-1);
  return { ...last, complete: last.size === total, steps: steps.map(({ size, ms }) => ({ size, ms })) };
}

/** The bench input `key`, as the bench wrote it. */
async function input(key) {
  const res = await fetch(`${CORPUS}/${key}.txt`);
  if (!res.ok) throw new Error(`${CORPUS}/${key}.txt: HTTP ${res.status} (scripts/bench.sh writes the inputs)`);
  return res.text();
}

/**
 * A fresh page's first count of `key` (after counting `before` when given: another text of the
 * kind, or `key` itself for the same text again).
 */
async function coldMode(name, key, before) {
  const text = await input(key);
  const first = before === key ? text : before ? await input(before) : null;
  const tk = await TOKENIZERS[name]();
  tk.count(PROBE);
  const memory = tk.memory?.() ?? null;
  if (first) tk.count(first);
  await yieldToBrowser();
  const t0 = performance.now();
  const tokens = tk.count(text);
  const ms = performance.now() - t0;
  Object.assign(result, { name, input: key, bytes: utf8(text), tokens, ms, memory_after_setup: memory, memory_after: tk.memory?.() ?? null });
}

async function initMode(name) {
  const t0 = performance.now();
  const tk = await TOKENIZERS[name]();
  const tokens = tk.count(PROBE);
  const ms = performance.now() - t0;
  Object.assign(result, { name, init_ms: ms, tokens });
}

/**
 * Where ctxguard's init → first count goes, in this page: the glue's import, the .wasm's fetch
 * (to its last byte), `WebAssembly.compile`, instantiation through the glue, the first count
 * (o200k's set-up on first use, then a probe) and a second count (the probe's cost alone).
 * `init()` itself streams (fetch and compile overlap); this runs them one after the other.
 */
async function initPartsMode() {
  const lap = (() => {
    let t = performance.now();
    return () => {
      const now = performance.now();
      const ms = now - t;
      t = now;
      return ms;
    };
  })();
  const m = await import(`${PKG}/ctxguard_core.js`);
  const import_ms = lap();
  const bytes = await (await fetch(`${PKG}/ctxguard_core_bg.wasm`)).arrayBuffer();
  const fetch_ms = lap();
  const module = await WebAssembly.compile(bytes);
  const compile_ms = lap();
  await m.default({ module_or_path: module });
  const instantiate_ms = lap();
  const tokens = m.countTokens(PROBE, MODEL);
  const first_count_ms = lap();
  m.countTokens(`${PROBE} again`, MODEL);
  const second_count_ms = lap();
  m.countTokens(PROBE, "gpt-4");
  const cl100k_first_count_ms = lap();
  Object.assign(result, { name: "ctxguard", wasm_bytes: bytes.byteLength, import_ms, fetch_ms, compile_ms, instantiate_ms, first_count_ms, second_count_ms, cl100k_first_count_ms, tokens });
}

/** The worst cases: 1 MB of one repeated character, of random letters, of base64, of random CJK (report.mjs's WORST). */
const WORST = ["a", "letters", "base64", "cjk"];
const INPUTS = ["mixed", "prose", "en", "zh", "code", ...WORST];

async function runMode(only) {
  const inputs = Object.fromEntries(await Promise.all(INPUTS.map(async (k) => [k, await input(k)])));
  result.bytes = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, utf8(v)]));
  const vectors = (await (await fetch("/tests/conformance/vectors.jsonl")).text())
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((v) => v.kind === "count_text")
    .map((v) => ({ id: v.id, text: v.text }));
  const loaded = {};
  // ctxguard always runs: it is what the others are checked against.
  const names = Object.keys(TOKENIZERS).filter((n) => !only || n === "ctxguard" || only.includes(n));
  for (const name of names) {
    result.progress = `loading ${name}`;
    loaded[name] = await TOKENIZERS[name]();
  }
  const ours = loaded.ctxguard;
  const mismatches = [];
  const compare = (name, what, theirs, expected) => {
    if (theirs !== expected) mismatches.push({ tokenizer: name, input: what, ctxguard: expected, theirs });
  };
  // Counts on the conformance texts (under o200k) and on the whole inputs.
  result.progress = "checking counts";
  for (const [name, tk] of Object.entries(loaded)) {
    if (name === "ctxguard") continue;
    for (const v of vectors) compare(name, v.id, tk.count(v.text), ours.count(v.text));
    for (const key of ["mixed", "prose", "en", "zh", "code", "base64"]) compare(name, key, tk.count(inputs[key]), ours.count(inputs[key]));
    await yieldToBrowser();
  }
  result.vectors_checked = vectors.length;
  const tokenizers = {};
  for (const [name, tk] of Object.entries(loaded)) {
    const r = (tokenizers[name] = {});
    for (const key of ["mixed", "prose", "en", "zh", "code"]) {
      result.progress = `${name}: ${key} throughput`;
      r[key] = await throughput(tk, inputs[key]);
      if (tk.reset) r[`${key}_warm_cache`] = await throughput(tk, inputs[key], true);
    }
    r.worst = {};
    for (const key of WORST) {
      result.progress = `${name}: worst case ${key}`;
      const w = await worstCase(tk, inputs[key]);
      r.worst[key] = w;
      if (name !== "ctxguard") compare(name, `${key} (${w.size} B)`, w.tokens, ours.count(prefix(inputs[key], w.size)));
    }
  }
  result.progress = "ctxguard: ledger snapshot";
  result.ledger = await ledgerSnapshot(inputs.mixed);
  Object.assign(result, { tokenizers, mismatches, userAgent: navigator.userAgent });
}

/**
 * The ledger snapshot target in wasm: a ~1.7 M-token history in a `TokenLedger`; time appending one
 * message and taking a snapshot, against `contextMetrics` recounting the whole history once.
 */
async function ledgerSnapshot(text) {
  const m = await import(`${PKG}/ctxguard_core.js`);
  const chunk = 4000; // characters per message
  const history = [];
  for (let i = 0, at = 0; history.length < 1140; i++, at = (at + chunk) % (text.length - chunk)) {
    history.push({ role: i % 2 ? "assistant" : "user", content: text.slice(at, at + chunk) });
  }
  const ledger = new m.TokenLedger(MODEL);
  ledger.pushAll(history);
  const historyTokens = ledger.usedTokens();
  // The browser clock is coarse (tens of µs): time batches of appends and report the mean.
  const batch = 200;
  const times = [];
  for (let round = 0; round < 7; round++) {
    const t0 = performance.now();
    let snap = null;
    for (let i = 0; i < batch; i++) {
      ledger.push({ role: "user", content: `one more question, number ${round * batch + i}` });
      snap = ledger.snapshot();
    }
    times.push((performance.now() - t0) / batch);
    if (snap.used_input_tokens <= historyTokens) throw new Error("ledger snapshot did not grow");
  }
  await yieldToBrowser();
  const t0 = performance.now();
  const full = m.contextMetrics(history, MODEL);
  const recountMs = performance.now() - t0;
  if (full.used_input_tokens !== historyTokens) throw new Error(`ledger ${historyTokens} != recount ${full.used_input_tokens}`);
  ledger.free();
  return { history_tokens: historyTokens, messages: history.length, append_snapshot_ms: median(times), recount_ms: recountMs, batch };
}

async function main() {
  try {
    if (params.get("mode") === "warmup") result.warmup = true;
    else if (params.get("mode") === "init") await initMode(params.get("tok"));
    else if (params.get("mode") === "initparts") await initPartsMode();
    else if (params.get("mode") === "cold") await coldMode(params.get("tok"), params.get("input"), null);
    else if (params.get("mode") === "warm") await coldMode(params.get("tok"), params.get("input"), `${params.get("input")}-2`);
    else if (params.get("mode") === "fresh") await coldMode(params.get("tok"), params.get("input"), params.get("before"));
    else if (params.get("mode") === "again") await coldMode(params.get("tok"), params.get("input"), params.get("input"));
    else await runMode(params.get("only")?.split(","));
  } catch (e) {
    result.error = String(e && e.stack ? e.stack : e);
  }
  result.done = true;
  document.getElementById("status").textContent = result.error ? "failed" : "done";
  document.getElementById("report").textContent = JSON.stringify(result, null, 2);
}

main();
