// The workers bench (TokenPool on 1 and 2 workers against the main thread), run
// by scripts/bench.sh: writes the `workers` section of BENCHMARKS.md (and prints it).
//
//   1. TokenPool (ctxguard-core/pool) on 100 MB of real text (tests/bench/bigtext.mjs:
//      English prose, and English + Chinese + code), in Node (worker_threads) and in
//      headless Chromium (module Workers), each in one process / one page session:
//      countTokens on the main thread, the pool with 1 worker and with 2, medians of
//      --reps runs in turn; the counts compared with tiktoken-rs's (core's
//      `differential` example, run natively on the same files).
//   2. <ctxguard-attachment-preview> on a generated 100 MB log, a 50 MB .docx and a
//      50 MB .xlsx (tests/bench/office.mjs): wall time of previewFiles, the longest
//      main-thread task (PerformanceObserver longtask), the frame rate
//      (requestAnimationFrame), and the worker's peak wasm memory (the package's
//      preview-worker.js driven directly, its `memory_bytes`).
//
// Usage: node tests/bench/workers.mjs --corpus DIR [--reps 3] [--differential FILE.jsonl] [--out BENCHMARKS.md]
//        node tests/bench/workers.mjs --inputs unseen [--kinds en,zh,…] [--reps 5] [--chromium]
// `--inputs unseen`: the pool (in Node; with --chromium, also in Chromium) on tests/bench/unseen.mjs's ~100 MB per kind of
// distinct text (en, zh, intl, code, mix: no repetition, so every piece cache meets it
// cold); prints each kind's row, with the ratios and each variant's CPU time (and, with
// --chromium, the same in headless Chromium), and writes nothing.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { launchBrowser, root, serveDirectory } from "../support/browser.mjs";
import { option } from "../support/net.mjs";
import { bigText } from "./bigtext.mjs";
import { docx, xlsx } from "./office.mjs";
import { KINDS, unseenText } from "./unseen.mjs";

const corpus = option("--corpus", join(root, "tests/bench/.corpus"));
const reps = Number(option("--reps", "3"));
const outFile = option("--out", join(root, "BENCHMARKS.md"));
const differentialFile = option("--differential", null);
const inputs = option("--inputs", "big");
const kinds = option("--kinds", KINDS.join(",")).split(",");
const MODEL = "gpt-4o";
const MB = 1024 * 1024;

/** The URL path, on the repository-root server, of a file under the root (whatever `--corpus` looked like). */
const served = (path) => "/" + relative(root, resolve(path)).split(sep).join("/");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mbps = (bytes, ms) => (bytes / 1e6 / (ms / 1e3)).toFixed(1);

/** Node: countTokens on the main thread, then the pool with 1 and 2 workers, `reps` times in turn. */
async function nodePool(files) {
  const core = await import(pathToFileURL(join(root, "pkg/core/node.js")).href);
  const { TokenPool } = await import(pathToFileURL(join(root, "pkg/core/pool/node.js")).href);
  const out = {};
  for (const [name, path] of Object.entries(files)) {
    const bytes = readFileSync(path);
    const text = bytes.toString("utf8");
    const blob = new Blob([bytes]);
    const pools = { 1: new TokenPool({ workers: 1 }), 2: new TokenPool({ workers: 2 }) };
    const t = { page: [], 1: [], 2: [] };
    // CPU time of the process (every thread): what the work costs, whatever else runs.
    const cpu = { page: [], 1: [], 2: [] };
    const cpuMs = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e3;
    };
    const counts = new Set();
    try {
      for (let r = 0; r < reps; r++) {
        let s = performance.now();
        let c = cpuMs();
        counts.add(core.countTokens(text, MODEL));
        t.page.push(performance.now() - s);
        cpu.page.push(cpuMs() - c);
        for (const w of [1, 2]) {
          s = performance.now();
          c = cpuMs();
          counts.add(await pools[w].count(blob, { model: MODEL }));
          t[w].push(performance.now() - s);
          cpu[w].push(cpuMs() - c);
        }
      }
    } finally {
      pools[1].close();
      pools[2].close();
    }
    out[name] = {
      bytes: bytes.length,
      counts: [...counts],
      page: median(t.page),
      one: median(t[1]),
      two: median(t[2]),
      cpu: { page: median(cpu.page), one: median(cpu[1]), two: median(cpu[2]) },
      runs: t,
    };
    console.log(`node ${name}: ${JSON.stringify(out[name])}`);
  }
  return out;
}

/** Chromium: the same, in one page session; the file fetched as a Blob. */
async function browserPool(page, origin, files) {
  const out = {};
  for (const [name, path] of Object.entries(files)) {
    const url = served(path);
    out[name] = await page.evaluate(
      async ([url, model, reps]) => {
        const core = await import("/pkg/core/ctxguard_core.js");
        await core.default();
        const { TokenPool } = await import("/pkg/core/pool/browser.js");
        const blob = await (await fetch(url)).blob();
        const text = await blob.text();
        const pools = { 1: new TokenPool({ workers: 1 }), 2: new TokenPool({ workers: 2 }) };
        const t = { page: [], 1: [], 2: [] };
        const counts = new Set();
        const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
        // Both pools start their workers before the timed runs.
        await pools[1].count("warm", { model });
        await pools[2].count("warm", { model });
        try {
          for (let r = 0; r < reps; r++) {
            let s = performance.now();
            counts.add(core.countTokens(text, model));
            t.page.push(performance.now() - s);
            for (const w of [1, 2]) {
              s = performance.now();
              counts.add(await pools[w].count(blob, { model }));
              t[w].push(performance.now() - s);
            }
          }
        } finally {
          pools[1].close();
          pools[2].close();
        }
        return { bytes: blob.size, counts: [...counts], page: med(t.page), one: med(t[1]), two: med(t[2]) };
      },
      [url, MODEL, reps],
    );
    console.log(`chromium ${name}: ${JSON.stringify(out[name])}`);
  }
  return out;
}

/** The preview element on each upload: wall time, longest main-thread task, frame rate; then the worker's memory. */
async function browserPreview(page, uploads) {
  const out = {};
  for (const [name, path] of Object.entries(uploads)) {
    const url = served(path);
    out[name] = await page.evaluate(
      async ([url, filename]) => {
        await import("/pkg/toolbar/ctxguard-toolbar.js");
        const blob = await (await fetch(url)).blob();
        const file = new File([blob], filename);
        document.body.replaceChildren();
        const pv = document.createElement("ctxguard-attachment-preview");
        document.body.append(pv);
        // The worker and its engine start before the timed preview.
        await pv.previewFiles([new File(["warm"], "warm.txt")]);
        let longest = 0;
        const observer = new PerformanceObserver((list) => {
          for (const e of list.getEntries()) longest = Math.max(longest, e.duration);
        });
        observer.observe({ type: "longtask" });
        let frames = 0;
        let running = true;
        const tick = () => {
          frames += 1;
          if (running) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
        const start = performance.now();
        const report = await pv.previewFiles([file]);
        const ms = performance.now() - start;
        running = false;
        await new Promise((r) => setTimeout(r, 100));
        observer.disconnect();
        // The worker alone, for its peak memory: a fresh one, one preview.
        const worker = new Worker("/pkg/toolbar/preview-worker.js", { type: "module" });
        const memory = await new Promise((resolve, reject) => {
          worker.onmessage = ({ data }) => {
            if (data.type === "report") resolve(data.memory_bytes);
            else if (data.type === "error") reject(new Error(data.message));
          };
          worker.onerror = (e) => reject(new Error(e.message));
          worker.postMessage({
            type: "preview",
            id: 1,
            files: [file],
            options: { model: "gpt-4o", limit_tokens: 100000 },
            maxTextLength: 500000,
            maxUploadBytes: 104857600,
          });
        });
        worker.terminate();
        const row = report.attachments[0];
        return { bytes: file.size, ms, longest, fps: frames / (ms / 1000), memory, state: row.state, tokens: row.tokens, error: row.error };
      },
      [url, name],
    );
    console.log(`preview ${name}: ${JSON.stringify(out[name])}`);
  }
  return out;
}

function section({ node, chromium, preview, differential, chromiumVersion }) {
  const L = [];
  const poolRows = (env, r) =>
    Object.entries(r).map(([name, x]) => {
      const equal = x.counts.length === 1;
      return `| ${env} | ${name} (${(x.bytes / 1e6).toFixed(1)} MB) | ${x.counts.join(" / ")}${equal ? "" : " **differ**"} | ${(x.page / 1e3).toFixed(2)} s (${mbps(x.bytes, x.page)} MB/s) | ${(x.one / 1e3).toFixed(2)} s (${mbps(x.bytes, x.one)}) | ${(x.two / 1e3).toFixed(2)} s (${mbps(x.bytes, x.two)}) | **${(x.one / x.two).toFixed(2)}×** | ${(x.page / x.one).toFixed(2)} |`;
    });
  L.push(
    "<!-- workers:begin -->",
    "## Workers: TokenPool and the preview",
    "",
    `Written by \`tests/bench/workers.mjs\` (run by \`scripts/bench.sh\`). Inputs (\`tests/bench/bigtext.mjs\`): **en**, English prose: the reStructuredText sources of Python 3.11's manual (Debian's \`python3.11-doc\`, \`/usr/share/doc/python3.11/html/_sources\`), repeated to 100 MiB; **mix**, paragraphs in turn of that English, the Debian Reference in Simplified Chinese (\`debian-reference-zh-cn\`, tags removed) and Rust sources from cargo's registry (serde_json, fancy-regex), repeated to 100 MiB. o200k (\`gpt-4o\`); medians of ${reps} runs taken in turn in one process (Node) or one page session (Chromium ${chromiumVersion}); the pools' workers are started before the timed runs. 2 cores.`,
    "",
    "| where | input | tokens (every run and variant) | `countTokens` on the main thread | pool, 1 worker | pool, 2 workers | 2 ÷ 1 workers (target ≥ 1.8×) | 1 worker's speed ÷ the main thread's (target ≥ 0.95) |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...poolRows("Node", node),
    ...poolRows("Chromium", chromium),
    "",
  );
  if (differential) {
    const rows = differential.filter((d) => /en-|mix-/.test(d.file));
    L.push(
      "Exact against tiktoken-rs (`cargo run --release -p ctxguard-core --example differential`, natively, the same files, whole and per ~1 MB slice cut at line ends):",
      "",
      "| file | encoding | bytes | slices | ctxguard | tiktoken-rs | equal |",
      "| --- | --- | ---: | ---: | ---: | ---: | --- |",
      ...rows.map((d) => `| ${d.file.split("/").pop()} | ${d.encoding} | ${d.bytes} | ${d.slices} | ${d.ctxguard} | ${d.tiktoken_rs} | ${d.equal ? "yes" : "**no**"} |`),
      "",
    );
    const pool = [...Object.values(node), ...Object.values(chromium)];
    const o200k = Object.fromEntries(rows.filter((d) => d.encoding === "o200k_base").map((d) => [d.file.split("/").pop(), d.tiktoken_rs]));
    const same = Object.entries({ ...node }).every(([name, x]) => x.counts.length === 1 && Object.entries(o200k).some(([f, n]) => f.startsWith(name) && n === x.counts[0]));
    L.push(`The pools' o200k counts equal tiktoken-rs's: ${same && pool.every((x) => x.counts.length === 1) ? "yes" : "**no**"}.`, "");
  }
  L.push(
    "`<ctxguard-attachment-preview>` (the release toolbar package), one file per preview, after a warm-up preview that starts the worker and its engine; wall time of `previewFiles`; the longest main-thread task seen by a `longtask` observer during it (none over 50 ms shows as the largest under it, or 0); frames: `requestAnimationFrame` callbacks per second during it; peak memory: the engine's wasm memory after the same preview in a fresh worker (wasm memory never shrinks, so this is its peak).",
    "",
    "| upload | size | row | wall time | MB/s | longest main-thread task | frames/s | worker peak wasm memory | ÷ file size |",
    "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...Object.entries(preview).map(
      ([name, x]) =>
        `| ${name} | ${(x.bytes / 1e6).toFixed(1)} MB | ${x.state}${x.error ? ` (${x.error.code})` : ""}, ${x.tokens} tokens | ${(x.ms / 1e3).toFixed(2)} s | ${mbps(x.bytes, x.ms)} | ${x.longest.toFixed(0)} ms | ${x.fps.toFixed(0)} | ${(x.memory / 1e6).toFixed(1)} MB | ${(x.memory / x.bytes).toFixed(2)}× |`,
    ),
    "",
    "<!-- workers:end -->",
  );
  return L.join("\n");
}

/** `--inputs unseen`: the Node rows on each kind of unseen text, printed. */
async function unseen() {
  const made = unseenText(join(corpus, "unseen"), 100);
  const files = Object.fromEntries(kinds.map((k) => [k, made.paths[k]]));
  const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`load average before: ${load()}`);
  const node = await nodePool(files);
  const rows = Object.entries(node).map(([name, x]) => ["Node", name, x]);
  if (process.argv.includes("--chromium")) {
    const site = await serveDirectory(root);
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(600_000);
      await page.goto(`${site.origin}/tests/bench/workers.html`);
      for (const [name, x] of Object.entries(await browserPool(page, site.origin, files))) rows.push([`Chromium ${browser.version()}`, name, x]);
    } finally {
      await browser.close();
      await site.close();
    }
  }
  console.log(`load average after: ${load()}`);
  console.log("| where | kind | MB | tokens | main thread MB/s | 1 worker MB/s | 2 workers MB/s | 2 ÷ 1 workers (target ≥ 1.8) | 1 worker's speed ÷ the main thread's (target ≥ 0.95) | CPU s: main / 1 / 2 workers |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
  for (const [where, name, x] of rows) {
    console.log(
      `| ${where} | ${name} | ${(x.bytes / 1e6).toFixed(1)} | ${x.counts.join(" / ")}${x.counts.length === 1 ? "" : " **differ**"} | ${mbps(x.bytes, x.page)} | ${mbps(x.bytes, x.one)} | ${mbps(x.bytes, x.two)} | ${(x.one / x.two).toFixed(2)} | ${(x.page / x.one).toFixed(2)} | ${x.cpu ? [x.cpu.page, x.cpu.one, x.cpu.two].map((ms) => (ms / 1e3).toFixed(2)).join(" / ") : "–"} |`,
    );
  }
}

async function main() {
  if (inputs === "unseen") return unseen();
  if (inputs !== "big") throw new Error(`--inputs: expected big or unseen, got ${inputs}`);
  const big = bigText(join(corpus, "big"), 100);
  const lines = readFileSync(big.en, "utf8").slice(0, 4 * MB).split("\n").filter((l) => l.trim());
  const uploads = { "server.log": join(corpus, "big", "server-100mb.log"), "report.docx": join(corpus, "big", "report-50mb.docx"), "table.xlsx": join(corpus, "big", "table-50mb.xlsx") };
  if (!existsSync(uploads["server.log"])) {
    const log = lines.map((l, i) => `2026-12-01T10:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z INFO worker-${i % 8} ${l}\n`).join("");
    const unit = Buffer.from(log);
    const buf = Buffer.alloc(100 * MB);
    for (let at = 0; at < buf.length; ) at += unit.copy(buf, at, 0, Math.min(unit.length, buf.length - at));
    writeFileSync(uploads["server.log"], buf);
  }
  if (!existsSync(uploads["report.docx"])) writeFileSync(uploads["report.docx"], docx(lines, 50 * MB));
  if (!existsSync(uploads["table.xlsx"])) writeFileSync(uploads["table.xlsx"], xlsx(lines, 50 * MB));

  const node = await nodePool(big);
  const site = await serveDirectory(root);
  const browser = await launchBrowser();
  let chromium;
  let preview;
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(600_000);
    await page.goto(`${site.origin}/tests/bench/workers.html`);
    chromium = await browserPool(page, site.origin, big);
    preview = await browserPreview(page, uploads);
  } finally {
    await browser.close();
    await site.close();
  }
  const differential = differentialFile && existsSync(differentialFile)
    ? readFileSync(differentialFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))
    : null;
  const md = section({ node, chromium, preview, differential, chromiumVersion: browser.version() });
  console.log(md);
  const previous = existsSync(outFile) ? readFileSync(outFile, "utf8") : "";
  const re = /<!-- workers:begin -->[\s\S]*?<!-- workers:end -->/;
  writeFileSync(outFile, re.test(previous) ? previous.replace(re, md) : `${previous.trimEnd()}\n\n${md}\n`);
  console.log(`wrote the workers section of ${outFile}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
