// The real-text benchmark inputs, built at bench time from files every machine
// that builds the bench already has, so that nothing large is committed and the
// bytes stay the same from run to run (they change only with Cargo.lock or the
// conformance vectors):
//
//   en    English documentation: the rustdoc comments (`//!`, `///`, markers
//         stripped) of regex-automata, a dependency of the bench, in file order
//   zh    Chinese documentation: the distinct lines of Chinese prose in
//         tests/conformance/vectors.jsonl (fragments of chat_shell's design
//         notes), in first-seen order; smaller than 1 MB, since that is all there is
//   code  source code: the Rust sources of serde_json and fancy-regex (core's
//         JSON library and tiktoken-rs's regex engine), in file order
//
// Each is cut to at most SIZE bytes at a line end. Node only (reads files).

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const SIZE = 1_000_000;

/** The version Cargo.lock pins for `name` (the highest when several are locked). */
function lockedVersion(root, name) {
  const lock = readFileSync(join(root, "Cargo.lock"), "utf8");
  const versions = [...lock.matchAll(/\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"/g)]
    .filter((m) => m[1] === name)
    .map((m) => m[2]);
  if (!versions.length) throw new Error(`real corpus: ${name} is not in Cargo.lock`);
  const key = (v) => v.split(/[.-]/).map((x) => x.padStart(8, "0")).join(".");
  return versions.sort((a, b) => (key(a) < key(b) ? 1 : -1))[0];
}

/** The unpacked source folder of a locked crate in cargo's registry. */
export function crateDir(root, name) {
  const version = lockedVersion(root, name);
  const home = process.env.CARGO_HOME ?? join(homedir(), ".cargo");
  const src = join(home, "registry", "src");
  for (const index of existsSync(src) ? readdirSync(src).sort() : []) {
    const dir = join(src, index, `${name}-${version}`);
    if (existsSync(dir)) return dir;
  }
  throw new Error(`real corpus: ${name} ${version} is not unpacked under ${src} (build the bench first: cargo bench --no-run -p ctxguard-core)`);
}

/** Every `.rs` file under `dir`, in sorted path order. */
export function rustFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".rs")) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** `text` cut to at most `size` bytes, at the end of a line. */
export function cut(text, size) {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= size) return text;
  let end = bytes.lastIndexOf(0x0a, size - 1) + 1;
  if (end <= 0) end = size;
  return bytes.subarray(0, end).toString("utf8");
}

/** English documentation: regex-automata's rustdoc comments. */
export function englishDocs(root) {
  const lines = [];
  for (const file of rustFiles(join(crateDir(root, "regex-automata"), "src"))) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const m = /^\s*\/\/[/!] ?(.*)$/.exec(line);
      if (m) lines.push(m[1]);
    }
  }
  return cut(lines.join("\n") + "\n", SIZE);
}

/** Source code: serde_json's then fancy-regex's Rust sources. */
export function sourceCode(root) {
  const parts = [];
  for (const name of ["serde_json", "fancy-regex"]) {
    for (const file of rustFiles(join(crateDir(root, name), "src"))) parts.push(readFileSync(file, "utf8"));
  }
  return cut(parts.join("\n"), SIZE);
}

const HAN = /[\u4e00-\u9fff]/gu;
// The vectors also hold generated filler drawn from these few characters; it is not prose.
const FILLER = new Set("上下文治理压缩检查点预览附件读取按需分层统一口入");

/** Chinese documentation: distinct lines of Chinese prose from the conformance vectors. */
export function chineseDocs(root) {
  const seen = new Set();
  const lines = [];
  const visit = (v) => {
    if (typeof v === "string") {
      for (const raw of v.split("\n")) {
        const line = raw.trim();
        const han = line.match(HAN) ?? [];
        if (han.length < 8 || seen.has(line)) continue;
        const filler = han.filter((c) => FILLER.has(c)).length / han.length;
        // Prose: mostly Han characters, not the filler alphabet, not an attachment header.
        if (filler > 0.8 || han.length < line.length * 0.3 || line.startsWith("[") || line.startsWith("{")) continue;
        seen.add(line);
        lines.push(line);
      }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") Object.values(v).forEach(visit);
  };
  for (const line of readFileSync(join(root, "tests/conformance/vectors.jsonl"), "utf8").split("\n")) {
    if (line) visit(JSON.parse(line));
  }
  return cut(lines.join("\n") + "\n", SIZE);
}

/** Every real-text input by name. */
export function real(root) {
  return { en: englishDocs(root), zh: chineseDocs(root), code: sourceCode(root) };
}
