// Builds the two-line app in app/ with Vite and with webpack 5 (production,
// no plugin, no wasm configuration), against the ctxguard-core tarball that
// run.sh installed into node_modules, then serves each build on 127.0.0.1 and
// loads it in headless Chromium (tests/support): the page must show the
// count, and the .wasm it fetched must be the file the bundler emitted.
// Prints the time from navigation start to the first count (one page load
// each) and a closing `N passed, M failed` line.
//
// Usage: node tests/npm-bundlers/run.mjs [--screenshots DIR]
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build as viteBuild } from "vite";
import webpack from "webpack";
import { launchBrowser, serveDirectory } from "../support/browser.mjs";
import { Tally, assert, option } from "../support/net.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const app = join(here, "app");
const dist = join(here, "dist");
const shots = option("--screenshots", null);

async function buildWithVite() {
  const outDir = join(dist, "vite");
  await viteBuild({ root: app, base: "./", configFile: false, logLevel: "warn", build: { outDir, emptyOutDir: true } });
  return outDir;
}

function buildWithWebpack() {
  const outDir = join(dist, "webpack");
  const config = {
    mode: "production",
    context: here,
    entry: join(app, "main.js"),
    output: { path: outDir, filename: "main.[contenthash].js", clean: true },
  };
  return new Promise((ok, fail) =>
    webpack(config, (err, stats) => {
      if (err) return fail(err);
      if (stats.hasErrors()) return fail(new Error(stats.toString({ all: false, errors: true })));
      const js = Object.keys(stats.compilation.assets).find((name) => name.endsWith(".js"));
      const page = readFileSync(join(app, "index.html"), "utf8").replace("./main.js", `./${js}`);
      writeFileSync(join(outDir, "index.html"), page);
      ok(outDir);
    }),
  );
}

/** The .wasm files the bundler emitted into `dir` (anywhere below it). */
function emittedWasm(dir) {
  return readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith(".wasm")).map(String);
}

async function main() {
  const tally = new Tally();
  const timings = [];
  const browser = await launchBrowser();
  try {
    for (const [name, build] of [["vite", buildWithVite], ["webpack", buildWithWebpack]]) {
      let outDir;
      await tally.check(`${name}: production build`, async () => {
        outDir = await build();
      });
      if (!outDir) continue;
      const wasm = emittedWasm(outDir);
      await tally.check(`${name}: the bundler emitted the package's .wasm itself`, () =>
        assert(wasm.length === 1 && wasm[0] !== "ctxguard_core_bg.wasm", `emitted: ${JSON.stringify(wasm)}`));
      const site = await serveDirectory(outDir);
      const page = await browser.newPage();
      try {
        const fetched = [];
        page.on("response", (r) => { if (r.url().endsWith(".wasm")) fetched.push(`${r.status()} ${r.url().split("/").pop()}`); });
        const errors = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        await page.goto(`${site.origin}/index.html`, { waitUntil: "load", timeout: 60_000 });
        await tally.check(`${name}: the page counts "hello world" as 2 tokens`, async () => {
          const first = await page.waitForFunction(() => window.firstCount, null, { timeout: 30_000 }).then((h) => h.jsonValue());
          assert(first.tokens === 2, `counted ${first.tokens}`);
          const text = await page.textContent("body");
          assert(text.includes("is 2 tokens"), `the page shows ${JSON.stringify(text)}`);
          // The app's import of the package runs once its script has loaded: time the rest from there.
          const t = await page.evaluate(() => {
            const resources = performance.getEntriesByType("resource");
            const script = Math.max(...resources.filter((e) => e.name.endsWith(".js")).map((e) => e.responseEnd));
            const wasm = resources.find((e) => e.name.endsWith(".wasm"));
            return { script, wasmFetch: wasm ? wasm.responseEnd - wasm.startTime : NaN };
          });
          timings.push(`${name}: first count ${first.ms.toFixed(1)} ms after navigation start; the app's script had loaded at `
            + `${t.script.toFixed(1)} ms, so import to first count ${(first.ms - t.script).toFixed(1)} ms `
            + `(of which fetching the .wasm ${t.wasmFetch.toFixed(1)} ms; one page load)`);
        });
        await tally.check(`${name}: the page fetched the emitted .wasm and threw nothing`, () =>
          assert(fetched.length === 1 && fetched[0] === `200 ${wasm[0].split("/").pop()}` && errors.length === 0,
            `fetched ${JSON.stringify(fetched)}, errors ${JSON.stringify(errors)}`));
        if (shots) await page.screenshot({ path: join(shots, `npm-${name}.png`) });
      } finally {
        await page.close();
        await site.close();
      }
    }
  } finally {
    await browser.close();
  }
  timings.forEach((t) => console.log(t));
  return tally.finish();
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.log(`FAIL npm-bundlers: ${e.stack ?? e}`);
    console.log("0 passed, 1 failed");
    process.exit(1);
  },
);
