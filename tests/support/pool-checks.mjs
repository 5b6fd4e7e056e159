// The checks of ctxguard-core/pool's TokenPool, shared by the Node host
// (tests/npm-node/pool.mjs, worker_threads) and the browser page
// (tests/wasm-host/pool.html, module Workers): the pool's count equals
// `countTokens` of the whole for every input form, encoding and number of
// workers; invalid UTF-8 names its byte offset; progress, abort and close
// behave as the package README says. Environment-free: `checkPool` returns
// `[{name, ok, detail}]`.

/** One model per encoding the package counts with. */
const MODELS = ["gpt-4o", "gpt-4", "text-davinci-003", "davinci"];

/** A deterministic pseudo-random generator (xorshift32), so every run cuts the same text. */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

/** Pieces that stress the pre-tokenizers' boundaries: whitespace runs, newlines, contractions, digits, CJK, emoji, code. */
const PIECES = [
  "The quick brown fox jumps over the lazy dog. ",
  "It's what they'd've said, isn't it? ",
  "  \n\n  indented\n\tline\r\n",
  "12345678901234567890 and 3.14159, 1,000,000 ",
  "上下文窗口的管理，让模型保持专注。",
  "日本語のテキストと、カタカナ。",
  "😀👍🏽 emoji 🇫🇷 ",
  "fn main() {\n    let x = vec![1, 2, 3];\n    println!(\"{x:?}\");\n}\n",
  "<div class=\"a\">&nbsp;</div>\n",
  "\n\n\n",
  "    ",
  "ÀÉÎÕÜ àéîõü ß ",
  "----====****\n",
  "'''\"\"\"",
  "x",
];

/** About `bytes` of mixed text, the same for a given seed. */
export function mixedText(bytes, seed = 7) {
  const next = rng(seed);
  const parts = [];
  let size = 0;
  while (size < bytes) {
    const piece = PIECES[Math.floor(next() * PIECES.length)];
    parts.push(piece);
    size += piece.length * 1.5;
  }
  return parts.join("");
}

/** Runs `fn` as one named check; a thrown error is its failure. */
export async function check(results, name, fn) {
  try {
    await fn();
    results.push({ name, ok: true, detail: "" });
  } catch (e) {
    results.push({ name, ok: false, detail: String(e?.stack ?? e) });
  }
}

/** Throws unless `actual === expected`, naming `what`. */
export function equal(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: expected ${expected}, got ${actual}`);
}

/**
 * Every check of the pool. `core` is the package's main entry (countTokens),
 * `TokenPool` the pool class of the entry under test, `label` prefixes the names.
 */
export async function checkPool(core, TokenPool, label) {
  const results = [];
  const text = mixedText(5 * 1024 * 1024);
  const bytes = new TextEncoder().encode(text);
  const expected = Object.fromEntries(MODELS.map((m) => [m, core.countTokens(text, m)]));

  for (const workers of [1, 2, 3]) {
    const pool = new TokenPool({ workers });
    try {
      for (const model of MODELS) {
        await check(results, `${label}: ${workers} worker(s), ${model}, 5 MB string equals countTokens`, async () =>
          equal(await pool.count(text, { model }), expected[model], "count"),
        );
      }
      await check(results, `${label}: ${workers} worker(s), Blob and Uint8Array equal the string`, async () => {
        equal(await pool.count(new Blob([bytes]), { model: "gpt-4o" }), expected["gpt-4o"], "Blob");
        equal(await pool.count(bytes, { model: "gpt-4o" }), expected["gpt-4o"], "Uint8Array");
      });
    } finally {
      pool.close();
    }
  }

  const pool = new TokenPool({ workers: 2 });
  try {
    await check(results, `${label}: default size is at least one worker`, () => {
      const p = new TokenPool();
      try {
        if (!(p.workers >= 1)) throw new Error(`workers = ${p.workers}`);
      } finally {
        p.close();
      }
    });
    await check(results, `${label}: small and empty inputs`, async () => {
      equal(await pool.count("", { model: "gpt-4o" }), 0, "empty");
      const small = mixedText(50_000, 3);
      equal(await pool.count(small, { model: "gpt-4" }), core.countTokens(small, "gpt-4"), "small");
    });
    await check(results, `${label}: texts of many boundaries near every planned cut (2 workers)`, async () => {
      // Texts of repeated short pieces put a candidate boundary near every planned cut.
      for (const seed of [11, 12, 13]) {
        const t = mixedText(3 * 1024 * 1024, seed);
        equal(await pool.count(t, { model: "gpt-4o" }), core.countTokens(t, "gpt-4o"), `seed ${seed}`);
      }
    });
    await check(results, `${label}: inputs of every length around the ranges handed out equal countTokens (2 and 3 workers)`, async () => {
      // Each length moves every range's bounds (the ranges follow the remaining bytes), so
      // each puts other offsets at the sure-split searches of both sides of a range.
      const source = new TextEncoder().encode(mixedText(10 * 1024 * 1024, 31));
      const three = new TokenPool({ workers: 3 });
      try {
        for (const size of [1024 * 1024 - 1, 1024 * 1024, 1024 * 1024 + 1, 1536 * 1024 + 13, 4 * 1024 * 1024 + 129, 9 * 1024 * 1024 + 5]) {
          // Cut at a character's start, so that the text is valid UTF-8.
          let end = size;
          while ((source[end] & 0xc0) === 0x80) end -= 1;
          const t = new TextDecoder().decode(source.subarray(0, end));
          const want = core.countTokens(t, "gpt-4o");
          equal(await pool.count(t, { model: "gpt-4o" }), want, `${size} bytes, 2 workers`);
          equal(await three.count(new Blob([t]), { model: "gpt-4o" }), want, `${size} bytes, 3 workers`);
        }
      } finally {
        three.close();
      }
    });
    await check(results, `${label}: inputs over several read chunks, one piece longer than a chunk, equal countTokens (1 and 2 workers)`, async () => {
      // 12 MB of text, 9 MiB of one letter (no sure split inside it: a step's window finds
      // none and the range reads on past its chunk), then more text: every path of countRange.
      const long = mixedText(12 * 1024 * 1024, 21) + "a".repeat(9 * 1024 * 1024) + " " + mixedText(3 * 1024 * 1024, 22);
      const want = core.countTokens(long, "gpt-4o");
      const one = new TokenPool({ workers: 1 });
      try {
        equal(await one.count(long, { model: "gpt-4o" }), want, "1 worker");
      } finally {
        one.close();
      }
      equal(await pool.count(long, { model: "gpt-4o" }), want, "2 workers");
    });
    await check(results, `${label}: invalid UTF-8 past the first slice names its byte offset`, async () => {
      const bad = bytes.slice();
      const at = 3 * 1024 * 1024 + 17;
      // 0xFF is never valid UTF-8, wherever it stands.
      bad[at] = 0xff;
      let error;
      try {
        await pool.count(bad, { model: "gpt-4o" });
      } catch (e) {
        error = e;
      }
      if (!(error instanceof Error)) throw new Error(`expected an Error, got ${error}`);
      const m = /byte offset (\d+)/.exec(error.message);
      if (!m) throw new Error(`the message names no offset: ${error.message}`);
      const offset = Number(m[1]);
      // The offset is where decoding fails: the byte itself, or the start of the sequence it breaks.
      if (offset > at || at - offset > 3) throw new Error(`offset ${offset}, the bad byte is at ${at}`);
    });
    await check(results, `${label}: onProgress reaches the total`, async () => {
      const calls = [];
      await pool.count(text, { model: "gpt-4o", onProgress: (done, total) => calls.push([done, total]) });
      if (calls.length === 0) throw new Error("onProgress was never called");
      const [done, total] = calls[calls.length - 1];
      equal(total, bytes.length, "total");
      equal(done, bytes.length, "last done");
      for (let i = 1; i < calls.length; i++) if (calls[i][0] < calls[i - 1][0]) throw new Error("progress went back");
    });
    await check(results, `${label}: abort rejects with an AbortError within 100 ms`, async () => {
      const big = mixedText(40 * 1024 * 1024, 5);
      const controller = new AbortController();
      const counting = pool.count(big, { model: "gpt-4o", signal: controller.signal });
      await new Promise((r) => setTimeout(r, 30));
      const abortedAt = performance.now();
      controller.abort();
      let error;
      try {
        await counting;
      } catch (e) {
        error = e;
      }
      const ms = performance.now() - abortedAt;
      equal(error?.name, "AbortError", "error name");
      if (ms > 100) throw new Error(`rejected ${ms.toFixed(1)} ms after abort()`);
      // The pool still counts after an aborted count.
      equal(await pool.count("hello world", { model: "gpt-4o" }), 2, "count after abort");
    });
    await check(results, `${label}: an aborted signal rejects at once; bad arguments are TypeErrors`, async () => {
      const c = new AbortController();
      c.abort();
      const e1 = await pool.count("x", { model: "gpt-4o", signal: c.signal }).catch((e) => e);
      equal(e1?.name, "AbortError", "pre-aborted");
      const e2 = await pool.count("x", {}).catch((e) => e);
      equal(e2 instanceof TypeError, true, "no model is a TypeError");
      const e3 = await pool.count(42, { model: "gpt-4o" }).catch((e) => e);
      equal(e3 instanceof TypeError, true, "a number is a TypeError");
    });
  } finally {
    pool.close();
  }
  await check(results, `${label}: a closed pool refuses with a clear Error`, async () => {
    const e = await pool.count("x", { model: "gpt-4o" }).catch((err) => err);
    if (!(e instanceof Error) || !/closed/.test(e.message)) throw new Error(`got ${e}`);
  });
  return results;
}
