// The browser race measured fairly: every engine in the same three modes, each
// sample in a fresh page, on several texts per kind, reported as a spread.
//
//   cold   a fresh page: the engine set up and warmed on a short probe, then its first
//          count of the text (every cache empty, for every engine)
//   warm   the same page after counting the same text once: each engine's own caches kept
//   fresh  the same page after counting another text of the same kind: caches kept, new text
//
// No engine's cache is cleared between the counts of one page, whether or not it could be
// (CACHES): a fresh page is the one state every engine can be put in, so the cold mode is the
// "caches cleared" measure for all of them alike. run.mjs takes the samples; this module names
// the texts and writes the tables (also for report.mjs). Node built-ins only.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { f1, median } from "./format.mjs";

/** The engines of the race, in the order they take turns. */
export const RACE = ["ctxguard", "hypertok", "gpt-tokenizer", "ai-tokenizer", "js-tiktoken", "tiktoken (npm wasm)"];
const MODES = ["cold", "warm", "fresh"];

/** What each engine keeps between calls, and whether a page can clear it. */
export const CACHES = {
  ctxguard: "a piece cache per encoding (at most 4 MiB, which no call clears)",
  hypertok: "a long-piece cache (unbounded, keyed on the whole piece, which no call clears)",
  "gpt-tokenizer": "a merge cache (`clearMergeCache()` clears it; the race keeps it, as the others')",
  "ai-tokenizer": "a merge cache (at most 100 000 pieces; `mergeCache.clear()` clears it; the race keeps it, as the others')",
  "js-tiktoken": "nothing (no cache: every count merges every piece)",
  "tiktoken (npm wasm)": "nothing (no cache: every count merges every piece)",
};

/**
 * The race's texts by kind, `{ kind: [{ key, source, bytes }] }` (`key` as bench.js fetches it):
 * the varied real corpus when tests/bench/varied.mjs wrote it into `corpusDir`/varied, and the
 * generated prose and mixed with their second texts.
 */
export function raceTexts(corpusDir) {
  const out = {};
  const index = join(corpusDir, "varied", "index.json");
  if (existsSync(index)) {
    for (const [kind, list] of Object.entries(JSON.parse(readFileSync(index, "utf8")))) {
      out[kind] = list.map((t) => ({ key: `varied/${t.name}`, source: t.source, bytes: t.bytes }));
    }
  }
  for (const kind of ["prose", "mixed"]) {
    out[kind] = [kind, `${kind}-2`].map((key, i) => ({ key, source: `generated (tests/bench/corpus.mjs), seed ${i + 1}` }));
  }
  return out;
}

const spread = (xs, digits) => (xs.length > 1 ? `${digits(median(xs))} [${digits(Math.min(...xs))}–${digits(Math.max(...xs))}]` : xs.length ? digits(xs[0]) : "–");

/** The race's section of BENCHMARKS.md (empty without a race). */
export function raceTable(race) {
  if (!race?.results?.ctxguard) return "";
  const kinds = Object.keys(race.texts);
  const mbps = (r) => r.bytes / 1e6 / (r.ms / 1000);
  const samples = (name, mode, kind) =>
    race.texts[kind].map((t) => race.results[name]?.[mode]?.[t.key]).filter(Boolean);
  const lines = [
    "### The fair race: three modes, every engine, several texts per kind (`tests/bench/race.mjs`)",
    "",
    "Each sample is a fresh page: the engine is loaded and counts a short probe, then **cold** times its first count of the text (every engine's caches empty); **warm** times the same text counted a second time (each engine's own caches kept); **fresh** times the text after counting another text of the same kind (caches kept, new text). No engine's caches are cleared between the counts of a page: " +
      race.engines.map((n) => `${n} keeps ${CACHES[n] ?? "what it keeps"}`).join("; ") +
      ". A cell is the median MB/s over the kind's texts, [lowest–highest]; the texts:",
    "",
  ];
  for (const kind of kinds) {
    lines.push(`- ${kind}: ${race.texts[kind].map((t) => `\`${t.key}\` (${t.source}${t.bytes ? `, ${t.bytes} B` : ""})`).join("; ")}`);
  }
  lines.push("", `| engine | mode | ${kinds.join(" | ")} |`, `| --- | --- | ${kinds.map(() => "---:").join(" | ")} |`);
  for (const name of race.engines) {
    for (const mode of MODES) {
      lines.push(`| ${name} | ${mode} | ${kinds.map((k) => spread(samples(name, mode, k).map(mbps), f1)).join(" | ")} |`);
    }
  }
  const others = race.engines.filter((n) => n !== "ctxguard");
  if (others.length) {
    lines.push(
      "",
      "ctxguard's speed ÷ the other engine's (its time ÷ ctxguard's on the same text and mode), per text; median [lowest–highest] over the kind's texts (above 1: ctxguard faster):",
      "",
      `| ctxguard ÷ | mode | ${kinds.join(" | ")} |`,
      `| --- | --- | ${kinds.map(() => "---:").join(" | ")} |`,
    );
    for (const name of others) {
      for (const mode of MODES) {
        const cell = (kind) => {
          const ratios = race.texts[kind]
            .map((t) => [race.results[name]?.[mode]?.[t.key], race.results.ctxguard[mode]?.[t.key]])
            .filter(([a, b]) => a && b)
            .map(([a, b]) => a.ms / b.ms);
          return ratios.length ? `${spread(ratios, (x) => x.toFixed(2))}×` : "–";
        };
        lines.push(`| ${name} | ${mode} | ${kinds.map(cell).join(" | ")} |`);
      }
    }
  }
  const mismatches = [];
  for (const name of others) {
    for (const mode of MODES) {
      for (const [key, r] of Object.entries(race.results[name]?.[mode] ?? {})) {
        const ours = race.results.ctxguard[mode]?.[key];
        if (ours && ours.tokens !== r.tokens) mismatches.push(`${name} ${mode} \`${key}\`: ${r.tokens} (ctxguard ${ours.tokens})`);
      }
    }
  }
  lines.push("", `Counts in the race equal to ctxguard's: ${mismatches.length ? `**no**: ${mismatches.join("; ")}` : "yes, every engine, text and mode"}.`);
  return lines.join("\n") + "\n";
}
