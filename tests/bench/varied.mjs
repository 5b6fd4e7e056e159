// Several megabytes of varied real text per kind, for the browser race's three
// modes and its spread: each kind (en, zh, code) is four texts of up to 1 MB,
// each from a different source, so that a result is a spread over sources and
// not one corpus. Built at bench time from files the machine has (Debian's
// documentation packages, which scripts/bench.sh installs when missing, the
// system's own man pages, headers and Python library, and cargo's registry),
// so nothing large is committed and the bytes repeat from run to run.
//
//   en-1  Python 3.11's manual, the library reference (python3.11-doc, reST sources)
//   en-2  Python 3.11's manual, everything else: tutorial, language reference, HOWTOs, FAQ, what's new
//   en-3  English man pages, section 1 (/usr/share/man/man1, troff requests and escapes removed)
//   en-4  regex-automata's rustdoc comments (tests/bench/real.mjs's en)
//   zh-1  the Debian Reference in Simplified Chinese, all of it (debian-reference-zh-cn, tags and
//         indentation removed: about 0.54 MB)
//   zh-2  Simplified Chinese man pages, their first 1 MB (manpages-zh, /usr/share/man/zh_CN)
//   zh-3  the same, their third 1 MB
//   zh-4  Traditional Chinese man pages (manpages-zh, /usr/share/man/zh_TW)
//   code-1  Rust: serde_json's and fancy-regex's sources (tests/bench/real.mjs's code)
//   code-2  Rust: tokio's sources
//   code-3  Python: the standard library (/usr/lib/python3.11, top-level modules)
//   code-4  C: the system headers (/usr/include)
//
// Usage: node tests/bench/varied.mjs OUT_DIR   writes OUT_DIR/<kind>-<n>.txt and OUT_DIR/index.json
// ({ kind: [{ name, source, bytes }] }), which the browser page reads. Node only.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { chinese } from "./bigtext.mjs";
import { crateDir, cut, englishDocs, rustFiles, sourceCode } from "./real.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
/** Bytes of each text (cut at a line end). */
export const SIZE = 1_000_000;
const PY_SOURCES = "/usr/share/doc/python3.11/html/_sources";

/** Files under `dir` whose name passes `keep`, in sorted path order (`[]` when `dir` is missing). */
function files(dir, keep, depth = Infinity) {
  const out = [];
  const walk = (d, level) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        if (level < depth) walk(p, level + 1);
      } else if (keep(name)) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir, 0);
  return out;
}

/** Reads files in order until about `bytes` bytes of text are gathered (each through `text`). */
function gather(paths, bytes, text = (p) => readFileSync(p, "utf8")) {
  const parts = [];
  let size = 0;
  for (const p of paths) {
    if (size >= bytes) break;
    const t = text(p);
    parts.push(t);
    size += Buffer.byteLength(t);
  }
  return parts.join("\n");
}

/** The text of a man page: requests, comments and font escapes removed, the words of `.SH`, `.B`, … kept. */
export function troffText(source) {
  const out = [];
  for (const line of source.split("\n")) {
    if (/^[.']\s*\\"/.test(line) || /^\\"/.test(line)) continue;
    let body = line;
    const m = /^[.'](\S+)\s*(.*)$/.exec(line);
    if (m) {
      if (!/^(SH|SS|B|I|BI|BR|IB|IR|RB|RI|TP|IP|HP|Nm|Nd|Ar|Fl|It|Sh|Ss|Dd|Dt)$/.test(m[1])) continue;
      body = m[2].replace(/"/g, "");
    }
    body = body
      .replace(/\\f(\[[^\]]*\]|\(..|.)/g, "")
      .replace(/\\\((em|en)/g, "—")
      .replace(/\\\(../g, "")
      .replace(/\\[&|^%]/g, "")
      .replace(/\\[,/]/g, "")
      .replace(/\\-/g, "-")
      .replace(/\\e/g, "\\")
      .replace(/\\ /g, " ");
    out.push(body);
  }
  return out.join("\n").replace(/\n{3,}/g, "\n\n");
}

/** Man pages of one folder (every section under it), as text, in path order. */
function manPages(dir, bytes) {
  const pages = files(dir, (n) => n.endsWith(".gz"));
  return gather(pages, bytes, (p) => {
    try {
      return troffText(gunzipSync(readFileSync(p)).toString("utf8"));
    } catch {
      return ""; // a link or a page that does not decompress: skipped
    }
  });
}

/** `text`'s `index`-th window of `size` bytes (the last full window when it is shorter), cut at line ends. */
function windowOf(text, index, size = SIZE) {
  const bytes = Buffer.from(text, "utf8");
  let from = Math.max(0, Math.min(index * size, bytes.length - size));
  if (from > 0) from = bytes.indexOf(0x0a, from) + 1;
  return cut(bytes.subarray(from).toString("utf8"), size);
}

function need(text, what, install) {
  if (Buffer.byteLength(text) < SIZE / 2) throw new Error(`varied corpus: ${what}: less than ${SIZE / 2} bytes found (${install})`);
  return text;
}

/** Every text by kind: `{ en: [{ name, source, text }], zh: […], code: […] }`. */
export function varied() {
  const py = "apt-get install python3.11-doc";
  const zhInstall = "apt-get install debian-reference-zh-cn manpages-zh";
  const library = gather(files(join(PY_SOURCES, "library"), (n) => n.endsWith(".txt")), SIZE);
  const rest = gather(
    files(PY_SOURCES, (n) => n.endsWith(".txt")).filter((p) => !p.includes("/library/")),
    SIZE,
  );
  // The HTML's indentation and empty lines, left by removing its tags, are not prose.
  const reference = chinese()
    .replace(/^[ \t]+/gm, "")
    .replace(/\n{2,}/g, "\n");
  const simplified = manPages("/usr/share/man/zh_CN", 3 * SIZE);
  const python = files("/usr/lib/python3.11", (n) => n.endsWith(".py"), 0);
  const tokio = rustFiles(join(crateDir(root, "tokio"), "src"));
  const headers = files("/usr/include", (n) => n.endsWith(".h"));
  const text = (name, source, body, install) => ({ name, source, text: cut(need(body, source, install), SIZE) });
  return {
    en: [
      text("en-1", "Python 3.11's manual: library reference (python3.11-doc)", library, py),
      text("en-2", "Python 3.11's manual: tutorial, language reference, HOWTOs, FAQ (python3.11-doc)", rest, py),
      text("en-3", "English man pages, section 1", manPages("/usr/share/man/man1", SIZE), "apt-get install man-db manpages"),
      text("en-4", "regex-automata's rustdoc comments", englishDocs(root), "cargo fetch"),
    ],
    zh: [
      text("zh-1", "the Debian Reference, Simplified Chinese, all of it (debian-reference-zh-cn)", reference, zhInstall),
      text("zh-2", "Simplified Chinese man pages, the first 1 MB (manpages-zh)", windowOf(simplified, 0), zhInstall),
      text("zh-3", "Simplified Chinese man pages, the third 1 MB (manpages-zh)", windowOf(simplified, 2), zhInstall),
      text("zh-4", "Traditional Chinese man pages (manpages-zh)", manPages("/usr/share/man/zh_TW", SIZE), zhInstall),
    ],
    code: [
      text("code-1", "Rust: serde_json and fancy-regex", sourceCode(root), "cargo fetch"),
      text("code-2", "Rust: tokio", gather(tokio, SIZE), "cargo fetch"),
      text("code-3", "Python: the standard library's top-level modules", gather(python, SIZE), "apt-get install libpython3.11-stdlib"),
      text("code-4", "C: the system headers (/usr/include)", gather(headers, SIZE), "apt-get install libc6-dev"),
    ],
  };
}

/** Writes every text and the index; returns the index. */
export function writeVaried(outDir) {
  mkdirSync(outDir, { recursive: true });
  const index = {};
  for (const [kind, texts] of Object.entries(varied())) {
    index[kind] = texts.map(({ name, source, text }) => {
      writeFileSync(join(outDir, `${name}.txt`), text);
      return { name, source, bytes: Buffer.byteLength(text) };
    });
  }
  writeFileSync(join(outDir, "index.json"), JSON.stringify(index, null, 1) + "\n");
  return index;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) {
    console.error("usage: node tests/bench/varied.mjs OUT_DIR");
    process.exit(2);
  }
  for (const [kind, texts] of Object.entries(writeVaried(out))) {
    for (const t of texts) console.log(`${kind}: ${t.name}.txt ${t.bytes} B (${t.source})`);
  }
}
