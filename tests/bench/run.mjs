// Drives tests/bench/index.html in one headless Chromium session (tests/support's
// driver), as tests/wasm-host/run.mjs does. Serves the repository root on a free localhost
// port; measures each tokenizer's init on `--inits` fresh page loads, then runs
// the throughput / worst-case page once; prints the table and writes the raw
// result as JSON to `--out`.
//
// Usage: node tests/bench/run.mjs [--out FILE] [--inits N] [--only NAME,…] [--chromium PATH]
// (--only: run just these tokenizers beside ctxguard, e.g. `--only ctxguard` while tuning it).
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openBrowser, root } from "../support/browser.mjs";
import { option, sleep } from "../support/net.mjs";
import { browserTable } from "./report.mjs";

const out = option("--out", null);
const inits = Number(option("--inits", "5"));
const TIMEOUT_MS = 9 * 60_000;
const ALL = ["ctxguard", "gpt-tokenizer", "js-tiktoken", "tiktoken (npm wasm)"];
const only = option("--only", null)?.split(",");
for (const name of only ?? []) {
  if (!ALL.includes(name)) {
    console.error(`browser bench: --only: unknown tokenizer ${JSON.stringify(name)} (known: ${ALL.join(", ")})`);
    process.exit(2);
  }
}
const TOKENIZERS = ALL.filter((n) => !only || n === "ctxguard" || only.includes(n));

async function main() {
  for (const p of ["pkg/core/ctxguard_core.js", "pkg/core/ctxguard_core_bg.wasm", "tests/bench/node_modules/tiktoken/package.json"]) {
    if (!existsSync(join(root, p))) throw new Error(`${p} is missing (scripts/bench.sh builds pkg/core/ and runs npm ci)`);
  }
  const browser = await openBrowser();
  const deadline = setTimeout(() => {
    console.error(`browser bench: timed out after ${TIMEOUT_MS / 1000} s`);
    browser.close().finally(() => process.exit(2));
  }, TIMEOUT_MS);

  const page = `/tests/bench/index.html`;
  const report = { inits: {}, chromium: browser.browserVersion };
  try {
    // A page busy counting blocks script execution; let the poll wait for it.
    await browser.setScriptTimeout(TIMEOUT_MS);

    const poll = async (onProgress) => {
      let last = "";
      for (;;) {
        const r = await browser.execute(
          "const r = window.benchResult; return r ? (r.done ? r : { progress: r.progress }) : null;",
        );
        if (r && r.done) return r;
        if (r && r.progress && r.progress !== last && onProgress) onProgress((last = r.progress));
        await sleep(250);
      }
    };

    // The session's first navigation also starts Chromium's renderer and network service
    // (about 100 ms more); take it on a page that times nothing, so that no tokenizer's
    // first sample pays it.
    await browser.goto(`${page}?mode=warmup`);
    await poll();
    for (let run = 0; run < inits; run++) {
      for (const name of TOKENIZERS) {
        const url = `${page}?mode=init&tok=${encodeURIComponent(name)}&run=${run}`;
        await browser.goto(url);
        const r = await poll();
        if (r.error) throw new Error(`init of ${name}: ${r.error}`);
        (report.inits[name] ??= []).push(r.init_ms);
        console.log(`init ${name} (fresh page ${run + 1}/${inits}): ${r.init_ms.toFixed(1)} ms`);
      }
    }
    await browser.goto(`${page}?mode=run${only ? `&only=${encodeURIComponent(only.join(","))}` : ""}`);
    const r = await poll((p) => console.log(`  ${p}…`));
    if (r.error) throw new Error(`bench page: ${r.error}`);
    Object.assign(report, r);
  } finally {
    clearTimeout(deadline);
    await browser.close();
  }
  delete report.done;
  delete report.progress;
  if (out) writeFileSync(out, JSON.stringify(report, null, 2) + "\n");
  console.log("\n" + browserTable(report));
  // A JS tokenizer disagreeing with ctxguard is reported (in the table), not a failure of the run.
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`browser bench: ${e.stack ?? e}`);
    process.exit(1);
  },
);
