// ctxguard-core/pool in Node: a TokenPool of worker_threads.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { TokenPool as Pool } from "./pool.js";

function spawn() {
  const worker = new Worker(new URL("./worker.node.js", import.meta.url));
  worker.unref();
  let listener = () => {};
  worker.on("message", (m) => listener(m));
  worker.on("error", (e) => listener({ type: "error", message: e.message }));
  return { post: (m) => worker.postMessage(m), onMessage: (f) => (listener = f), terminate: () => void worker.terminate() };
}

/** Exact token counts on every core: `new TokenPool({workers})`, then `await pool.count(input, {model})`. */
export class TokenPool extends Pool {
  constructor({ workers } = {}) {
    super(spawn, workers ?? availableParallelism());
  }
}
