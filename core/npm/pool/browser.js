// ctxguard-core/pool in browsers and bundlers: a TokenPool of module Workers
// (`new Worker(new URL("./worker.js", import.meta.url), {type: "module"})`, which
// Vite and webpack follow with no configuration; a strict CSP needs `worker-src 'self'`).
import { TokenPool as Pool } from "./pool.js";

function spawn() {
  const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  let listener = () => {};
  worker.onmessage = ({ data }) => listener(data);
  worker.onerror = (e) => {
    e.preventDefault();
    listener({ type: "error", message: e.message || "a pool worker could not start" });
  };
  return { post: (m) => worker.postMessage(m), onMessage: (f) => (listener = f), terminate: () => worker.terminate() };
}

/** Exact token counts on every core: `new TokenPool({workers})`, then `await pool.count(input, {model})`. */
export class TokenPool extends Pool {
  constructor({ workers } = {}) {
    super(spawn, workers ?? Math.max(1, globalThis.navigator?.hardwareConcurrency ?? 1));
  }
}
