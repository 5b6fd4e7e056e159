// Drives tests/wasm-host/index.html (then pool.html: ctxguard-core/pool) in headless Chromium (tests/support's
// driver), the package through its browser entry. Serves the repository root
// on a free localhost port, runs the page `--runs` times in fresh page loads,
// prints every failure, the init-to-first-count timings and a closing
// `N passed, M failed` line; exits non-zero on any failure.
//
// Usage: node tests/wasm-host/run.mjs [--runs N] [--chromium PATH] [--only TEXT]
// (`--only TEXT`: the pool checks whose name holds TEXT, and the host page only when
// "host page" holds it.)
import { openBrowser } from "../support/browser.mjs";
import { option, wanted } from "../support/net.mjs";

const runs = Number(option("--runs", "1"));
const TIMEOUT_MS = 180_000;

async function main() {
  const browser = await openBrowser();
  const deadline = setTimeout(() => {
    console.error(`wasm-host: timed out after ${TIMEOUT_MS / 1000} s`);
    browser.close().finally(() => process.exit(2));
  }, TIMEOUT_MS);

  let passed = 0;
  let failed = 0;
  const timings = [];
  try {
    for (let run = 0; run < (wanted("host page: every vector") ? runs : 0); run++) {
      await browser.goto(`/tests/wasm-host/index.html?run=${run}`);
      let result;
      for (;;) {
        result = await browser.execute(
          "return window.ctxguardResult && window.ctxguardResult.done ? window.ctxguardResult : null;",
        );
        if (result) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      timings.push(result.timings);
      if (run === 0) {
        const vectors = Object.values(result.vectorKinds ?? {}).reduce((a, b) => a + b, 0);
        console.log(`vectors run through the package: ${vectors} (${JSON.stringify(result.vectorKinds)})`);
        if (vectors !== result.vectorsExpected || vectors < 592) {
          result.failed += 1;
          result.failures.push(`${vectors} vectors ran, expected every case of the JS kinds (${result.vectorsExpected}, at least 592)`);
        }
      }
      for (const f of result.failures) console.log(`FAIL run ${run}: ${f}`);
      passed += result.passed;
      failed += result.failed;
    }
    // ctxguard-core/pool on module Workers, once.
    await browser.goto("/tests/wasm-host/pool.html");
    let pool;
    for (;;) {
      pool = await browser.execute("return window.ctxguardPool && window.ctxguardPool.done ? window.ctxguardPool : null;");
      if (pool) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const r of pool.results.filter((r) => wanted(r.name))) {
      console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name}${r.ok ? "" : `\n     ${r.detail}`}`);
      if (r.ok) passed += 1;
      else failed += 1;
    }
  } finally {
    clearTimeout(deadline);
    await browser.close();
  }
  const fmt = (ms) => `${ms.toFixed(1)} ms`;
  timings.forEach((t, i) =>
    console.log(
      `run ${i}: init() ${fmt(t.init_ms)}, first countTokens(o200k) ${fmt(t.first_count_ms)}, init to first count ${fmt(t.init_to_first_count_ms)}, navigation start to first count ${fmt(t.navigation_to_first_count_ms)}`,
    ),
  );
  if (timings.length > 1) {
    const sorted = timings.map((t) => t.init_to_first_count_ms).sort((a, b) => a - b);
    console.log(`init to first count: median ${fmt(sorted[Math.floor(sorted.length / 2)])} over ${sorted.length} page loads`);
  }
  if (passed + failed === 0) {
    console.log("FAIL no check ran (--only matched nothing)");
    failed += 1;
  }
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
