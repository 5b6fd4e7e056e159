// Hostile inputs that once cost quadratic time or ~60 bytes of memory a byte (attachment
// headers repeated thousands of times, one unbroken run of 16 and 80 MiB), measured as a
// page meets them: through the
// ctxguard-core package's JS API (Node, the browser entry's glue instantiated here
// so the wasm memory is visible). Usage: node tests/bench/hostile-input.mjs pkg/core (after scripts/build-packages.sh core)
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
const pkg = resolve(process.argv[2]);
const m = await import(pkg + "/ctxguard_core.js");
const wasm = m.initSync({ module: readFileSync(pkg + "/ctxguard_core_bg.wasm") });
const mib = () => (wasm.memory.buffer.byteLength / 2 ** 20).toFixed(1) + " MiB";
const timed = (label, f) => {
  const t = performance.now();
  let out;
  try { out = f(); } catch (e) { out = "threw " + e.constructor.name + ": " + String(e.message).slice(0, 120); }
  console.log(`${label}: ${(performance.now() - t).toFixed(0)} ms, wasm memory ${mib()}`, typeof out === "string" ? out : "");
};
m.countTokens("warm up", "gpt-4o");
console.log("after set-up: wasm memory", mib());
for (const n of [10000, 40000, 160000]) {
  timed(`previewAttachments, "[Attachment: " x ${n} (${(13 * n / 1e6).toFixed(2)} MB)`, () =>
    void m.previewAttachments([{ role: "user", content: "<attachment>" + "[Attachment: ".repeat(n) + "</attachment>" }], "gpt-4o", 1000));
}
timed(`previewAttachments, "[Attachment:  | ID: 1 " x 40000`, () =>
  void m.previewAttachments([{ role: "user", content: "<attachment>" + "[Attachment:  | ID: 1 ".repeat(40000) + "</attachment>" }], "gpt-4o", 1000));
timed('countTokens(" ".repeat(16 MiB))', () => String(m.countTokens(" ".repeat(16 * 2 ** 20), "gpt-4o")) + " tokens");
timed('countTokens(" ".repeat(80 MiB))', () => String(m.countTokens(" ".repeat(80 * 2 ** 20), "gpt-4o")) + " tokens");
timed('countTokens("a".repeat(80 MiB))', () => String(m.countTokens("a".repeat(80 * 2 ** 20), "gpt-4o")) + " tokens");
