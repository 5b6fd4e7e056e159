// Drives tests/wasm-host/index.html (then pool.html: ctxguard-core/pool on module
// Workers) in every browser engine (tests/support/engines.mjs: Chromium, Firefox
// ESR, WebKitGTK), the package through its browser entry. Serves the repository
// root on a free localhost port, runs the page `--runs` times in fresh page loads
// in Chromium (once in the others), prints every failure (prefixed with its
// engine), the init-to-first-count timings and a closing `N passed, M failed`
// line; exits non-zero on any failure. An engine that cannot start is a failure.
//
// Usage: node tests/wasm-host/run.mjs [--runs N] [--engines chromium,firefox,webkit] [--only TEXT]
// (`--only TEXT`: the pool checks whose name holds TEXT, and the host page only when
// "host page: every vector" holds it.)
import { root, serveDirectory } from "../support/browser.mjs";
import { ENGINES, launchEngine } from "../support/engines.mjs";
import { option, sleep, wanted } from "../support/net.mjs";

const runs = Number(option("--runs", "1"));
const engines = option("--engines", ENGINES.join(",")).split(",");
const TIMEOUT_MS = 180_000 * engines.length;

/** Polls `window[name]` in the page until it is `done`. */
async function resultOf(page, name) {
  for (;;) {
    const result = await page.evaluate((key) => (window[key] && window[key].done ? window[key] : null), name);
    if (result) return result;
    await sleep(200);
  }
}

async function main() {
  const site = await serveDirectory(root);
  let engine;
  const deadline = setTimeout(() => {
    console.error(`wasm-host: timed out after ${TIMEOUT_MS / 1000} s`);
    console.log("0 passed, 1 failed");
    process.exit(2);
  }, TIMEOUT_MS);

  let passed = 0;
  let failed = 0;
  const fail = (what) => {
    console.log(`FAIL ${what}`);
    failed += 1;
  };
  const timings = [];
  try {
    for (const name of engines) {
      try {
        engine = await launchEngine(name);
      } catch (e) {
        fail(`[${name}] the browser did not start: ${e.message}`);
        continue;
      }
      console.log(`[${name}] ${engine.version}`);
      const page = await engine.newPage();
      const times = name === "chromium" ? runs : 1;
      for (let run = 0; run < (wanted("host page: every vector") ? times : 0); run++) {
        await page.goto(`${site.origin}/tests/wasm-host/index.html?run=${run}`);
        const result = await resultOf(page, "ctxguardResult");
        if (name === "chromium") timings.push(result.timings);
        if (run === 0) {
          const vectors = Object.values(result.vectorKinds ?? {}).reduce((a, b) => a + b, 0);
          console.log(`[${name}] vectors run through the package: ${vectors} (${JSON.stringify(result.vectorKinds)})`);
          if (vectors !== result.vectorsExpected || vectors < 592) {
            result.failed += 1;
            result.failures.push(`${vectors} vectors ran, expected every case of the JS kinds (${result.vectorsExpected}, at least 592)`);
          }
        }
        for (const f of result.failures) console.log(`FAIL [${name}] host page run ${run}: ${f}`);
        console.log(`[${name}] host page: every vector and check, run ${run}: ${result.passed} passed, ${result.failed} failed`);
        passed += result.passed;
        failed += result.failed;
      }
      // ctxguard-core/pool on module Workers, once.
      await page.goto(`${site.origin}/tests/wasm-host/pool.html`);
      const pool = await resultOf(page, "ctxguardPool");
      for (const r of pool.results.filter((r) => wanted(r.name))) {
        console.log(`${r.ok ? "ok  " : "FAIL"} [${name}] ${r.name}${r.ok ? "" : `\n     ${r.detail}`}`);
        if (r.ok) passed += 1;
        else failed += 1;
      }
      for (const e of page.errors) fail(`[${name}] ${e}`);
      await page.close().catch(() => {});
      await engine.close().catch(() => {});
      engine = undefined;
    }
  } finally {
    clearTimeout(deadline);
    if (engine) await engine.close().catch(() => {});
    await site.close();
  }
  const fmt = (ms) => `${ms.toFixed(1)} ms`;
  timings.forEach((t, i) =>
    console.log(
      `run ${i} (chromium): init() ${fmt(t.init_ms)}, first countTokens(o200k) ${fmt(t.first_count_ms)}, init to first count ${fmt(t.init_to_first_count_ms)}, navigation start to first count ${fmt(t.navigation_to_first_count_ms)}`,
    ),
  );
  if (timings.length > 1) {
    const sorted = timings.map((t) => t.init_to_first_count_ms).sort((a, b) => a - b);
    console.log(`init to first count (chromium): median ${fmt(sorted[Math.floor(sorted.length / 2)])} over ${sorted.length} page loads`);
  }
  if (passed + failed === 0 && option("--only", null) === null) fail("no check ran");
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`wasm-host: ${e.stack ?? e}`);
    console.log("0 passed, 1 failed");
    process.exit(1);
  },
);
