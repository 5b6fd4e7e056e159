// The big-uploads bench, run by scripts/bench.sh (its `--big-uploads-only`
// runs it alone): workbooks, documents and CSVs at the sizes asked for (MB),
// written by the reference's own writers (openpyxl 3.1.5 and python-docx
// 1.2.0, tests/bench/bigfiles.py in the venv bench.sh makes) and by ours
// (tests/bench/office.mjs), plus a 1 GB CSV; then, per file:
//   - native: `ctxguard extract` and `ctxguard preview` wall time and peak
//     resident memory (`/usr/bin/time -v`), MB/s of file;
//   - a workbook written by openpyxl: openpyxl's read-only pass (every row of
//     every sheet) timed beside `ctxguard extract` on the same file (ratio);
//   - Chromium: <ctxguard-attachment-preview> (the release toolbar package)
//     given the file through an <input type=file> (a file-backed File, as a
//     user's pick), wall time and MB/s; the growth of the browser's resident
//     memory (every Chromium process this run started, sampled every 100 ms)
//     over its level before the preview; and the engine's peak wasm memory
//     (preview-worker.js driven directly in a fresh worker, its `memory_bytes`).
// Writes the `big-uploads` section of --out (and prints it).
//
// Usage: node tests/bench/bigfiles.mjs --work DIR --python VENV/bin/python --ctxguard BIN
//          [--sizes 25,50,100] [--csv-gb 1] [--skip-browser] [--out BENCHMARKS.md]
import { execFileSync, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launchBrowser, root, serveDirectory } from "../support/browser.mjs";
import { option } from "../support/net.mjs";
import { docx, xlsx } from "./office.mjs";

const MB = 1024 * 1024;
/** The backend's upload cap (MAX_UPLOAD_BYTES): a bigger file is refused unread. */
const CAP = 100 * MB;
/** The size asked of the writers: the "100 MB" files stay just under the cap, so they are read. */
const target = (mb) => Math.min(mb, 98);
const work = option("--work", join(root, "tests/bench/.corpus/bigfiles"));
const python = option("--python", "python3");
const ctxguard = option("--ctxguard", join(root, "target/release/ctxguard"));
const sizes = option("--sizes", "25,50,100").split(",").map(Number).filter((n) => n > 0);
const csvGb = Number(option("--csv-gb", "1"));
const skipBrowser = process.argv.includes("--skip-browser");
const outFile = option("--out", null);
const mbps = (bytes, ms) => (bytes / 1e6 / (ms / 1e3)).toFixed(1);
const mib = (bytes) => (bytes / MB).toFixed(1);

/** A deterministic generator, so every run writes the same files. */
function lcg(seed) {
  let s = BigInt(seed);
  return () => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return Number(s >> 33n) / 2 ** 31;
  };
}
const WORDS = "invoice order shipment region north south east west central product widget gadget sprocket bolt panel cable adapter sensor module account customer supplier quarter pending shipped returned paid overdue discount total net gross tax freight note ledger entry review approved rejected batch warehouse transfer credit debit 订单 发货 客户".split(" ");
function lines(count, seed) {
  const r = lcg(seed);
  return Array.from({ length: count }, () => Array.from({ length: 4 + Math.floor(r() * 20) }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" "));
}

/** A file of about `bytes`: `header`, then `row(i, r)` for i = 1, 2, …, written as a stream. */
async function writeRows(path, bytes, header, row) {
  const r = lcg(3);
  const out = createWriteStream(path);
  let size = 0;
  const write = (s) => new Promise((ok) => (out.write(s) ? ok() : out.once("drain", ok)));
  await write(header);
  for (let i = 1; size < bytes; ) {
    const rows = [];
    for (let k = 0; k < 10000; k++, i++) rows.push(row(i, r));
    const chunk = rows.join("");
    size += Buffer.byteLength(chunk);
    await write(chunk);
  }
  await new Promise((ok) => out.end(ok));
}

const words = (r, n) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" ");

/** A CSV of about `bytes`: a ledger's rows. */
function writeCsv(path, bytes) {
  return writeRows(path, bytes, "id,date,region,product,quantity,price,note\n", (i, r) => {
    const note = words(r, 3 + Math.floor(r() * 10));
    return `${i},2026-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")},${WORDS[4 + (i % 5)]},${WORDS[9 + (i % 8)]}-${i % 500},${1 + (i % 500)},${(r() * 1000).toFixed(2)},"${note}"\n`;
  });
}

/** A server log of about `bytes` (`.log`: no parser of its own, so it is named by sniffing first). */
function writeLog(path, bytes) {
  const levels = ["INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"];
  return writeRows(path, bytes, "", (i, r) => {
    const t = new Date(Date.UTC(2026, 11, 1) + i * 37).toISOString();
    const level = levels[Math.floor(r() * levels.length)];
    return `${t} ${level} req=${i} path=/api/${WORDS[9 + (i % 8)]}/${Math.floor(r() * 1e5)} status=${level === "ERROR" ? 500 : 200} dur=${Math.floor(r() * 900)}ms msg="${words(r, 2 + Math.floor(r() * 8))}"\n`;
  });
}

/** Every file of the run: [name, path, kind], written when missing. */
async function files() {
  mkdirSync(work, { recursive: true });
  const list = [];
  const text = lines(20000, 7);
  for (const mb of sizes) {
    const entries = [
      [`openpyxl-${mb}mb.xlsx`, () => execFileSync(python, [join(root, "tests/bench/bigfiles.py"), "xlsx", path(`openpyxl-${mb}mb.xlsx`), String(target(mb))], { stdio: "inherit" })],
      [`python-docx-${mb}mb.docx`, () => execFileSync(python, [join(root, "tests/bench/bigfiles.py"), "docx", path(`python-docx-${mb}mb.docx`), String(target(mb))], { stdio: "inherit" })],
      [`ours-${mb}mb.xlsx`, () => writeFileSync(path(`ours-${mb}mb.xlsx`), xlsx(text, target(mb) * MB))],
      [`ours-${mb}mb.docx`, () => writeFileSync(path(`ours-${mb}mb.docx`), docx(text, target(mb) * MB))],
      [`ledger-${mb}mb.csv`, () => writeCsv(path(`ledger-${mb}mb.csv`), target(mb) * MB)],
      [`server-${mb}mb.log`, () => writeLog(path(`server-${mb}mb.log`), target(mb) * MB)],
    ];
    for (const [name, make] of entries) {
      // A file written before at over the cap (an older run's "100 MB") is written again.
      if (!existsSync(path(name)) || (mb <= 100 && statSync(path(name)).size > CAP)) {
        console.log(`writing ${name}`);
        await make();
      }
      list.push(name);
    }
  }
  if (csvGb > 0) {
    const name = `ledger-${csvGb}gb.csv`;
    if (!existsSync(path(name))) {
      console.log(`writing ${name}`);
      await writeCsv(path(name), csvGb * 1024 * MB);
    }
    list.push(name);
  }
  return list;
}
const path = (name) => join(work, name);

/** `/usr/bin/time -v BIN ARGS`: wall ms and peak RSS bytes (stdout discarded). */
function timed(args) {
  const run = spawnSync("/usr/bin/time", ["-v", ctxguard, ...args], { encoding: "utf8", maxBuffer: 1 << 30, stdio: ["ignore", "ignore", "pipe"] });
  const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr)?.[1] ?? NaN) * 1024;
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(run.stderr);
  const ms = wall ? ((Number(wall[1] ?? 0) * 60 + Number(wall[2])) * 60 + Number(wall[3])) * 1000 : NaN;
  // A file over the backend's 100 MB upload cap is refused as the backend refuses it, unread.
  const refused = run.status === 1 && run.stderr.includes("file_too_large");
  if (run.status !== 0 && !refused) throw new Error(`ctxguard ${args.join(" ")} exited with ${run.status}: ${run.stderr.slice(-2000)}`);
  return { ms, rss, status: run.status, refused };
}

function native(name) {
  const bytes = statSync(path(name)).size;
  const extract = timed(["extract", path(name)]);
  const preview = timed(["preview", "--model", "gpt-4o", path(name)]);
  let openpyxl = null;
  if (name.startsWith("openpyxl-") && !extract.refused) {
    openpyxl = JSON.parse(execFileSync(python, [join(root, "tests/bench/bigfiles.py"), "read-xlsx", path(name)], { encoding: "utf8" }));
  }
  const out = { bytes, extract, preview, openpyxl };
  console.log(`native ${name}: ${JSON.stringify(out)}`);
  return out;
}

/** Resident bytes of every process descended from this one (the browser this run launched). */
function browserRss() {
  const parent = new Map();
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  const mine = (pid) => {
    for (let p = parent.get(pid); p; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  let total = 0;
  for (const pid of parent.keys()) {
    if (!mine(pid)) continue;
    try {
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (kb) total += Number(kb[1]) * 1024;
    } catch {}
  }
  return total;
}

async function browserRuns(names) {
  const site = await serveDirectory(root);
  const browser = await launchBrowser();
  const out = {};
  try {
    for (const name of names) {
      if (statSync(path(name)).size > CAP) continue;
      const page = await browser.newPage();
      page.setDefaultTimeout(900_000);
      await page.goto(`${site.origin}/tests/bench/workers.html`);
      await page.evaluate(async () => {
        // The package defines its elements once its module is instantiated: `ready` says when.
        await (await import("/pkg/toolbar/ctxguard-toolbar.js")).ready;
        const input = document.createElement("input");
        input.type = "file";
        document.body.append(input);
        const pv = document.createElement("ctxguard-attachment-preview");
        document.body.append(pv);
        // The worker and its engine start before the timed preview.
        await pv.previewFiles([new File(["warm"], "warm.txt")]);
      });
      await page.setInputFiles("input", path(name));
      await new Promise((r) => setTimeout(r, 500));
      const before = browserRss();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, browserRss())), 100);
      const run = await page.evaluate(async () => {
        const file = document.querySelector("input").files[0];
        const pv = document.querySelector("ctxguard-attachment-preview");
        const start = performance.now();
        const report = await pv.previewFiles([file]);
        const ms = performance.now() - start;
        const row = report.attachments[0];
        return { bytes: file.size, ms, state: row.state, error: row.error?.code ?? null };
      });
      clearInterval(sampler);
      peak = Math.max(peak, browserRss());
      const memory = await page.evaluate(async () => {
        const file = document.querySelector("input").files[0];
        const worker = new Worker("/pkg/toolbar/preview-worker.js", { type: "module" });
        try {
          return await new Promise((resolve, reject) => {
            worker.onmessage = ({ data }) => {
              if (data.type === "report") resolve(data.memory_bytes);
              else if (data.type === "error") reject(new Error(data.message));
            };
            worker.onerror = (e) => reject(new Error(e.message));
            worker.postMessage({ type: "preview", id: 1, files: [file], options: { model: "gpt-4o", limit_tokens: 100000 }, maxTextLength: 500000, maxUploadBytes: 104857600 });
          });
        } finally {
          worker.terminate();
        }
      });
      await page.close();
      out[name] = { ...run, rssGrowth: peak - before, wasmPeak: memory };
      console.log(`chromium ${name}: ${JSON.stringify(out[name])}`);
    }
  } finally {
    await browser.close();
    await site.close();
  }
  return { runs: out, version: browser.version() };
}

function section(nativeRuns, chromium) {
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const rows = Object.entries(nativeRuns).map(([name, n]) => {
    const c = chromium?.runs[name];
    const browserCells = c
      ? `${(c.ms / 1e3).toFixed(2)} s, ${mbps(c.bytes, c.ms)} MB/s (${c.state}${c.error ? ` ${c.error}` : ""}) | ${mib(c.wasmPeak)} MiB | ${mib(c.rssGrowth)} MiB (${(c.rssGrowth / c.bytes).toFixed(2)}×)`
      : "– | – | –";
    const ratio = n.openpyxl ? `${n.openpyxl.seconds.toFixed(1)} s (${(n.openpyxl.seconds * 1000 / n.extract.ms).toFixed(1)}×)` : "–";
    const cli = (r, speed) =>
      r.refused
        ? `refused unread (over the 100 MB cap) in ${(r.ms / 1e3).toFixed(2)} s, ${mib(r.rss)} MiB`
        : `${(r.ms / 1e3).toFixed(2)} s${speed ? `, ${mbps(n.bytes, r.ms)} MB/s` : ""}, ${mib(r.rss)} MiB`;
    return `| ${name} | ${(n.bytes / 1e6).toFixed(1)} MB | ${browserCells} | ${cli(n.extract, true)} | ${cli(n.preview, false)} | ${ratio} |`;
  });
  return [
    "<!-- big-uploads:begin -->",
    "## Big uploads in bounded memory",
    "",
    `Run by \`scripts/bench.sh --big-uploads-only\` (tests/bench/bigfiles.mjs) on ${new Date().toISOString().slice(0, 10)}, load average ${load}, Chromium ${chromium?.version ?? "not run"}. Files: \`openpyxl-*\` and \`python-docx-*\` written by the reference's writers (openpyxl 3.1.5 write-only, python-docx 1.2.0), \`ours-*\` by tests/bench/office.mjs, \`ledger-*.csv\` a generated ledger. Chromium: the preview element given the file through an \`<input type=file>\`; wasm peak: the engine's memory after the preview in a fresh worker (wasm memory never shrinks); resident growth: every process of the browser, sampled every 100 ms, over its level before. Native: the release \`ctxguard\`, \`/usr/bin/time -v\`'s wall time and maximum resident set size. openpyxl: \`load_workbook(read_only=True)\` and every row of every sheet, beside \`ctxguard extract\` on the same file (× = openpyxl's time ÷ ctxguard's).`,
    "",
    "| file | size | Chromium preview | engine wasm peak | browser resident growth | `ctxguard extract` | `ctxguard preview` | openpyxl read-only (× ctxguard) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
    "<!-- big-uploads:end -->",
  ].join("\n");
}

async function main() {
  const names = await files();
  const nativeRuns = {};
  for (const name of names) nativeRuns[name] = native(name);
  const chromium = skipBrowser ? null : await browserRuns(names);
  const md = section(nativeRuns, chromium);
  console.log(md);
  writeFileSync(join(work, "big-uploads.json"), JSON.stringify({ native: nativeRuns, chromium }, null, 1));
  if (outFile) {
    const previous = existsSync(outFile) ? readFileSync(outFile, "utf8") : "";
    const re = /<!-- big-uploads:begin -->[\s\S]*?<!-- big-uploads:end -->/;
    writeFileSync(outFile, re.test(previous) ? previous.replace(re, md) : `${previous.trimEnd()}\n\n${md}\n`);
    console.log(`wrote the big-uploads section of ${outFile}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
