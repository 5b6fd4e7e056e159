// Trunk's post_build hook (Trunk.toml): trunk names each WebAssembly module after
// its crate (ctxguard-web.js, ctxguard-preview-engine_bg.wasm); the toolbar package
// names them after what they are, as its entry script imports them and its
// package.json exports them. Renames both files of each module in trunk's staging
// dir, points the glue at the renamed .wasm, shortens the names the .wasm imports
// from its glue (shortenImports), and minifies the glue with the pinned
// terser (scripts/setup.sh installs it beside wasm-opt): wasm-bindgen's glue is
// generated code, and the toolbar's first load has a 200 KB brotli budget; so is the
// package's entry script.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";

const tools = process.env.CTXGUARD_TOOLS || join(homedir(), ".cache/ctxguard/tools");
let minify;
try {
  ({ minify } = createRequire(join(tools, "package.json"))("terser"));
} catch {
  throw new Error(`name-modules.mjs: terser is not installed in ${tools} (run scripts/setup.sh)`);
}

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) throw new Error("name-modules.mjs: run as trunk's post_build hook (TRUNK_STAGING_DIR is not set)");

/**
 * Shortens the names a WebAssembly module imports from its glue: wasm-bindgen names each import
 * `__wbg_<name>_<16 hex digits>` under the module "./<crate>_bg.js", and those hashes, written in
 * both the .wasm and the glue, do not compress (about 1 KB brotli in each file of the toolbar). Every
 * import the glue defines (its name found in the glue, and not also an export) becomes `_<n>`, and
 * every import module the glue names becomes `m<n>`, in the .wasm's import section and in the glue
 * alike. Returns `{ wasm, glue }`.
 */
function shortenImports(wasm, glue) {
  let at = 8;
  const leb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = wasm[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const name = () => {
    const n = leb();
    const text = wasm.subarray(at, at + n).toString("utf8");
    at += n;
    return text;
  };
  const encodeLeb = (value) => {
    const out = [];
    do {
      let byte = value % 128;
      value = Math.floor(value / 128);
      if (value) byte |= 0x80;
      out.push(byte);
    } while (value);
    return Buffer.from(out);
  };
  const encodeName = (text) => {
    const bytes = Buffer.from(text, "utf8");
    return Buffer.concat([encodeLeb(bytes.length), bytes]);
  };
  const sections = [];
  while (at < wasm.length) {
    const header = at;
    const id = wasm[at++];
    const size = leb();
    sections.push({ id, header, start: at, end: at + size });
    at += size;
  }
  const exported = new Set();
  for (const s of sections.filter((s) => s.id === 7)) {
    at = s.start;
    for (let n = leb(); n > 0; n--) {
      exported.add(name());
      at++;
      leb();
    }
  }
  const occurs = (text) => new RegExp(`(?<![\\w$])${text.replace(/[$]/g, "\\$")}(?![\\w$])`, "g");
  const modules = new Map();
  const fields = new Map();
  const parts = [wasm.subarray(0, 8)];
  for (const s of sections) {
    if (s.id !== 2) {
      parts.push(wasm.subarray(s.header, s.end));
      continue;
    }
    at = s.start;
    const entries = [];
    for (let n = leb(); n > 0; n--) {
      const module = name();
      const field = name();
      const descStart = at;
      const kind = wasm[at++];
      if (kind === 0x00 || kind === 0x04) {
        if (kind === 0x04) at++;
        leb();
      } else if (kind === 0x01 || kind === 0x02) {
        if (kind === 0x01) at++;
        const flags = wasm[at++];
        leb();
        if (flags & 0x01) leb();
      } else if (kind === 0x03) {
        at += 2;
      } else {
        throw new Error(`name-modules.mjs: an import of kind ${kind} (not a function, table, memory, global or tag)`);
      }
      if (!modules.has(module)) {
        const quoted = [`"${module}"`, `'${module}'`];
        modules.set(module, quoted.some((q) => glue.includes(q)) ? `m${modules.size}` : module);
      }
      if (!fields.has(field)) {
        const short = `_${fields.size.toString(36)}`;
        fields.set(field, !exported.has(field) && occurs(field).test(glue) ? short : field);
      }
      entries.push(Buffer.concat([encodeName(modules.get(module)), encodeName(fields.get(field)), wasm.subarray(descStart, at)]));
    }
    const body = Buffer.concat([encodeLeb(entries.length), ...entries]);
    parts.push(Buffer.from([2]), encodeLeb(body.length), body);
  }
  for (const [from, to] of modules) {
    if (from !== to) glue = glue.split(`"${from}"`).join(`"${to}"`).split(`'${from}'`).join(`'${to}'`);
  }
  for (const [from, to] of fields) {
    if (from !== to) glue = glue.replace(occurs(from), to);
  }
  return { wasm: Buffer.concat(parts), glue };
}

const MODULES = [
  ["ctxguard-toolbar/wasm", "ctxguard-web", "ctxguard_toolbar"],
  ["ctxguard-toolbar/engine", "ctxguard-preview-engine", "ctxguard_preview"],
];

// The package's entry is the first thing a page loads: shipped minified (its source is web/js/).
const entry = join(staging, "ctxguard-toolbar", "ctxguard-toolbar.js");
if (!existsSync(entry)) throw new Error("name-modules.mjs: trunk staged no ctxguard-toolbar/ctxguard-toolbar.js");
const minifiedEntry = await minify(readFileSync(entry, "utf8"), { module: true, compress: true, mangle: true, format: { comments: false } });
writeFileSync(entry, minifiedEntry.code);

for (const [dir, from, to] of MODULES) {
  const at = (name) => join(staging, dir, name);
  if (!existsSync(at(`${from}.js`))) throw new Error(`name-modules.mjs: trunk produced no ${dir}/${from}.js`);
  const shortened = shortenImports(readFileSync(at(`${from}_bg.wasm`)), readFileSync(at(`${from}.js`), "utf8"));
  const glue = shortened.glue;
  writeFileSync(at(`${from}_bg.wasm`), shortened.wasm);
  const wasmUrl = `'${from}_bg.wasm'`;
  if (!glue.includes(wasmUrl)) throw new Error(`name-modules.mjs: ${dir}/${from}.js does not load ${wasmUrl}`);
  const named = glue.split(wasmUrl).join(`'${to}_bg.wasm'`);
  const { code } = await minify(named, { module: true, compress: true, mangle: true, format: { comments: false } });
  if (!code || !code.includes(`${to}_bg.wasm`)) throw new Error(`name-modules.mjs: minifying ${dir}/${to}.js lost its .wasm URL`);
  writeFileSync(at(`${to}.js`), code);
  renameSync(at(`${from}_bg.wasm`), at(`${to}_bg.wasm`));
  rmSync(at(`${from}.js`));
}
