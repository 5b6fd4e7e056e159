// TokenPool: exact token counts of large inputs on every core. The same class
// in browsers, bundlers (a module Worker each) and Node (worker_threads); the
// entries `browser.js` and `node.js` give it its way of starting a worker.
import { asBlob, Schedule } from "./plan.js";

/** Why a count stopped: aborted by its signal (a DOMException named AbortError). */
function abortError() {
  return typeof DOMException === "function" ? new DOMException("The count was aborted", "AbortError") : Object.assign(new Error("The count was aborted"), { name: "AbortError" });
}

export class TokenPool {
  #spawn;
  #size;
  #idle = [];
  #closed = false;

  /** `spawn()` starts one worker `{post(message), onMessage(fn), terminate()}`; `workers` is the pool's size. */
  constructor(spawn, workers) {
    if (!Number.isInteger(workers) || workers < 1) throw new TypeError(`workers: expected a whole number ≥ 1, got ${workers}`);
    this.#spawn = spawn;
    this.#size = workers;
  }

  /** Workers the pool counts with. */
  get workers() {
    return this.#size;
  }

  #take() {
    return this.#idle.pop() ?? this.#spawn();
  }

  /**
   * `countTokens(text, model)` of `input` (a string, a Blob or a Uint8Array of UTF-8), on up
   * to `workers` workers; `onProgress(doneBytes, totalBytes)` as it goes; `signal` aborts it
   * (an AbortError). Invalid UTF-8 is an Error naming its byte offset.
   */
  async count(input, { model, onProgress, signal } = {}) {
    if (this.#closed) throw new Error("TokenPool: this pool is closed; make a new one");
    if (typeof model !== "string" || model === "") throw new TypeError('model: expected a model id such as "gpt-4o"');
    if (signal?.aborted) throw abortError();
    const blob = asBlob(input);
    // Ranges are handed out as workers ask, so that they end together (plan.js's Schedule).
    const schedule = new Schedule(blob.size, this.#size);
    const workers = Array.from({ length: schedule.workers }, () => this.#take());
    let done = 0;
    let finished = false;
    const stop = () => {
      finished = true;
      for (const w of workers) w.terminate();
    };
    const jobs = workers.map(
      (worker) =>
        new Promise((resolve, reject) => {
          worker.onMessage((m) => {
            if (finished) return;
            if (m.type === "next") worker.post({ range: schedule.next() });
            else if (m.type === "progress") {
              done += m.bytes;
              onProgress?.(Math.min(done, blob.size), blob.size);
            } else if (m.type === "tokens") resolve(m.tokens);
            else {
              // The ranges before this one decide the error: the others finish theirs, no new ones start.
              schedule.stop();
              reject(m.type === "utf8" ? { offset: m.offset } : new Error(m.message ?? "a pool worker failed"));
            }
          });
          const range = schedule.next();
          // More workers than ranges (a tiny input): this one has nothing to count.
          if (range) worker.post({ blob, range, model });
          else resolve(0);
        }),
    );
    let onAbort;
    const aborted = new Promise((_, reject) => {
      onAbort = () => reject(abortError());
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const counts = await Promise.race([Promise.allSettled(jobs), aborted]);
      const bad = counts.filter((c) => c.status === "rejected").map((c) => c.reason);
      if (bad.length > 0) {
        stop();
        const offsets = bad.filter((r) => typeof r?.offset === "number").map((r) => r.offset);
        if (offsets.length > 0) throw new Error(`input: not valid UTF-8 at byte offset ${Math.min(...offsets)}`);
        throw bad[0];
      }
      finished = true;
      this.#idle.push(...workers);
      return counts.reduce((n, c) => n + c.value, 0);
    } catch (e) {
      if (!finished) stop();
      throw e;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Stops every worker; the pool counts nothing more. */
  close() {
    this.#closed = true;
    for (const w of this.#idle.splice(0)) w.terminate();
  }
}
