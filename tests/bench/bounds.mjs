// What bounds each missed peer target (ctxguard against hypertok and the native
// tokenizers), from what the same bench run measured: the callgrind profile of
// one cold count (tests/bench/profile.mjs), the .wasm's sections and tables
// (tests/bench/wasm-sections.mjs), the init breakdown of the browser page, and
// the criterion results. Every sentence
// is built from those figures, so it changes with them. Node built-ins only.

import { f1, median } from "./format.mjs";

const pct = (part, whole) => `${Math.round((100 * part) / whole)}%`;

/** Instructions a byte of one profiled input and its parts as shares, e.g. "41.7 instructions a byte (pre-tokenizer 34%, …)". */
function work(profile, input) {
  const p = profile?.[input];
  if (!p) return null;
  const parts = Object.entries(p.parts)
    .filter(([, n]) => n / p.instructions >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${pct(n, p.instructions)}`)
    .join(", ");
  return `${f1(p.instructions / p.bytes)} instructions a byte (${parts})`;
}

/** The same, named: "en 41.7 instructions a byte (…)". */
const perByte = (profile, input) => (profile?.[input] ? `${input} ${work(profile, input)}` : null);

/** The brotli sizes (kB) of the .wasm's code, whole file and embedded tables, from wasm-sections.mjs's text. */
function sectionSizes(sections) {
  const out = { tables: {} };
  for (const line of (sections ?? "").split("\n")) {
    const m = line.match(/^(.*?)\s+([\d.]+) kB\s+([\d.]+) kB$/);
    if (!m) continue;
    const [name, brotli] = [m[1].trim(), Number(m[3])];
    if (name === "code") out.code = brotli;
    else if (name === "whole file") out.whole = brotli;
    else if (name === "tables, sum") out.tablesSum = brotli;
    else if (name.startsWith("table ")) out.tables[name.slice(6)] = brotli;
  }
  return out;
}

/**
 * The bounds, each a sentence or null (nothing measured to say it with):
 * `native300`, `nativePeers(inputs)`, `size`, `init`, `perByteWork`, `worstRepeated`.
 */
export function missBounds({ profile, sections, browser, coldMBps, fastestPeer }) {
  const bounds = {};
  const prose = profile?.prose;
  const ours = coldMBps("prose");
  if (prose && ours) {
    const rate = prose.instructions / (prose.bytes / (ours * 1e6));
    const pre = prose.parts["pre-tokenizer"] / prose.bytes;
    bounds.native300 = `${perByte(profile, "prose")}; the pre-tokenizer alone ${f1(pre)} a byte. This core ran ${f1(rate / 1e9)} G instructions/s on it, so 300 MB/s allows ${f1(rate / 300e6)} instructions a byte`;
  }
  bounds.nativePeers = (inputs) => {
    const said = inputs
      .map((i) => {
        const peer = fastestPeer(i);
        const ours = work(profile, i);
        return peer ? `${i}: ${peer.name} ${f1(peer.mbps)} MB/s${ours ? `; ours ${ours}` : ""}` : null;
      })
      .filter(Boolean);
    return said.length ? said.join("; ") : null;
  };
  const s = sectionSizes(sections);
  if (s.whole && s.tablesSum) {
    const t = s.tables;
    const others = (t["cl100k_base.derived"] ?? 0) + (t["r50k_base.derived"] ?? 0);
    bounds.size = `the vocabulary tables are ${f1(s.tablesSum)} of the ${f1(s.whole)} kB brotli (o200k's parents ${f1(t["o200k_base.parents"] ?? 0)}, cl100k ${f1(t["cl100k_base.derived"] ?? 0)}, r50k ${f1(t["r50k_base.derived"] ?? 0)}), the code ${f1(s.code ?? 0)}; cl100k and r50k in a second file would leave about ${f1(s.whole - others)} kB (not built: their counts would then wait for \`init({encodings})\`)`;
  }
  const parts = browser?.init_parts;
  if (parts?.length) {
    const m = (k) => median(parts.map((x) => x[k]));
    bounds.init = `before any set-up, importing the glue (${f1(m("import_ms"))} ms) and fetching the ${f1(parts[0].wasm_bytes / 1e6)} MB .wasm (${f1(m("fetch_ms"))} ms) take ${f1(m("import_ms") + m("fetch_ms"))} ms; then compile ${f1(m("compile_ms"))}, instantiate ${f1(m("instantiate_ms"))}, o200k's set-up and the first count ${f1(m("first_count_ms"))} ms (medians of ${parts.length} fresh sessions)`;
  }
  const loops = ["prose", "en"].map((i) => perByte(profile, i)).filter(Boolean);
  if (loops.length) bounds.perByteWork = `the count loop's work, natively: ${loops.join("; ")}`;
  const worst = ["letters", "cjk"].filter((i) => profile?.[i]);
  if (worst.length) {
    bounds.worstRepeated = worst
      .map((i) => {
        const p = profile[i];
        const merges = p.bytes - p.tokens;
        return `${i} ${f1(p.instructions / p.bytes)} instructions a byte, ${pct(p.parts.merging, p.instructions)} merging (${f1(p.parts.merging / merges)} a merge: the windowed tournament tree and two merge-table probes)`;
      })
      .join("; ");
  }
  return bounds;
}
