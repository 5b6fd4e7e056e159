// The checks of the TokenPool's plan (ctxguard-core's pool/plan.js), without
// workers: the Schedule hands out every byte once, in order, in ranges that
// shrink as the input runs out, so that workers fed from it end together even
// when one part of a text counts far slower than another (a simulation on a
// virtual clock, not a timed run); and a worker's side of the protocol
// (`serve`) over the real engine asks for its next range before it counts the
// current one, and its counts and progress add up. Environment-free:
// `checkPlan(plan, core, label)` returns `[{name, ok, detail}]`.

import { check, equal } from "./pool-checks.mjs";

const MB = 1024 * 1024;

/** Every range a fresh Schedule hands out. */
function drain(plan, size, workers) {
  const schedule = new plan.Schedule(size, workers);
  const out = [];
  for (let r = schedule.next(); r; r = schedule.next()) {
    out.push(r);
    if (out.length > 1e5) throw new Error("the schedule never ends");
  }
  return { workers: schedule.workers, ranges: out };
}

/**
 * W workers on a virtual clock, each counting the ranges it is handed at `msPerByte(offset)`
 * and holding one range ahead (as `serve` asks for its next range when it starts one):
 * the time each worker ends.
 */
function simulate(plan, size, workers, msPerByte) {
  const schedule = new plan.Schedule(size, workers);
  const cost = ([a, b]) => {
    let ms = 0;
    for (let at = a; at < b; ) {
      const end = Math.min(b, (Math.floor(at / MB) + 1) * MB);
      ms += (end - at) * msPerByte(at);
      at = end;
    }
    return ms;
  };
  const state = Array.from({ length: schedule.workers }, () => ({ now: 0, current: schedule.next(), ahead: null }));
  for (;;) {
    // The worker whose clock is earliest acts next: it asks for the range after its current one, then counts it.
    const live = state.filter((w) => w.current);
    if (live.length === 0) break;
    const w = live.reduce((a, b) => (b.now < a.now ? b : a));
    w.ahead = schedule.next();
    w.now += cost(w.current);
    w.current = w.ahead;
  }
  return state.map((w) => w.now);
}

/** Every check of the plan; `plan` is the package's pool/plan.js, `core` its Node entry. */
export async function checkPlan(plan, core, label) {
  const results = [];
  const { Schedule, READ_BYTES, MIN_RANGE_BYTES, SPLIT_FROM_BYTES } = plan;

  await check(results, `${label}: the schedule hands out every byte once, in order, in ranges of at most a read`, () => {
    for (const size of [0, 1, SPLIT_FROM_BYTES - 1, SPLIT_FROM_BYTES, 5 * MB + 3, 100 * MB, 1024 * MB + 7]) {
      for (const workers of [1, 2, 3, 8]) {
        const { workers: used, ranges } = drain(plan, size, workers);
        const what = `${size} bytes, ${workers} workers`;
        if (size === 0) {
          equal(JSON.stringify(ranges), "[[0,0]]", `${what}: an empty input is one empty range`);
          continue;
        }
        let at = 0;
        for (const [a, b] of ranges) {
          equal(a, at, `${what}: a range starts where the one before ended`);
          if (!(b > a)) throw new Error(`${what}: empty range [${a}, ${b})`);
          if (size >= SPLIT_FROM_BYTES && b - a > READ_BYTES) throw new Error(`${what}: range of ${b - a} bytes, over a read`);
          at = b;
        }
        equal(at, size, `${what}: the last range ends at the end`);
        if (size < SPLIT_FROM_BYTES) equal(ranges.length, 1, `${what}: a small input is one range`);
        else if (ranges.at(-1)[1] - ranges.at(-1)[0] < MIN_RANGE_BYTES) throw new Error(`${what}: a last range under ${MIN_RANGE_BYTES} bytes`);
        if (used > Math.max(1, Math.ceil(size / SPLIT_FROM_BYTES)) || used > workers || used < 1) throw new Error(`${what}: ${used} workers used`);
      }
    }
    const s = new Schedule(50 * MB, 2);
    s.next();
    s.stop();
    equal(s.next(), null, "after stop()");
  });

  await check(results, `${label}: workers fed by the schedule end together when part of the text counts 8× slower (virtual clock)`, () => {
    // Chinese counts several times slower per byte than English: a slow quarter at the start, the middle or the end.
    for (const [where, slow] of [
      ["start", (at, size) => at < size / 4],
      ["middle", (at, size) => at >= size * 0.4 && at < size * 0.65],
      ["end", (at, size) => at >= (size * 3) / 4],
    ]) {
      for (const [size, workers] of [[100 * MB, 2], [100 * MB, 3], [18 * MB, 2], [3 * MB, 2]]) {
        const ends = simulate(plan, size, workers, (at) => (slow(at, size) ? 8 : 1));
        const spread = Math.max(...ends) - Math.min(...ends);
        const ideal = ends.reduce((a, b) => a + b, 0) / ends.length;
        // Within 3% of the count, or of two shortest ranges counted slowly (a worker holds one
        // range ahead; a few MB are only a few dozen ranges).
        const bound = Math.max(ideal * 0.03, 2 * 8 * MIN_RANGE_BYTES);
        if (spread > bound) throw new Error(`slow ${where}, ${size} bytes, ${workers} workers: ends ${ends.map(Math.round).join(", ")} (${spread} apart, over ${bound})`);
      }
    }
  });

  await check(results, `${label}: a worker asks for its next range before counting the current one; counts and progress add up`, async () => {
    const parts = ["English prose, with numbers 12345 and more.\n", "上下文窗口的管理，让模型保持专注。\n", "fn main() { println!(\"{}\", 1); }\n"];
    let text = "";
    for (let i = 0; text.length < 6 * MB; i++) text += parts[i % 3].repeat(1 + (i % 7));
    const blob = new Blob([text]);
    const schedule = new Schedule(blob.size, 1);
    const events = [];
    let tokens = null;
    let progressed = 0;
    let handle;
    const done = new Promise((resolve, reject) => {
      handle = plan.serve({ countTokenBytes: core.countTokenBytes, nextSplit: core.nextSplit }, (m) => {
        events.push(m.type);
        if (m.type === "next") queueMicrotask(() => handle({ range: schedule.next() }));
        else if (m.type === "progress") progressed += m.bytes;
        else if (m.type === "tokens") resolve((tokens = m.tokens));
        else reject(new Error(JSON.stringify(m)));
      });
    });
    handle({ blob, model: "gpt-4o", range: schedule.next() });
    await done;
    equal(tokens, core.countTokens(text, "gpt-4o"), "tokens");
    equal(progressed, blob.size, "progress");
    if (events[0] !== "next") throw new Error(`the first message was ${events[0]}, not a request for the next range`);
    const asks = events.filter((e) => e === "next").length;
    if (asks < 2) throw new Error(`${asks} requests for 6 MB on one worker: one range only`);
  });
  return results;
}
