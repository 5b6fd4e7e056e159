// Trunk's post_build hook (Trunk.toml): trunk names each WebAssembly module after
// its crate (ctxguard-web.js, ctxguard-preview-engine_bg.wasm); the toolbar package
// names them after what they are, as its entry script imports them and its
// package.json exports them. Renames both files of each module in trunk's staging
// dir, points the glue at the renamed .wasm, and minifies the glue with the pinned
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
  const glue = readFileSync(at(`${from}.js`), "utf8");
  const wasmUrl = `'${from}_bg.wasm'`;
  if (!glue.includes(wasmUrl)) throw new Error(`name-modules.mjs: ${dir}/${from}.js does not load ${wasmUrl}`);
  const named = glue.split(wasmUrl).join(`'${to}_bg.wasm'`);
  const { code } = await minify(named, { module: true, compress: true, mangle: true, format: { comments: false } });
  if (!code || !code.includes(`${to}_bg.wasm`)) throw new Error(`name-modules.mjs: minifying ${dir}/${to}.js lost its .wasm URL`);
  writeFileSync(at(`${to}.js`), code);
  renameSync(at(`${from}_bg.wasm`), at(`${to}_bg.wasm`));
  rmSync(at(`${from}.js`));
}
