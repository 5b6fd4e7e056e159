// The large real-text inputs of the workers bench and of the
// differential run against tiktoken-rs, built from Debian documentation
// packages (scripts/bench.sh installs them when missing):
//
//   en   English prose: the reStructuredText sources of Python 3.11's manual
//        (python3.11-doc, /usr/share/doc/python3.11/html/_sources/**/*.txt),
//        in path order, repeated to the size asked for
//   mix  English, Chinese and code, paragraph by paragraph in turn: the same
//        English, the Debian Reference in Simplified Chinese
//        (debian-reference-zh-cn, HTML with its tags and entities removed) and
//        Rust sources from cargo's registry (tests/bench/real.mjs's code), repeated
//
// Usage: node tests/bench/bigtext.mjs OUT_DIR [--mb 100]
// Writes OUT_DIR/en-<N>mb.txt and OUT_DIR/mix-<N>mb.txt (kept when present) and
// prints their paths and what they were built from.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceCode } from "./real.mjs";
import { outDirAndMegabytes } from "./cli-args.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const PY_SOURCES = "/usr/share/doc/python3.11/html/_sources";
const ZH_REFERENCE = "/usr/share/debian-reference";

function files(dir, keep) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (keep(name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** Python's manual, as its reST sources. */
export function english() {
  if (!existsSync(PY_SOURCES)) throw new Error(`${PY_SOURCES} is missing: apt-get install python3.11-doc`);
  return files(PY_SOURCES, (n) => n.endsWith(".txt")).map((p) => readFileSync(p, "utf8")).join("\n");
}

/** The Debian Reference in Simplified Chinese, as text. */
export function chinese() {
  const pages = existsSync(ZH_REFERENCE) ? files(ZH_REFERENCE, (n) => n.endsWith(".zh-cn.html")) : [];
  if (pages.length === 0) throw new Error(`${ZH_REFERENCE}/*.zh-cn.html are missing: apt-get install debian-reference-zh-cn`);
  const entities = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return pages
    .map((p) =>
      readFileSync(p, "utf8")
        .replace(/<(script|style)[\s\S]*?<\/\1>/g, "")
        .replace(/<[^>]+>/g, "")
        .replace(/&(#x?[0-9a-fA-F]+|\w+);/g, (m, e) =>
          e[0] === "#" ? String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (entities[e] ?? m),
        )
        .replace(/\n{3,}/g, "\n\n"),
    )
    .join("\n");
}

/** `text` repeated and cut at a line end to about `bytes` bytes. */
function grow(text, bytes) {
  const unit = Buffer.from(text.endsWith("\n") ? text : `${text}\n`, "utf8");
  const out = Buffer.alloc(bytes);
  let at = 0;
  while (at < bytes) at += unit.copy(out, at, 0, Math.min(unit.length, bytes - at));
  const end = out.lastIndexOf(0x0a) + 1;
  return out.subarray(0, end > 0 ? end : bytes);
}

/** Paragraphs of each source in turn. */
function interleave(sources) {
  const split = sources.map((s) => s.split(/\n\s*\n/).filter((p) => p.trim()));
  const out = [];
  const longest = Math.max(...split.map((s) => s.length));
  for (let i = 0; i < longest; i++) for (const s of split) if (s.length) out.push(s[i % s.length]);
  return out.join("\n\n");
}

export function bigText(outDir, mb = 100) {
  mkdirSync(outDir, { recursive: true });
  const bytes = mb * 1024 * 1024;
  const en = join(outDir, `en-${mb}mb.txt`);
  const mix = join(outDir, `mix-${mb}mb.txt`);
  let prose;
  if (!existsSync(en)) writeFileSync(en, grow((prose ??= english()), bytes));
  if (!existsSync(mix)) writeFileSync(mix, grow(interleave([(prose ??= english()), chinese(), sourceCode(root)]), bytes));
  return { en, mix };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { out, mb } = outDirAndMegabytes(process.argv.slice(2), "tests/bench/bigtext.mjs");
  const made = bigText(out, mb);
  console.log(`${made.en} (English: Python 3.11's manual, python3.11-doc)`);
  console.log(`${made.mix} (English, the Debian Reference in Simplified Chinese, Rust sources)`);
}
