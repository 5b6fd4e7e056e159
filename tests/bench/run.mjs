// Drives tests/bench/index.html in headless Chromium (tests/support's driver),
// as tests/wasm-host/run.mjs does. Serves the repository root on a free localhost port; measures
//   - each tokenizer's init on `--inits` fresh page loads of one session, and
//     ctxguard's, hypertok's and gpt-tokenizer's on `--contexts` fresh browser
//     sessions each (a new profile each: no HTTP cache, no compiled-code cache);
//   - cold counts: a fresh page per sample, the first count of an input there
//     (`--cold-runs` pages per tokenizer and input), and warm ones (after a
//     first text of the same kind);
//   - the fair race (tests/bench/race.mjs): every tokenizer (ALL) in the same three
//     modes, a fresh page per sample (cold: the first count; warm: the same text again; fresh: a new
//     text of the same kind after another one), on every text of the varied real corpus
//     (tests/bench/varied.mjs: four sources per kind) and the generated prose and mixed,
//     `--race-runs` pages per text and mode;
//   - the throughput / worst-case page once;
// prints the table and writes the raw result as JSON to `--out`.
//
// Usage: node tests/bench/run.mjs [--out FILE] [--pkg DIR] [--corpus DIR] [--inits N] [--contexts N]
//        [--cold-runs N] [--race-runs N] [--race-only] [--only NAME,…] [--timeout-min N] [--chromium PATH]
// (--pkg: ctxguard's npm package folder from the repository root, default pkg/core;
//  --corpus: the inputs corpus.mjs wrote, from the repository root, default tests/bench/.corpus;
//  --only: run just these tokenizers beside ctxguard, e.g. `--only ctxguard` while tuning it;
//  --race-only: the fair race alone, nothing else, e.g. to check a change to it).
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openBrowser, root } from "../support/browser.mjs";
import { option, sleep } from "../support/net.mjs";
import { RACE, raceTexts, raceTable } from "./race.mjs";
import { browserTable, WORST } from "./report.mjs";

const out = option("--out", null);
const pkg = option("--pkg", "pkg/core");
const corpus = option("--corpus", "tests/bench/.corpus");
const inits = Number(option("--inits", "5"));
const contexts = Number(option("--contexts", "5"));
const coldRuns = Number(option("--cold-runs", "3"));
const raceRuns = Number(option("--race-runs", "1"));
const raceOnly = process.argv.includes("--race-only");
// The race adds about 300 fresh pages to the session (some ten minutes on a quiet machine).
const TIMEOUT_MS = Number(option("--timeout-min", "60")) * 60_000;
const ALL = ["ctxguard", "hypertok", "gpt-tokenizer", "ai-tokenizer", "js-tiktoken", "tiktoken (npm wasm)"];
const only = option("--only", null)?.split(",");
for (const name of only ?? []) {
  if (!ALL.includes(name)) {
    console.error(`browser bench: --only: unknown tokenizer ${JSON.stringify(name)} (known: ${ALL.join(", ")})`);
    process.exit(2);
  }
}
const TOKENIZERS = ALL.filter((n) => !only || n === "ctxguard" || only.includes(n));
/** Start-up as a first-time visitor: these, each in `--contexts` brand-new browser sessions. */
const STARTUP = ["ctxguard", "hypertok", "gpt-tokenizer"].filter((n) => TOKENIZERS.includes(n));
/** Cold inputs: the worst cases only for ctxguard (the JS tokenizers are quadratic on them; the run page covers them). */
const COLD = ["en", "zh", "code", "mixed", "prose"];
const COLD_OURS = [...COLD, ...WORST];
/**
 * The 50 MB real texts (tests/bench/bigtext.mjs --mb 50, when scripts/bench.sh could
 * write them): a cold count each, for ctxguard and hypertok only (the others take minutes).
 */
const BIG = ["big/en-50mb", "big/mix-50mb"].filter((k) => existsSync(join(root, corpus, `${k}.txt`)));
const BIG_FOR = ["ctxguard", "hypertok"];
/** Warm: kinds with a second text (`KEY-2`). */
const WARM = ["prose", "mixed"];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The fair race: for each text of each kind, each of the three modes, each engine in turn (so that
 * a change of the machine's load hits them alike), `raceRuns` fresh pages; the median per text.
 */
async function race(visit, browser) {
  const engines = RACE.filter((n) => TOKENIZERS.includes(n));
  const texts = raceTexts(join(root, corpus));
  const out = { engines, texts, results: {} };
  for (const [kind, list] of Object.entries(texts)) {
    list.forEach((t, i) => {
      t.before = list[(i + 1) % list.length].key;
    });
    for (const t of list) {
      for (const mode of ["cold", "warm", "fresh"]) {
        for (const name of engines) {
          const query =
            mode === "cold" ? "mode=cold" : mode === "warm" ? "mode=again" : `mode=fresh&before=${encodeURIComponent(t.before)}`;
          const runs = [];
          for (let run = 0; run < raceRuns; run++) {
            runs.push(await visit(browser, `${query}&tok=${encodeURIComponent(name)}&input=${encodeURIComponent(t.key)}&run=${run}`));
          }
          const ms = median(runs.map((r) => r.ms));
          ((out.results[name] ??= {})[mode] ??= {})[t.key] = { kind, ms, bytes: runs[0].bytes, tokens: runs[0].tokens };
          console.log(`race ${mode} ${name} ${t.key}: ${ms.toFixed(1)} ms (${(runs[0].bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s)`);
        }
      }
    }
  }
  return out;
}

async function main() {
  for (const p of [`${pkg}/ctxguard_core.js`, `${pkg}/ctxguard_core_bg.wasm`, "tests/bench/node_modules/ai-tokenizer/package.json", `${corpus}/en.txt`]) {
    if (!existsSync(join(root, p))) throw new Error(`${p} is missing (scripts/bench.sh builds the package, runs npm ci and writes the inputs)`);
  }
  const page = `/tests/bench/index.html`;
  const common = `pkg=${encodeURIComponent(pkg)}&corpus=${encodeURIComponent(corpus)}`;
  const report = { inits: {}, init_contexts: {}, cold: {}, warm: {} };

  const poll = async (browser, onProgress) => {
    let last = "";
    for (;;) {
      const r = await browser.execute("const r = window.benchResult; return r ? (r.done ? r : { progress: r.progress }) : null;");
      if (r && r.done) return r;
      if (r && r.progress && r.progress !== last && onProgress) onProgress((last = r.progress));
      await sleep(100);
    }
  };
  const visit = async (browser, query) => {
    await browser.goto(`${page}?${query}&${common}`);
    const r = await poll(browser);
    if (r.error) throw new Error(`${query}: ${r.error}`);
    return r;
  };

  // Init in brand-new browser sessions (a fresh profile each), the tokenizers taking turns; then,
  // in one more fresh session, where ctxguard's init goes (bench.js initPartsMode).
  for (let i = 0; i < (raceOnly ? 0 : contexts); i++) {
    for (const name of [...STARTUP, "parts"]) {
      const browser = await openBrowser();
      try {
        await browser.setScriptTimeout(TIMEOUT_MS);
        await visit(browser, "mode=warmup");
        report.chromium = browser.browserVersion;
        if (name === "parts") {
          const { done, error, progress, name: _, ...parts } = await visit(browser, "mode=initparts");
          (report.init_parts ??= []).push(parts);
          console.log(`init parts ctxguard (fresh browser ${i + 1}/${contexts}): ${Object.entries(parts).map(([k, v]) => `${k} ${+v.toFixed(1)}`).join(", ")}`);
          continue;
        }
        const r = await visit(browser, `mode=init&tok=${encodeURIComponent(name)}`);
        (report.init_contexts[name] ??= []).push(r.init_ms);
        console.log(`init ${name} (fresh browser ${i + 1}/${contexts}): ${r.init_ms.toFixed(1)} ms`);
      } finally {
        await browser.close();
      }
    }
  }

  const browser = await openBrowser();
  const deadline = setTimeout(() => {
    console.error(`browser bench: timed out after ${TIMEOUT_MS / 1000} s`);
    browser.close().finally(() => process.exit(2));
  }, TIMEOUT_MS);
  report.chromium = browser.browserVersion;
  try {
    // A page busy counting blocks script execution; let the poll wait for it.
    await browser.setScriptTimeout(TIMEOUT_MS);
    // The session's first navigation also starts Chromium's renderer and network service
    // (about 100 ms more); take it on a page that times nothing, so that no tokenizer's
    // first sample pays it.
    await visit(browser, "mode=warmup");
    if (raceOnly) {
      report.race = await race(visit, browser);
      return finish(report);
    }
    for (let run = 0; run < inits; run++) {
      for (const name of TOKENIZERS) {
        const r = await visit(browser, `mode=init&tok=${encodeURIComponent(name)}&run=${run}`);
        (report.inits[name] ??= []).push(r.init_ms);
        console.log(`init ${name} (fresh page ${run + 1}/${inits}): ${r.init_ms.toFixed(1)} ms`);
      }
    }
    for (const [mode, inputs, target] of [["cold", COLD, report.cold], ["warm", WARM, report.warm]]) {
      for (const name of TOKENIZERS) {
        const keys = [...(mode === "cold" && name === "ctxguard" ? COLD_OURS : inputs), ...(mode === "cold" && BIG_FOR.includes(name) ? BIG : [])];
        for (const key of keys) {
          const runs = [];
          for (let run = 0; run < coldRuns; run++) {
            runs.push(await visit(browser, `mode=${mode}&tok=${encodeURIComponent(name)}&input=${key}&run=${run}`));
          }
          const ms = median(runs.map((r) => r.ms));
          const r0 = runs[0];
          (target[name] ??= {})[key] = {
            ms,
            bytes: r0.bytes,
            mbps: r0.bytes / 1e6 / (ms / 1000),
            tokens: r0.tokens,
            memory_after_setup: r0.memory_after_setup,
            memory_after: Math.max(...runs.map((r) => r.memory_after ?? 0)) || null,
          };
          console.log(`${mode} ${name} ${key}: ${ms.toFixed(1)} ms (${(r0.bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s, median of ${runs.length} fresh pages)`);
        }
      }
    }
    report.race = await race(visit, browser);
    await browser.goto(`${page}?mode=run&${common}${only ? `&only=${encodeURIComponent(only.join(","))}` : ""}`);
    const r = await poll(browser, (p) => console.log(`  ${p}…`));
    if (r.error) throw new Error(`bench page: ${r.error}`);
    Object.assign(report, r);
  } finally {
    clearTimeout(deadline);
    await browser.close();
  }
  return finish(report);
}

/** Writes the raw result and prints the tables. */
function finish(report) {
  delete report.done;
  delete report.progress;
  if (out) writeFileSync(out, JSON.stringify(report, null, 2) + "\n");
  if (!raceOnly) console.log("\n" + browserTable(report));
  console.log("\n" + raceTable(report.race));
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
