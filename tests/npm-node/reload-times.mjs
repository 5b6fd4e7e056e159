// How reloadMessages scales with the turns it reads (not a test; run.sh does not run
// it): the time of one reloadMessages call on 50 000, 400 000 and 1 000 000 turns (alternating user and
// completed assistant turns, each with a one-message messages_chain), in one Node process.
// Compare rows of one run (or two runs side by side), not runs on different days.
//   node tests/npm-node/reload-times.mjs [PKG_DIR]     (default: pkg/core)
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const pkg = resolve(process.argv[2] ?? "pkg/core");
const api = await import(pathToFileURL(`${pkg}/node.js`).href);

function turns(n) {
  const out = [];
  for (let i = 0; i < n; i += 2) {
    out.push({ role: "USER", status: "COMPLETED", prompt: `question ${i}` });
    out.push({ role: "ASSISTANT", status: "COMPLETED", result: { value: `answer ${i}`, messages_chain: [{ role: "assistant", content: `answer ${i}` }] } });
  }
  return out;
}

api.reloadMessages(turns(1000));
for (const n of [50_000, 400_000, 1_000_000]) {
  const input = turns(n);
  const t0 = performance.now();
  const messages = api.reloadMessages(input);
  const seconds = (performance.now() - t0) / 1000;
  console.log(`reloadMessages: ${n} turns -> ${messages.length} messages in ${seconds.toFixed(2)} s (${((seconds / n) * 1e6).toFixed(2)} µs per turn)`);
}
