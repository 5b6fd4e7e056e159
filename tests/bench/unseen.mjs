// About 100 MB per kind of distinct real text the project's other benches do not
// use, for the TokenPool bench (tests/bench/workers.mjs --inputs unseen): nothing
// is repeated (every file is read once, symbolic links and identical files
// skipped), so every worker's piece cache meets the text cold, as a user's
// large upload does. Built at bench time from what a Debian machine with the
// bench's packages has; the figures name what each kind was built from.
//
//   en    English: the man pages of sections 1–8 (troff requests removed, as
//         tests/bench/varied.mjs's troffText does), then the English texts under
//         /usr/share/doc (README, NEWS, changelogs, .txt/.md/.rst, HTML with its
//         tags removed; Python's manual left out: it is bigtext.mjs's input)
//   zh    Chinese, Japanese and Korean, all there is (about 20 MB): the Debian
//         Reference in Simplified Chinese (its .txt), the zh_CN, zh_TW, ja and ko
//         man pages, and every zh, ja and ko translation in /usr/share/locale's
//         message catalogues (.mo: the translated strings, one a line)
//   intl  every other language: the message catalogues' translations, language
//         by language (Cyrillic, Greek, Arabic, Indic scripts, Latin-script
//         languages), then the other languages' man pages
//   code  source code: Rust (the newest version of each crate in cargo's
//         registry, its .rs files), JavaScript (node_modules of Node's npm and of
//         the project's tools) and C headers; no file with a line past 1000
//         characters (bundles, minified or generated files)
// A kind takes a file of each of its sources in turn.
//   mix   paragraphs in turn of English, Chinese, another language and code: the
//         English and code past where en and code stopped (so distinct from them),
//         the Chinese and other languages the zh and intl kinds' text again (there
//         is no more of it; measured after other kinds, so every cache has
//         forgotten it)
//
// Usage: node tests/bench/unseen.mjs OUT_DIR [--mb 100]   writes OUT_DIR/<kind>-<N>mb.txt
// (kept when present) and OUT_DIR/unseen-<N>mb.json (each kind's size and sources).
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { troffText } from "./varied.mjs";
import { outDirAndMegabytes } from "./cli-args.mjs";

const MAN = "/usr/share/man";
const LOCALE = "/usr/share/locale";
const DOC = "/usr/share/doc";
const CJK = /^(zh|ja|ko)([_@.]|$)/;
/** The kinds, in the order they are built and measured. */
export const KINDS = ["en", "zh", "intl", "code", "mix"];

/** Regular files under `dir` (no symbolic links) whose path passes `keep`, in sorted path order. */
function files(dir, keep = () => true) {
  const out = [];
  const walk = (d) => {
    let names;
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(d, name);
      const s = lstatSync(p);
      if (s.isDirectory()) walk(p);
      else if (s.isFile() && keep(p)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** A file's bytes, gunzipped when it ends in .gz (`null` when it cannot be read). */
function bytesOf(path) {
  try {
    const raw = readFileSync(path);
    return path.endsWith(".gz") ? gunzipSync(raw) : raw;
  } catch {
    return null;
  }
}

/** UTF-8 text of `bytes`, or null when they are not valid UTF-8 (a file in another charset is skipped). */
const decoder = new TextDecoder("utf-8", { fatal: true });
function utf8(bytes) {
  try {
    return bytes && decoder.decode(bytes);
  } catch {
    return null;
  }
}

/** The translated strings of a GNU message catalogue (.mo), one a line; null when it is not UTF-8. */
export function catalogueText(bytes) {
  if (bytes.length < 28) return null;
  const magic = bytes.readUInt32LE(0);
  const le = magic === 0x950412de;
  if (!le && bytes.readUInt32BE(0) !== 0x950412de) return null;
  const u32 = (at) => (le ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
  const count = u32(8);
  const table = u32(16);
  if (table + 8 * count > bytes.length) return null;
  const lines = [];
  for (let i = 0; i < count; i++) {
    const len = u32(table + 8 * i);
    const at = u32(table + 8 * i + 4);
    if (at + len > bytes.length) return null;
    const s = bytes.subarray(at, at + len).toString("latin1");
    // The entry of the empty message id is the header: it names the charset.
    if (i === 0 && /charset=/i.test(s) && !/charset=utf-8/i.test(s)) return null;
    if (i === 0 && /Content-Type:/i.test(s)) continue;
    const text = utf8(bytes.subarray(at, at + len));
    if (text === null) return null;
    lines.push(text.replace(/\0/g, "\n"));
  }
  return lines.join("\n");
}

/** HTML as text: scripts and styles dropped, tags removed, the common entities decoded. */
function htmlText(html) {
  const entities = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, "")
    .replace(/<[^>]+>/g, "")
    .replace(/&(#x?[0-9a-fA-F]+|\w+);/g, (m, e) =>
      e[0] === "#" ? String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (entities[e] ?? m),
    )
    .replace(/^[ \t]+/gm, "")
    .replace(/\n{3,}/g, "\n\n");
}

/** The text of a man page file (null when it does not decompress or is not UTF-8). */
function manText(path) {
  const text = utf8(bytesOf(path));
  return text === null ? null : troffText(text);
}

/** The text of a catalogue file. */
function moText(path) {
  const bytes = bytesOf(path);
  return bytes && catalogueText(bytes);
}

/** The text of a documentation file under /usr/share/doc (null for what is not text). */
function docText(path) {
  const name = basename(path).replace(/\.gz$/, "");
  const html = /\.html?$/.test(name);
  const plain = /\.(txt|md|rst|text)$/.test(name) || /^(README|NEWS|CHANGES|changelog|HISTORY|TODO|FAQ|AUTHORS|THANKS)([._-]|$)/i.test(name);
  if (!html && !plain) return null;
  const text = utf8(bytesOf(path));
  return text === null ? null : html ? htmlText(text) : text;
}

/** Every language folder under `dir` whose name passes `keep`, sorted. */
function languages(dir, keep) {
  return readdirSync(dir).sort().filter((l) => keep(l) && lstatSync(join(dir, l)).isDirectory());
}

/** The sources of each kind, in reading order: [label, paths, path → text]. */
function sources() {
  const englishMan = ["man1", "man2", "man3", "man4", "man5", "man6", "man7", "man8"].map((s) => join(MAN, s));
  const otherMan = languages(MAN, (l) => !l.startsWith("man"));
  const catalogues = (keep) =>
    languages(LOCALE, keep).flatMap((l) => files(join(LOCALE, l, "LC_MESSAGES"), (p) => p.endsWith(".mo")));
  // The newest version of each crate: older versions repeat most of its text.
  const registry = join(process.env.CARGO_HOME ?? join(homedir(), ".cargo"), "registry", "src");
  const crates = new Map();
  for (const index of existsSync(registry) ? readdirSync(registry).sort() : []) {
    for (const dir of readdirSync(join(registry, index)).sort()) {
      const m = /^(.+?)-(\d+\.\d+\.\d+.*)$/.exec(dir);
      if (!m) continue;
      const key = (v) => v.split(/[.+-]/).map((x) => x.padStart(8, "0")).join(".");
      const had = crates.get(m[1]);
      if (!had || key(m[2]) > key(had.version)) crates.set(m[1], { version: m[2], dir: join(registry, index, dir) });
    }
  }
  const rust = [...crates.keys()].sort().flatMap((name) => files(crates.get(name).dir, (p) => p.endsWith(".rs")));
  const js = ["/usr/lib/node_modules", join(homedir(), ".cache/ctxguard/tools/node_modules")].flatMap((d) =>
    files(d, (p) => /\.(m|c)?js$/.test(p) && !/\.min\.js$/.test(p)),
  );
  const read = (p) => utf8(bytesOf(p));
  // Bundles and generated files (a line past 1000 characters: minified code, embedded binaries) are not source.
  const source = (p) => {
    const t = read(p);
    return t && !t.split("\n").some((l) => l.length > 1000) ? t : null;
  };
  return {
    en: [
      ["English man pages, sections 1–8", englishMan.flatMap((d) => files(d, (p) => p.endsWith(".gz"))), manText],
      [`English texts under ${DOC} (Python's manual left out)`, files(DOC, (p) => !p.startsWith(join(DOC, "python3.11-doc"))), docText],
    ],
    zh: [
      ["the Debian Reference in Simplified Chinese (.txt)", files("/usr/share/debian-reference", (p) => /\.zh-cn\.txt(\.gz)?$/.test(p)), read],
      ["zh_CN, zh_TW, ja and ko man pages", otherMan.filter((l) => CJK.test(l)).flatMap((l) => files(join(MAN, l), (p) => p.endsWith(".gz"))), manText],
      ["zh, ja and ko message catalogues' translations", catalogues((l) => CJK.test(l)), moText],
    ],
    intl: [
      ["other languages' message catalogues' translations", catalogues((l) => !CJK.test(l) && !/^en([_@.]|$)/.test(l)), moText],
      ["other languages' man pages", otherMan.filter((l) => !CJK.test(l)).flatMap((l) => files(join(MAN, l), (p) => p.endsWith(".gz"))), manText],
    ],
    code: [
      [`Rust: ${crates.size} crates of cargo's registry, the newest version of each`, rust, source],
      ["JavaScript: Node's npm and the project's tools' node_modules", js, source],
      ["C: the system headers (/usr/include)", files("/usr/include", (p) => p.endsWith(".h")), source],
    ],
  };
}

/**
 * Reads a kind's sources into parts of text, skipping files already seen (by
 * content), until `bytes` bytes are gathered; `next()` continues where it stopped.
 */
function reader(kindSources, seen) {
  // A file of each source in turn (a source that runs out drops out), so every source is in the kind.
  const queue = [];
  for (let j = 0; queue.length < kindSources.reduce((n, [, paths]) => n + paths.length, 0); j++) {
    for (const [label, paths, text] of kindSources) if (j < paths.length) queue.push([label, paths[j], text]);
  }
  let i = 0;
  const used = new Map();
  return {
    used,
    /** Up to about `bytes` more bytes of text, as parts (one a file). */
    take(bytes) {
      const parts = [];
      let size = 0;
      while (size < bytes && i < queue.length) {
        const [label, path, text] = queue[i++];
        const t = text(path);
        if (!t || !t.trim()) continue;
        const hash = createHash("sha256").update(t).digest("hex");
        if (seen.has(hash)) continue;
        seen.add(hash);
        parts.push(t);
        const n = Buffer.byteLength(t);
        size += n;
        used.set(label, (used.get(label) ?? 0) + n);
      }
      return parts;
    },
  };
}

/** `parts` joined and cut at a line end to at most `bytes` bytes. */
function joined(parts, bytes) {
  const buf = Buffer.from(parts.join("\n"), "utf8");
  if (buf.length <= bytes) return buf;
  const end = buf.lastIndexOf(0x0a, bytes - 1) + 1;
  return buf.subarray(0, end > 0 ? end : bytes);
}

/** Paragraphs of each part list in turn (a list that runs out starts again), to about `bytes` bytes; and the bytes of each list used. */
function interleave(lists, bytes) {
  const split = lists.map((parts) => parts.join("\n").split(/\n\s*\n/).filter((p) => p.trim()));
  const out = [];
  const used = lists.map(() => 0);
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    split.forEach((s, k) => {
      if (!s.length) return;
      const p = s[i % s.length];
      out.push(p);
      const n = Buffer.byteLength(p) + 2;
      used[k] += n;
      size += n;
    });
  }
  return { text: out.join("\n\n"), used };
}

/** Writes each kind's file under `outDir` (kept when present); returns `{ kind: path }` and the index's path. */
export function unseenText(outDir, mb = 100) {
  mkdirSync(outDir, { recursive: true });
  const bytes = mb * 1024 * 1024;
  const paths = Object.fromEntries(KINDS.map((k) => [k, join(outDir, `${k}-${mb}mb.txt`)]));
  const indexPath = join(outDir, `unseen-${mb}mb.json`);
  if (KINDS.every((k) => existsSync(paths[k])) && existsSync(indexPath)) return { paths, index: indexPath };
  const seen = new Set();
  const all = sources();
  const readers = Object.fromEntries(Object.entries(all).map(([k, s]) => [k, reader(s, seen)]));
  const index = {};
  for (const kind of ["en", "zh", "intl", "code"]) {
    const buf = joined(readers[kind].take(bytes), bytes);
    writeFileSync(paths[kind], buf);
    index[kind] = { bytes: buf.length, sources: Object.fromEntries(readers[kind].used) };
  }
  // The mix: English and code past where their kinds stopped; Chinese and the other languages again.
  const again = (k) => [readFileSync(paths[k], "utf8")];
  const parts = [readers.en.take(bytes / 4), again("zh"), again("intl"), readers.code.take(bytes / 4)];
  const { text, used } = interleave(parts, bytes);
  const mix = joined([text], bytes);
  writeFileSync(paths.mix, mix);
  const more = {
    "English (the en kind's sources, past where it stopped)": used[0],
    "Chinese, Japanese and Korean (the zh kind's text again: there is no more)": used[1],
    "other languages (the intl kind's text again: there is no more)": used[2],
    "code (the code kind's sources, past where it stopped)": used[3],
  };
  index.mix = { bytes: mix.length, sources: more };
  writeFileSync(indexPath, JSON.stringify(index, null, 1) + "\n");
  return { paths, index: indexPath };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { out, mb } = outDirAndMegabytes(process.argv.slice(2), "tests/bench/unseen.mjs");
  const made = unseenText(out, mb);
  const index = JSON.parse(readFileSync(made.index, "utf8"));
  for (const k of KINDS) {
    console.log(`${made.paths[k]}: ${(index[k].bytes / 1e6).toFixed(1)} MB`);
    for (const [label, n] of Object.entries(index[k].sources)) console.log(`  ${(n / 1e6).toFixed(1)} MB ${label}`);
  }
}
