// Where one cold count's instructions go: valgrind's callgrind counts the
// instructions of core's `count_once` example (o200k set up, then one count of
// FILE, collected alone) and sorts them by the engine's parts, from the file and
// function callgrind_annotate names for each line (inlined code keeps its own
// file). Instruction counts repeat exactly whatever else the machine runs, so
// they say what bounds a speed where a timing cannot. Node built-ins only.
//
// Usage: node tests/bench/profile.mjs --bin target/profiling/examples/count_once --out FILE.json INPUT.txt...
// (scripts/bench.sh builds the example with `--profile profiling` and runs this when valgrind is there)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

/** The engine's parts, first match wins: by the function a line was counted in, then by its file. */
const PARTS = [
  ["merging", (file, fn) => /merge::|window::|tables::|vocab::Vocabulary/.test(fn)],
  ["pre-tokenizer", (file, fn) => /pretokenize|unicode/.test(fn) || /pretokenize(\.rs|\/)|unicode\.rs/.test(file)],
  ["piece cache", (file, fn) => /memo::/.test(fn) || /memo\.rs/.test(file)],
  ["count loop", () => true],
];

/** Instructions by part from callgrind_annotate's per-function listing (its `file:function` rows). */
export function parts(annotated) {
  const out = Object.fromEntries(PARTS.map(([name]) => [name, 0]));
  let total = 0;
  const listing = annotated.slice(annotated.indexOf("file:function"));
  for (const line of listing.split("\n").slice(2)) {
    const m = line.match(/^\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*?):(\S.*?)(?: \[[^\]]*\])?$/);
    if (!m) {
      if (line.trim() === "" && total > 0) break;
      continue;
    }
    const n = Number(m[1].replaceAll(",", ""));
    const [, , file, fn] = m;
    const [name] = PARTS.find(([, test]) => test(file, fn));
    out[name] += n;
    total += n;
  }
  return { total, parts: out };
}

/** One input's profile: its bytes, tokens, instructions collected in the count, and their parts. */
export function profile(bin, input) {
  const dir = mkdtempSync(join(tmpdir(), "ctxguard-profile-"));
  try {
    const file = join(dir, "callgrind.out");
    const run = execFileSync(
      "valgrind",
      ["--tool=callgrind", `--callgrind-out-file=${file}`, "--toggle-collect=*count_once::measured*", bin, input],
      { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
    );
    const annotated = execFileSync("callgrind_annotate", [file], { encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "ignore"] });
    const summary = annotated.match(/^\s*([\d,]+)\s+\(100\.0%\)\s+PROGRAM TOTALS/m);
    const { total, parts: byPart } = parts(annotated);
    return {
      bytes: statSync(input).size,
      tokens: Number(run.trim().split("\n").at(-1)),
      instructions: summary ? Number(summary[1].replaceAll(",", "")) : total,
      parts: byPart,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function main() {
  const args = process.argv.slice(2);
  const option = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args.splice(i, 2)[1] : null;
  };
  const bin = option("--bin");
  const out = option("--out");
  if (!bin || !out || args.length === 0) {
    console.error("usage: node tests/bench/profile.mjs --bin COUNT_ONCE --out FILE.json INPUT.txt...");
    process.exit(2);
  }
  const result = {};
  for (const input of args) {
    const name = basename(input, ".txt");
    result[name] = profile(bin, input);
    const p = result[name];
    console.log(`${name}: ${(p.instructions / p.bytes).toFixed(1)} instructions a byte (${Object.entries(p.parts).map(([k, v]) => `${k} ${((100 * v) / p.instructions).toFixed(0)}%`).join(", ")})`);
  }
  writeFileSync(out, JSON.stringify(result, null, 1));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main();

/** BENCHMARKS.md's table of a profile: each input's instructions a byte and their shares by part. */
export function profileTable(result) {
  const names = Object.keys(result ?? {});
  if (!names.length) return "";
  const partNames = PARTS.map(([name]) => name);
  const lines = [
    "### Where a cold count's instructions go (callgrind, o200k)",
    "",
    "One cold count of each 1 MB input in core's `count_once` example (o200k set up first, not counted), instructions counted by valgrind's callgrind and sorted by the engine's part each line of code belongs to (`tests/bench/profile.mjs`; inlined code counts for its own file). Instruction counts repeat exactly on any load, so they show what bounds the speeds above.",
    "",
    `| input | bytes | tokens | instructions a byte | ${partNames.join(" | ")} |`,
    `| --- | ---: | ---: | ---: | ${partNames.map(() => "---:").join(" | ")} |`,
  ];
  for (const name of names) {
    const p = result[name];
    const share = (part) => `${((100 * p.parts[part]) / p.instructions).toFixed(1)}%`;
    lines.push(`| ${name} | ${p.bytes} | ${p.tokens} | ${(p.instructions / p.bytes).toFixed(1)} | ${partNames.map(share).join(" | ")} |`);
  }
  return lines.join("\n") + "\n";
}
