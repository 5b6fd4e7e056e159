// Writes BENCHMARKS.md from one bench run: the criterion results (native,
// with the cold-count side file cold.txt), the browser bench's JSON
// (tests/bench/run.mjs --out), the release .wasm's sizes
// (tests/wasm-host/size.mjs) and the machine it ran on. Node built-ins only.
//
// Usage: node tests/bench/report.mjs --criterion DIR --browser FILE --pkg DIR [--load-start "1 2 3"]
//        [--sections FILE] [--differential FILE.jsonl] [--profile FILE.json] [--out BENCHMARKS.md]
// (--differential: core's `differential` example's output, for the "exact at scale" row;
// --profile: tests/bench/profile.mjs's, for where a cold count's instructions go and what bounds a miss)
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { missBounds } from "./bounds.mjs";
import { f1, median } from "./format.mjs";
import { profileTable } from "./profile.mjs";
import { raceTable } from "./race.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const TARGETS = { snapshotMs: 1, snapshotRatio: 1000, preview: 1.3 };
/** ctxguard's fresh-session inits by tokenizer (older runs recorded ctxguard's alone, as an array). */
const freshInits = (r) => (Array.isArray(r?.init_contexts) ? { ctxguard: r.init_contexts } : r?.init_contexts ?? {});
// Against the peers: in Chromium, ratios to hypertok's `single` tier in the same run; natively, one core,
// cold, and ratios to the fastest native peer; the worst cases per byte against English prose.
const PEER_TARGETS = { hypertok: 1.0, initMs: 25, nativeMBps: 300, nativePeers: 2.0, worst: 3, brotliMB: 1.0 };
// The tokenizer's own targets: speed natively and in Chromium, against the JS tokenizers, start-up, size, memory.
const TOKENIZER_TARGETS = { nativeRatio: 1.0, prose: 80, mixed: 60, warmProse: 100, gptTokenizer: 5, aiTokenizer: 3, wasmRatio: 0.7, initMs: 25, worst: 3, brotliMB: 1.0, wasmMemMB: 24 };
const REAL = ["en", "zh", "code", "mixed"];
const COLD_INPUTS = ["en", "zh", "code", "mixed", "prose"];
/** The worst cases, 1 MB each (tests/bench/corpus.mjs), by input name. */
export const WORST = ["letters", "a", "base64", "cjk"];
const WORST_NAMES = { letters: "random a–z", a: "`a`", base64: "base64", cjk: "random CJK" };
const BASELINES = ["toktok-rs", "bpe-openai", "tiktoken-rs"];

const kib = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(n % 1e6 ? 2 : 0)} MB` : `${Math.round(n / 1024)} KiB`);
const ok = (pass) => (pass ? "yes" : "**no**");

const mb = (bytes) => (bytes / 1e6).toFixed(1);
/** A table's first two lines: the column names, then the first column left-aligned and the others right-aligned. */
const header = (columns) => [`| ${columns.join(" | ")} |`, `| --- | ${columns.slice(1).map(() => "---:").join(" | ")} |`];
/** One column name per worst case: `1 MB <its name><suffix>`, prefixed by `before`. */
const worstColumns = (before, suffix) => WORST.map((i) => `${before}1 MB ${WORST_NAMES[i]}${suffix}`);
/** `[input, ratio]` pairs as `input 1.23×, …` (`n/a` where there is no ratio). */
const listRatios = (pairs, digits = f1) => pairs.map(([i, x]) => `${i} ${x == null ? "n/a" : `${digits(x)}×`}`).join(", ");

/** The browser tables (also printed by run.mjs). */
export function browserTable(r) {
  const lines = [];
  const names = Object.keys(r.tokenizers ?? r.cold ?? {});
  const ours = r.tokenizers?.ctxguard;
  const cold = r.cold ?? {};
  const warm = r.warm ?? {};
  lines.push(
    "Cold: a fresh page per sample; the tokenizer is loaded and counts a short probe, then the first count of the input in that page is timed (median of the pages). Warm: the same after counting another text of the same kind (`prose-2`, `mixed-2`) in that page (the fair race below calls this mode fresh, and its warm the same text counted again).",
    "",
    ...header(["tokenizer", "init ms (fresh pages)", "cold en MB/s", "cold zh", "cold code", "cold mixed", "cold prose", "warm prose", "warm mixed", ...worstColumns("cold ", " ms")]),
  );
  for (const name of names) {
    const c = cold[name] ?? {};
    const w = warm[name] ?? {};
    const inits = r.inits?.[name] ?? [];
    const v = (x) => (x ? f1(x.mbps) : "–");
    const ms = (x) => (x ? f1(x.ms) : "–");
    lines.push(
      `| ${name} | ${inits.length ? f1(median(inits)) : "–"} | ${v(c.en)} | ${v(c.zh)} | ${v(c.code)} | ${v(c.mixed)} | ${v(c.prose)} | ${v(w.prose)} | ${v(w.mixed)} | ${WORST.map((i) => ms(c[i])).join(" | ")} |`,
    );
  }
  const fresh = freshInits(r);
  if (Object.keys(fresh).length) {
    lines.push(
      "",
      "Start-up as a first-time visitor: init (module import, set-up, the first o200k count of a probe) in fresh browser sessions, a new profile each (no HTTP cache, no compiled-code cache), the tokenizers taking turns:",
      "",
      "| tokenizer | sessions | init ms, each | median ms |",
      "| --- | ---: | --- | ---: |",
    );
    for (const [name, xs] of Object.entries(fresh)) lines.push(`| ${name} | ${xs.length} | ${xs.map(f1).join(", ")} | **${f1(median(xs))}** |`);
  }
  if (r.init_parts?.length) {
    const p = r.init_parts;
    const part = (k) => f1(median(p.map((x) => x[k])));
    lines.push(
      "",
      `Where ctxguard's init goes, one step after the other (\`initparts\` page, its own fresh session each; median of ${p.length}; \`init()\` itself streams, overlapping fetch and compile): import of the glue ${part("import_ms")} ms, fetch of the ${kib(p[0].wasm_bytes)} .wasm ${part("fetch_ms")} ms, \`WebAssembly.compile\` ${part("compile_ms")} ms, instantiation ${part("instantiate_ms")} ms, first o200k count (o200k's set-up on first use + a probe) ${part("first_count_ms")} ms, a second probe ${part("second_count_ms")} ms; the first cl100k count after that (cl100k's set-up) ${part("cl100k_first_count_ms")} ms.`,
    );
  }
  const big = names.filter((n) => cold[n]?.["big/en-50mb"] || cold[n]?.["big/mix-50mb"]);
  if (big.length) {
    const cell = (x) => (x ? `${f1(x.mbps)} MB/s (${f1(x.ms)} ms, ${x.tokens} tokens)` : "–");
    lines.push("", "Cold counts of 50 MB of real text (tests/bench/bigtext.mjs --mb 50: en = Python 3.11's manual from python3.11-doc, about 12 MB of reST repeated; mix = it, the Debian Reference in Simplified Chinese and Rust sources, paragraph by paragraph):", "", "| tokenizer | en 50 MB | mix 50 MB |", "| --- | ---: | ---: |");
    for (const n of big) lines.push(`| ${n} | ${cell(cold[n]["big/en-50mb"])} | ${cell(cold[n]["big/mix-50mb"])} |`);
  }
  const mem = cold.ctxguard?.en?.memory_after_setup;
  if (mem) {
    const peak = Math.max(...Object.values(cold.ctxguard).map((x) => x.memory_after ?? 0));
    lines.push("", `ctxguard's wasm linear memory after o200k set-up (init, first count of a probe): **${mb(mem)} MB**; largest after one cold count of a 1 MB input: ${mb(peak)} MB (linear memory never shrinks).`);
  }
  if (!r.tokenizers) return lines.join("\n");
  lines.push(
    "",
    "Repeated runs in one page (median after a warm-up; a tokenizer whose cross-call cache can be cleared, gpt-tokenizer's and ai-tokenizer's, has it cleared before each run, and is also shown with it kept warm across runs of the same text; ctxguard's and hypertok's caches cannot be cleared and stay warm; js-tiktoken and tiktoken keep nothing between calls: compare every engine in the same modes in the fair race below):",
    "",
    ...header(["tokenizer", "mixed MB/s", "prose", "en", "zh", "code", "mixed, cache warm", "prose, cache warm", ...worstColumns("", " ms"), "ctxguard speed-up (mixed, cache warm)"]),
  );
  for (const name of names) {
    const t = r.tokenizers[name];
    if (!t) continue;
    const cell = (w) => {
      if (!w) return "–";
      if (w.complete) return f1(w.ms);
      const st = w.steps ?? [];
      const growth = st.length > 1 && st.at(-2).ms > 0 ? `, ×${f1(st.at(-1).ms / st.at(-2).ms)} per 4× size` : "";
      return `n/a: ${f1(w.ms)} ms at ${kib(w.size)}${growth}; 1 MB extrapolates past 10 s`;
    };
    const v = (x) => (x ? f1(x.mbps) : "–");
    const theirs = t.mixed_warm_cache ?? t.mixed;
    lines.push(
      `| ${name} | ${v(t.mixed)} | ${v(t.prose)} | ${v(t.en)} | ${v(t.zh)} | ${v(t.code)} | ${v(t.mixed_warm_cache)} | ${v(t.prose_warm_cache)} | ${WORST.map((i) => cell(t.worst?.[i])).join(" | ")} | ${name === "ctxguard" ? "–" : `${f1(ours.mixed.mbps / theirs.mbps)}×`} |`,
    );
  }
  const mism = r.mismatches ?? [];
  lines.push(
    "",
    `Counts checked against ctxguard: ${r.vectors_checked} conformance \`count_text\` texts (under o200k), the mixed, prose, en, zh, code and base64 inputs, and each worst case (${WORST.join(", ")}) at the largest size run, for each JS tokenizer: ` +
      (mism.length === 0 ? "**no mismatch**." : `**${mism.length} mismatch(es)**:`),
  );
  for (const m of mism.slice(0, 20)) lines.push(`- ${m.tokenizer} on ${m.input}: ${m.theirs} tokens, ctxguard ${m.ctxguard}`);
  if (mism.length > 20) lines.push(`- … and ${mism.length - 20} more`);
  return lines.join("\n");
}

/** `name input setup_ms count_ms setup_kib peak_kib tokens` lines of cold.txt, by tokenizer and input. */
function coldSide(dir) {
  const file = join(dir, "cold.txt");
  const out = {};
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
    const [name, input, setupMs, countMs, setupKib, peakKib, tokens] = line.split(" ");
    (out[name] ??= {})[input] = { setupMs: +setupMs, countMs: +countMs, setupKib: +setupKib, peakKib: +peakKib, tokens: +tokens };
  }
  return out;
}

/** Every criterion result under `dir`: full id -> { ns, bytes }. */
function criterionResults(dir) {
  const out = {};
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const p = join(d, e.name);
      if (e.name === "new" && existsSync(join(p, "benchmark.json"))) {
        const b = JSON.parse(readFileSync(join(p, "benchmark.json"), "utf8"));
        const est = JSON.parse(readFileSync(join(p, "estimates.json"), "utf8"));
        out[b.full_id] = { ns: est.median.point_estimate, bytes: b.throughput?.Bytes ?? null };
      } else if (e.name !== "base" && e.name !== "change") {
        walk(p);
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** MB/s of `name`'s cold count of `input` in the criterion results, or null when it was not run. */
function coldMBps(res, name, input) {
  const x = res[`cold/${name}/${input}`];
  return x && x.bytes ? x.bytes / 1e6 / (x.ns / 1e9) : null;
}

/** The native peers (exact baselines) whose cold counts were run. */
const nativePeers = (res) => BASELINES.filter((n) => res[`cold/${n}/en`]);

/** ctxguard's cold MB/s on `input` ÷ the fastest native peer's, or null when either was not run. */
function overFastestPeer(res, input) {
  const best = Math.max(0, ...nativePeers(res).map((n) => coldMBps(res, n, input) ?? 0));
  const ours = coldMBps(res, "ctxguard", input);
  return best && ours ? ours / best : null;
}

/** Each worst case's time per byte ÷ prose's, from `mbps(input)` (MB/s, or null where not run: no ratio). */
function worstOverProse(mbps) {
  const prose = mbps("prose");
  return WORST.map((i) => [i, prose && mbps(i) ? prose / mbps(i) : null]);
}

/** Met when there are ratios, every one is there and each `pass`es. */
const allMeet = (pairs, pass) => pairs.length > 0 && pairs.every(([, x]) => x != null && pass(x));
/** Whether any of the ratios is there (the inputs were run). */
const ran = (pairs) => pairs.some(([, x]) => x != null);
/** MB/s of a browser result table's input (cold or warm pages, repeated runs), or null. */
const pageMBps = (table) => (input) => table?.[input]?.mbps ?? null;

/** The "what bounds a miss" cell: a dash where the target is met, else the measured bound. */
const boundCell = (met, bound) => (met ? "–" : bound ?? "not measured in this run");

/** The worst-case row, `where`: each worst case ÷ prose per byte, cold, 1 MB. */
const worstRow = (where, pairs, bound) => {
  const met = allMeet(pairs, (x) => x <= PEER_TARGETS.worst);
  return `| worst case ÷ prose, per byte, ≤ ${PEER_TARGETS.worst}× (${where}, cold, 1 MB) | ${listRatios(pairs)} | ${ok(met)} | ${boundCell(met, bound)} |`;
};

/** The brotli size target's row (the tokenizer's and the peer targets share it): `brotli` bytes against `limitMB`. */
const brotliRow = (brotli, limitMB, bound) => {
  const met = brotli / 1e6 <= limitMB;
  const tail = bound === undefined ? "" : ` ${boundCell(met, bound)} |`;
  return `| core \`.wasm\` ≤ ${limitMB.toFixed(1)} MB brotli, with o200k, cl100k, p50k and r50k | ${(brotli / 1e6).toFixed(2)} MB | ${ok(met)} |${tail}`;
};

function time(ns) {
  if (ns < 1e3) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(1)} µs`;
  if (ns < 1e9) return `${f1(ns / 1e6)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}

export function nativeTables(dir) {
  const res = criterionResults(dir);
  const get = (id) => res[id];
  const mbps = (r) => (r && r.bytes ? f1(r.bytes / 1e6 / (r.ns / 1e9)) : "–");
  const lines = [];
  // Side-by-side rows: ctxguard/X beside tiktoken-rs/X.
  const pair = (group, cases, label) => {
    lines.push("| " + label + " | ctxguard | MB/s | tiktoken-rs | MB/s | speed-up |", "| --- | ---: | ---: | ---: | ---: | ---: |");
    for (const c of cases) {
      const a = get(`${group}/ctxguard/${c}`);
      const b = get(`${group}/tiktoken-rs/${c}`);
      if (!a && !b) continue;
      lines.push(
        `| ${c} | ${a ? time(a.ns) : "–"} | ${mbps(a)} | ${b ? time(b.ns) : group === "cut" ? "–" : "not run"} | ${mbps(b)} | ${a && b ? `${f1(b.ns / a.ns)}×` : "–"} |`,
      );
    }
    lines.push("");
  };
  const side = coldSide(dir);
  const tokenizers = ["ctxguard", ...BASELINES].filter((n) => res[`cold/${n}/en`]);
  if (tokenizers.length) {
    lines.push(
      "### Cold counts (o200k): the first count of a text in a fresh process",
      "",
      "Each sample is a fresh process (the bench binary re-run as a child): it sets the tokenizer up, counts `hello world`, then counts the input once, timed; median of criterion's samples (10 processes). Set-up: from nothing to the probe's count. RSS: resident memory the set-up added; peak: the child's peak resident memory (text included). MB = 10⁶ bytes.",
      "",
      ...header(["tokenizer (native)", "en MB/s", "zh", "code", "mixed", "prose", "set-up", "RSS after set-up", "peak RSS", ...worstColumns("", "")]),
    );
    for (const n of tokenizers) {
      const sd = side[n]?.en;
      const worst = (i) => {
        const x = get(`cold/${n}/${i}`);
        return x ? `${time(x.ns)} (${f1(coldMBps(res, n, i))} MB/s)` : "–";
      };
      lines.push(
        `| ${n} | ${COLD_INPUTS.map((i) => (coldMBps(res, n, i) ? f1(coldMBps(res, n, i)) : "–")).join(" | ")} | ${sd ? `${f1(sd.setupMs)} ms` : "–"} | ${sd ? `${f1(sd.setupKib / 1024)} MiB` : "–"} | ${sd ? `${f1(sd.peakKib / 1024)} MiB` : "–"} | ${WORST.map(worst).join(" | ")} |`,
      );
    }
    const vsPeer = (i) => (overFastestPeer(res, i) ? `${f1(overFastestPeer(res, i))}×` : "–");
    lines.push(`| **ctxguard ÷ fastest other** | ${COLD_INPUTS.map(vsPeer).join(" | ")} | | | | ${WORST.map(vsPeer).join(" | ")} |`, "");
    const excluded = existsSync(join(dir, "baselines.txt")) ? readFileSync(join(dir, "baselines.txt"), "utf8").trim() : "";
    lines.push(
      `Baselines: toktok-rs 0.3.0, bpe-openai 0.3.2, tiktoken-rs 0.12.1 (crates.io, pinned in core/Cargo.toml); their counts were compared with tiktoken-rs's on every input (the one-piece \`a\`, letters and cjk inputs on a 64 KiB prefix, tiktoken-rs being quadratic on them): ${excluded ? `excluded: ${excluded}` : "all equal, none excluded"}. Inputs: en = regex-automata's rustdoc comments, zh = the Chinese prose lines of the conformance vectors (smaller than 1 MB: all there is), code = serde_json's and fancy-regex's sources (tests/bench/real.mjs); mixed, prose, a, letters, base64, cjk (U+4E00..U+9FFF, uniformly) generated (tests/bench/corpus.mjs).`,
      "",
    );
    lines.push("### The same text again (o200k, one process)", "", "Criterion's repeated counts of one text in one process: a tokenizer with a cross-call cache answers from it after the first run: toktok-rs's, and ctxguard's bounded piece cache (one per encoding, at most 4 MiB: 2 MiB of slots, 1 MiB of token and 1 MiB of byte arena; full arenas empty it).", "");
    lines.push(...header(["tokenizer", ...COLD_INPUTS.map((i) => `${i} MB/s`)]));
    for (const n of tokenizers) {
      lines.push(`| ${n} | ${COLD_INPUTS.map((i) => mbps(get(`again/${n}/${i}`))).join(" | ")} |`);
    }
    lines.push("");
  }
  lines.push("### cl100k (gpt-4) on the mixed input", "");
  pair("count", ["mixed-cl100k"], "input (~1 MB)");
  lines.push("### Cut (head/tail truncate of the 1 MB mixed input)", "");
  pair("cut", ["head_tail", "truncate_body"], "operation");
  lines.push("### Attachment preview: 8 attachments, 10 MB in total", "");
  lines.push("| operation | time | MB/s |", "| --- | ---: | ---: |");
  for (const id of ["ctxguard/preview-8x1.25MB", "ctxguard/count-once-8x1.25MB", "tiktoken-rs/count-once-8x1.25MB"]) {
    const x = get(`preview/${id}`);
    if (x) lines.push(`| ${id} | ${time(x.ns)} | ${mbps(x)} |`);
  }
  const pv = get("preview/ctxguard/preview-8x1.25MB");
  const once = get("preview/ctxguard/count-once-8x1.25MB");
  if (pv && once) lines.push("", `Preview ÷ counting the bytes once: **${(pv.ns / once.ns).toFixed(2)}×** (target ≤ ${TARGETS.preview}×).`);
  lines.push("");
  lines.push("### Snapshot after appending one message to a ~1.7 M-token history", "");
  lines.push("| operation | time |", "| --- | ---: |");
  for (const id of ["ctxguard/ledger-append-1-snapshot", "ctxguard/full-recount", "tiktoken-rs/full-recount"]) {
    const x = get(`snapshot/${id}`);
    if (x) lines.push(`| ${id} | ${time(x.ns)} |`);
  }
  const led = get("snapshot/ctxguard/ledger-append-1-snapshot");
  const rec = get("snapshot/ctxguard/full-recount");
  const trec = get("snapshot/tiktoken-rs/full-recount");
  if (led && rec) {
    lines.push(
      "",
      `Ledger snapshot vs full recount: **${f1(rec.ns / led.ns)}×** faster than ctxguard's recount` +
        (trec ? `, **${f1(trec.ns / led.ns)}×** faster than tiktoken-rs's` : "") +
        ` (targets: ≤ ${TARGETS.snapshotMs} ms, ≥ ${TARGETS.snapshotRatio}×).`,
    );
  }
  lines.push("");
  return { text: lines.join("\n"), res };
}

function machine(chromium, loadStart) {
  const cpuinfo = existsSync("/proc/cpuinfo") ? readFileSync("/proc/cpuinfo", "utf8") : "";
  const model = cpuinfo.match(/^model name\s*:\s*(.+)$/m)?.[1] ?? cpus()[0]?.model ?? "unknown";
  const mem = existsSync("/proc/meminfo") ? readFileSync("/proc/meminfo", "utf8").match(/^MemTotal:\s*(\d+) kB/m) : null;
  const memGiB = mem ? Number(mem[1]) / 1024 / 1024 : totalmem() / 2 ** 30;
  let nproc = String(cpus().length);
  try {
    nproc = execFileSync("nproc", { encoding: "utf8" }).trim();
  } catch {
    // keep os.cpus()
  }
  let rustc = "";
  try {
    rustc = execFileSync("rustc", ["--version"], { encoding: "utf8" }).trim();
  } catch {
    // not on PATH
  }
  const load = existsSync("/proc/loadavg") ? readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ") : "?";
  return [
    `- date: ${new Date().toISOString().replace(/\.\d+Z$/, "Z")}`,
    `- CPU: ${model}; nproc ${nproc}; load average (1, 5, 15 min) at the start of the run: ${loadStart ?? "?"}, at the end: ${load} (other builds shared the machine: figures are noisy)`,
    `- memory: ${memGiB.toFixed(1)} GiB`,
    `- Chromium: ${chromium ?? "unknown"} (headless, /usr/bin/chromium via /usr/bin/chromedriver); Node ${process.version}; ${rustc}`,
  ].join("\n");
}

/** The browser targets against hypertok: ctxguard ÷ hypertok (`single` tier) in the same run, start-up, worst cases. */
function peerTargetsBrowser(browser, bounds) {
  const rows = ["| target (Chromium, against hypertok in the same run) | measured | met | what bounds a miss (measured in this run) |", "| --- | --- | --- | --- |"];
  const cold = browser?.cold ?? {};
  const warm = browser?.warm ?? {};
  const runs = browser?.tokenizers ?? {};
  const ours = "ctxguard";
  const them = "hypertok";
  // The run page's checks, and the cold pages' counts (the 50 MB texts are counted there only).
  const coldDiffs = Object.keys(cold[them] ?? {}).filter((k) => cold[ours]?.[k] && cold[ours][k].tokens !== cold[them][k].tokens);
  const pageDiffs = (browser?.mismatches ?? []).filter((m) => m.tokenizer === them).length;
  const clean = pageDiffs === 0 && coldDiffs.length === 0;
  const ratios = (table, inputs) => inputs.filter((i) => table[ours]?.[i] && table[them]?.[i]).map((i) => [i, table[ours][i].mbps / table[them][i].mbps]);
  const row = (what, rs, bound) => {
    if (!rs.length) return;
    const met = allMeet(rs, (x) => x >= PEER_TARGETS.hypertok);
    rows.push(`| ${what} ≥ ${PEER_TARGETS.hypertok.toFixed(1)}× hypertok | ${listRatios(rs, (x) => x.toFixed(2))} | ${ok(met)} | ${boundCell(met, bound)} |`);
  };
  row("cold (first count in a fresh page), o200k", ratios(cold, COLD_INPUTS), bounds.perByteWork);
  row("warm (after another text of the kind, same page)", ratios(warm, ["prose", "mixed"]), bounds.perByteWork);
  row("cold, 50 MB of real text (Python's manual; it, Chinese and code interleaved)", ratios(cold, ["big/en-50mb", "big/mix-50mb"]), bounds.perByteWork);
  row("repeated runs of one text, same page (both engines' caches kept: neither can be cleared)", ratios(runs, ["mixed", "prose", "en", "zh", "code"]), bounds.perByteWork);
  // The fair race: each mode's lowest per-text ratio, per kind.
  const race = browser?.race;
  for (const mode of ["cold", "warm", "fresh"]) {
    const rs = Object.entries(race?.texts ?? {})
      .map(([kind, list]) => {
        const xs = list.map((t) => [race.results[them]?.[mode]?.[t.key], race.results[ours]?.[mode]?.[t.key]]).filter(([a, b]) => a && b).map(([a, b]) => a.ms / b.ms);
        return xs.length ? [`${kind} (lowest of ${xs.length})`, Math.min(...xs)] : null;
      })
      .filter(Boolean);
    row(`fair race, ${mode} (every text of every kind; tests/bench/race.mjs)`, rs, bounds.perByteWork);
  }
  if (runs[them] || cold[them]) {
    const differ = [pageDiffs ? `${pageDiffs} in the run page (listed under the browser tables)` : "", ...coldDiffs.map((k) => `cold ${k}: ctxguard ${cold[ours][k].tokens}, hypertok ${cold[them][k].tokens}`)].filter(Boolean);
    rows.push(`| counts equal to hypertok's (conformance texts, every input, worst cases, the cold pages' counts) | ${clean ? "equal" : `**differ**: ${differ.join("; ")}`} | ${ok(clean)} | ${clean ? "–" : "a bug in ctxguard until shown otherwise"} |`);
  }
  const fresh = freshInits(browser);
  if (fresh[ours]?.length) {
    const m = (n) => (fresh[n]?.length ? `${n} ${f1(median(fresh[n]))} ms` : null);
    const met = median(fresh[ours]) <= PEER_TARGETS.initMs;
    rows.push(`| \`init()\` → first o200k count ≤ ${PEER_TARGETS.initMs} ms, median of ${fresh[ours].length} fresh browser sessions (new profile each) | ${["ctxguard", "hypertok", "gpt-tokenizer"].map(m).filter(Boolean).join("; ")} | ${ok(met)} | ${boundCell(met, bounds.init)} |`);
  }
  const worst = worstOverProse(pageMBps(cold[ours]));
  if (ran(worst)) rows.push(worstRow("Chromium", worst, bounds.worstRepeated));
  const wt = (n) => runs[n]?.worst;
  if (wt(ours) && wt(them)) {
    const w = WORST.map((i) => [i, wt(them)[i]?.complete && wt(ours)[i] ? wt(them)[i].ms / wt(ours)[i].ms : null]);
    const met = allMeet(w, (x) => x >= PEER_TARGETS.hypertok);
    rows.push(`| worst cases, repeated runs: hypertok's time ÷ ctxguard's (1 MB) | ${listRatios(w, (x) => x.toFixed(2))} | ${ok(met)} | ${boundCell(met, bounds.worstRepeated)} |`);
  }
  return rows.length > 2 ? rows.join("\n") : "";
}

/**
 * The native targets against the peers (criterion's cold counts: one core, the first count in a fresh
 * process), the package's size, and exactness at scale (core's `differential` example's lines).
 */
function peerTargetsNative(res, brotli, differential, bounds) {
  const rows = ["| target (native: one core, cold, o200k; the package; exactness) | measured | met | what bounds a miss (measured in this run) |", "| --- | --- | --- | --- |"];
  const ours = (i) => coldMBps(res, "ctxguard", i);
  if (ours("prose")) {
    const met = ours("prose") >= PEER_TARGETS.nativeMBps;
    rows.push(`| native ≥ ${PEER_TARGETS.nativeMBps} MB/s on English prose (one core, cold) | prose ${f1(ours("prose"))} MB/s; en (real English) ${ours("en") ? f1(ours("en")) : "–"} MB/s | ${ok(met)} | ${boundCell(met, bounds.native300)} |`);
  }
  const peers = nativePeers(res);
  if (ours("en") && peers.length) {
    const pairs = [...COLD_INPUTS, ...WORST].map((i) => [i, overFastestPeer(res, i)]);
    const met = allMeet(pairs, (x) => x >= PEER_TARGETS.nativePeers);
    const short = pairs.filter(([, x]) => x == null || x < PEER_TARGETS.nativePeers).map(([i]) => i);
    rows.push(`| native ≥ ${PEER_TARGETS.nativePeers.toFixed(1)}× the fastest of ${peers.join(", ")} on every input (cold) | ${listRatios(pairs)} | ${ok(met)} | ${boundCell(met, bounds.nativePeers(short))} |`);
  }
  const worst = worstOverProse(ours);
  if (ran(worst)) rows.push(worstRow("native", worst, bounds.worstRepeated));
  if (brotli != null) rows.push(brotliRow(brotli, PEER_TARGETS.brotliMB, bounds.size ?? null));
  rows.push(exactRow(differential));
  return rows.join("\n");
}

/**
 * The "exact at scale" row from core's `differential` example (ctxguard against tiktoken-rs
 * on whole files and ~1 MB slices, four encodings), or where to find it when this report has none.
 */
function exactRow(differential) {
  const what = "exact at scale: counts equal to tiktoken-rs's on 100 MB real texts (tests/bench/bigtext.mjs), whole and per ~1 MB slice, o200k, cl100k, p50k and r50k";
  if (!differential?.length) {
    return `| ${what} | not given to this report (\`--differential\`: scripts/bench.sh runs core's \`differential\` example with the native part); when that ran, the workers section below has it ("Exact against tiktoken-rs") | – | – |`;
  }
  const name = (d) => basename(d.file);
  const files = [...new Map(differential.map((d) => [name(d), d])).values()].map((d) => `${name(d)} (${mb(d.bytes)} MB, ${d.slices} slices)`);
  const encodings = [...new Set(differential.map((d) => d.encoding))];
  const bad = differential.filter((d) => !d.equal);
  const measured = bad.length
    ? `**differ**: ${bad.map((d) => `${name(d)} ${d.encoding}: ctxguard ${d.ctxguard}, tiktoken-rs ${d.tiktoken_rs}, ${d.differing_slices.length} of ${d.slices} slices differ`).join("; ")}`
    : `equal: ${files.join(", ")}; ${encodings.join(", ")}`;
  const met = bad.length === 0 && encodings.length === 4;
  return `| ${what} | ${measured} | ${ok(met)} | ${met ? "–" : "a bug in ctxguard until shown otherwise"} |`;
}

function targets(native, browser, brotli, criterionDir) {
  const rows = ["| target (the tokenizer: speed, start-up, size, memory) | measured | met |", "| --- | --- | --- |"];
  const { res } = native;
  const speed = (i) => coldMBps(res, "ctxguard", i);
  if (res["cold/ctxguard/en"]) {
    const ratios = REAL.map((i) => [i, overFastestPeer(res, i)]);
    rows.push(`| native cold, o200k, ≥ ${TOKENIZER_TARGETS.nativeRatio}× the fastest of ${nativePeers(res).join(", ")} on every input | ${listRatios(ratios)} | ${ok(allMeet(ratios, (x) => x >= TOKENIZER_TARGETS.nativeRatio))} |`);
  }
  const c = browser?.cold?.ctxguard;
  if (c) {
    rows.push(`| Chromium cold prose ≥ ${TOKENIZER_TARGETS.prose} MB/s, mixed ≥ ${TOKENIZER_TARGETS.mixed} MB/s | prose ${f1(c.prose.mbps)}, mixed ${f1(c.mixed.mbps)} (en ${f1(c.en.mbps)}, zh ${f1(c.zh.mbps)}, code ${f1(c.code.mbps)}) MB/s | ${ok(c.prose.mbps >= TOKENIZER_TARGETS.prose && c.mixed.mbps >= TOKENIZER_TARGETS.mixed)} |`);
    const w = browser.warm?.ctxguard;
    if (w) rows.push(`| Chromium warm prose ≥ ${TOKENIZER_TARGETS.warmProse} MB/s (ctxguard's cross-call piece cache: at most 4 MiB per encoding; cold is the row above) | prose ${f1(w.prose.mbps)}, mixed ${f1(w.mixed.mbps)} MB/s | ${ok(w.prose.mbps >= TOKENIZER_TARGETS.warmProse)} |`);
  }
  const t = browser?.tokenizers;
  if (t?.ctxguard) {
    const vs = (name) => (t[name] ? t.ctxguard.mixed.mbps / (t[name].mixed_warm_cache ?? t[name].mixed).mbps : null);
    const g = vs("gpt-tokenizer");
    const a = vs("ai-tokenizer");
    const clean = (browser.mismatches ?? []).filter((m) => ["gpt-tokenizer", "ai-tokenizer"].includes(m.tokenizer)).length === 0;
    rows.push(`| Chromium, mixed, same page: ≥ ${TOKENIZER_TARGETS.gptTokenizer}× gpt-tokenizer (cache warm), ≥ ${TOKENIZER_TARGETS.aiTokenizer}× ai-tokenizer, counts equal | gpt-tokenizer ${g ? f1(g) : "–"}×, ai-tokenizer ${a ? f1(a) : "–"}× (both with their caches warm); counts ${clean ? "equal" : "**differ**"} | ${ok(g >= TOKENIZER_TARGETS.gptTokenizer && a >= TOKENIZER_TARGETS.aiTokenizer && clean)} |`);
  }
  if (c && speed("prose")) {
    const r = c.prose.mbps / speed("prose");
    const re = c.en.mbps / speed("en");
    rows.push(`| wasm ÷ native speed on prose ≥ ${TOKENIZER_TARGETS.wasmRatio} (cold counts) | prose ${r.toFixed(2)}, en ${re.toFixed(2)} | ${ok(r >= TOKENIZER_TARGETS.wasmRatio)} |`);
  }
  if (browser?.inits?.ctxguard) {
    const pages = median(browser.inits.ctxguard);
    const sessions = freshInits(browser).ctxguard;
    const fresh = sessions?.length ? median(sessions) : null;
    rows.push(`| \`init()\` → first o200k count ≤ ${TOKENIZER_TARGETS.initMs} ms, median of 5 (fresh pages of one session; fresh browser sessions) | ${f1(pages)} ms; ${fresh != null ? `${f1(fresh)} ms` : "–"} | ${ok(pages <= TOKENIZER_TARGETS.initMs && fresh != null && fresh <= TOKENIZER_TARGETS.initMs)} |`);
  }
  const worstRows = [
    ["native", worstOverProse(speed)],
    ["Chromium", worstOverProse(pageMBps(c))],
  ].filter(([, w]) => ran(w));
  if (worstRows.length) {
    rows.push(`| worst case ÷ prose, per byte, ≤ ${TOKENIZER_TARGETS.worst}× everywhere (cold) | ${worstRows.map(([where, w]) => `${where}: ${listRatios(w)}`).join("; ")} | ${ok(worstRows.every(([, w]) => allMeet(w, (x) => x <= TOKENIZER_TARGETS.worst)))} |`);
  }
  if (brotli != null) rows.push(brotliRow(brotli, TOKENIZER_TARGETS.brotliMB));
  const side = criterionDir ? coldSide(criterionDir) : {};
  const mem = c?.en?.memory_after_setup;
  if (mem || side.ctxguard?.en) {
    rows.push(`| memory after o200k set-up: wasm linear memory ≤ ${TOKENIZER_TARGETS.wasmMemMB} MB; native RSS delta reported | wasm ${mem ? `${mb(mem)} MB` : "–"}; native ${side.ctxguard?.en ? `${f1(side.ctxguard.en.setupKib / 1024)} MiB` : "–"} | ${ok(mem && mem / 1e6 <= TOKENIZER_TARGETS.wasmMemMB)} |`);
  }
  rows.push("", "| target (ledger snapshots and the attachment preview) | measured | met |", "| --- | --- | --- |");
  const led = res["snapshot/ctxguard/ledger-append-1-snapshot"];
  const rec = res["snapshot/ctxguard/full-recount"];
  if (led && rec) {
    rows.push(`| snapshot ≤ ${TARGETS.snapshotMs} ms (native) | ${time(led.ns)} | ${ok(led.ns / 1e6 <= TARGETS.snapshotMs)} |`);
    rows.push(`| snapshot ≥ ${TARGETS.snapshotRatio}× a full recount (native) | ${f1(rec.ns / led.ns)}× | ${ok(rec.ns / led.ns >= TARGETS.snapshotRatio)} |`);
  }
  const wl = browser?.ledger;
  if (wl) {
    rows.push(
      `| append one message + snapshot ≤ 5 ms (wasm \`TokenLedger\`, ${(wl.history_tokens / 1e6).toFixed(2)} M-token history) | ` +
        `${(wl.append_snapshot_ms * 1000).toFixed(1)} µs (mean of ${wl.batch}), ${Math.round(wl.recount_ms / wl.append_snapshot_ms)}× ` +
        `faster than \`contextMetrics\` recounting it (${f1(wl.recount_ms)} ms) | ${ok(wl.append_snapshot_ms <= 5)} |`,
    );
  }
  const pv = res["preview/ctxguard/preview-8x1.25MB"];
  const once = res["preview/ctxguard/count-once-8x1.25MB"];
  if (pv && once) rows.push(`| preview of 8 attachments (10 MB) ≤ ${TARGETS.preview}× counting once (native) | ${(pv.ns / once.ns).toFixed(2)}× | ${ok(pv.ns / once.ns <= TARGETS.preview)} |`);
  return rows.join("\n");
}

function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
  };
  const criterionDir = option("--criterion", null);
  const browserFile = option("--browser", null);
  const outFile = option("--out", join(root, "BENCHMARKS.md"));
  const pkgDir = option("--pkg", join(root, "pkg/core"));
  const loadStart = option("--load-start", null);
  const sectionsFile = option("--sections", null);
  const differentialFile = option("--differential", null);
  const profileFile = option("--profile", null);
  const profile = profileFile && existsSync(profileFile) ? JSON.parse(readFileSync(profileFile, "utf8")) : null;
  const differential = differentialFile && existsSync(differentialFile)
    ? readFileSync(differentialFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))
    : null;
  const sections = sectionsFile && existsSync(sectionsFile) ? readFileSync(sectionsFile, "utf8").trimEnd() : null;
  const native = criterionDir ? nativeTables(criterionDir) : { text: "_not run_\n", res: {} };
  const browser = browserFile && existsSync(browserFile) ? JSON.parse(readFileSync(browserFile, "utf8")) : null;
  const startupFile = criterionDir ? join(criterionDir, "startup.json") : null;
  const startup = startupFile && existsSync(startupFile) ? JSON.parse(readFileSync(startupFile, "utf8")) : null;
  let sizes = "";
  let brotli = null;
  try {
    sizes = execFileSync(process.execPath, [join(root, "tests/wasm-host/size.mjs"), pkgDir], { encoding: "utf8" }).trim();
    const m = sizes.match(/ctxguard_core_bg\.wasm:.*brotli [\d.]+ MB \((\d+) B\)/);
    brotli = m ? Number(m[1]) : null;
  } catch (e) {
    sizes = `size report failed: ${e.message}`;
  }
  const fastestPeer = (input) =>
    nativePeers(native.res)
      .map((name) => ({ name, mbps: coldMBps(native.res, name, input) }))
      .filter((p) => p.mbps)
      .sort((x, y) => y.mbps - x.mbps)[0] ?? null;
  const bounds = missBounds({ profile, sections, browser, coldMBps: (i) => coldMBps(native.res, "ctxguard", i), fastestPeer });
  const md = [
    "# Benchmarks",
    "",
    "Written by `scripts/bench.sh` (do not edit by hand; re-run it). Figures depend on the machine and on what else it runs: compare rows of one run, not runs.",
    "",
    "## Machine",
    "",
    machine(browser?.chromium, loadStart),
    "",
    "## Targets",
    "",
    targets(native, browser, brotli, criterionDir),
    "",
    peerTargetsBrowser(browser, bounds),
    "",
    peerTargetsNative(native.res, brotli, differential, bounds),
    "",
    "## Browser (headless Chromium, release package, o200k)",
    "",
    browser
      ? `Init: from loading the tokenizer's module (for ctxguard: \`import\` + \`init()\`) to its first count result, each on a fresh page load with nothing cached (after one untimed page load that starts the session's renderer). MB = 10⁶ bytes of UTF-8. Inputs (\`tests/bench/corpus.mjs\`, \`tests/bench/real.mjs\`, the same files as natively): ${Object.entries(browser.bytes ?? {}).map(([k, v]) => `${k} ${v} B`).join(", ")}. Worst cases in repeated runs run on prefixes growing 4× at a time from 1 KiB to 1 MB (bytes of UTF-8, cut at a whole character), stopping before a size whose time, extrapolated quadratically from the last one, would pass 10 s (the cell then gives the largest size run and how much 4× the size cost).\n\n` +
        browserTable(browser) +
        (browser.race ? `\n\n${raceTable(browser.race)}` : "") +
        `\n\nTokenizers: ctxguard (the release npm package, \`countTokens(text, "gpt-4o")\`), hypertok 0.3.4 (\`fromBytes\` on \`@hypertok/vocab-o200k\`'s bytes, fetched as its README shows, tier \`single\`, \`encodeSync(text).length\`; \`reserved: { match: [] }\` for a text containing \`<|\`, where ctxguard counts special-token text as plain text), gpt-tokenizer \`countTokens\` (o200k_base), ai-tokenizer \`new Tokenizer(o200k_base).encode(text, "all")\` (its ordinary path), js-tiktoken \`Tiktoken(o200k_base).encode\`, tiktoken's npm wasm build (\`tiktoken/lite/init\` + \`encoders/o200k_base.json\`, \`encode_ordinary\`); versions pinned in \`tests/bench/package-lock.json\`. User agent: ${browser.userAgent}.`
      : "_not run_",
    "",
    "## Native (criterion, release, one core)",
    "",
    startup ? `o200k start-up to the first count, one shot in a fresh process: ctxguard ${f1(startup.ctxguard_ms)} ms, tiktoken-rs ${f1(startup.tiktoken_rs_ms)} ms.\n` : "",
    "Criterion (`core/benches/engine.rs`, short measurement time), on the same inputs as the browser tables.",
    "",
    native.text,
    profileTable(profile),
    "## Package size (release `ctxguard_core_bg.wasm`)",
    "",
    "```",
    sizes,
    "```",
    "",
    ...(sections
      ? [
          "Its sections, and the vocabulary tables core's build script embeds (found in the data section by their first bytes), each compressed on its own (`tests/bench/wasm-sections.mjs`):",
          "",
          "```",
          sections,
          "```",
          "",
        ]
      : []),
  ].join("\n");
  // Sections other scripts own (scripts/bench-relay.sh's, tests/elements/size.mjs's) are kept as they are.
  const previous = existsSync(outFile) ? readFileSync(outFile, "utf8") : "";
  const kept = [...previous.matchAll(/<!-- ([\w-]+):begin -->[\s\S]*?<!-- \1:end -->/g)].map((m) => m[0]);
  writeFileSync(outFile, kept.length ? `${md.trimEnd()}\n\n${kept.join("\n\n")}\n` : md);
  console.log(`wrote ${outFile}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main();
