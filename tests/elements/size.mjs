// Sizes of the toolbar package as browsers download it: the toolbar's first
// load (entry, bindings, module: no parser, no tokenizer) and what the
// attachment preview adds the first time it is given files (its worker and
// the engine: the document parsers and core's tokenizer). Raw, gzip -9 and
// brotli -q 11 bytes.
//
// Usage: node tests/elements/size.mjs [--pkg pkg/toolbar] [--write BENCHMARKS.md]
// With --write, replaces only the section between <!-- toolbar-size:begin -->
// and <!-- toolbar-size:end --> (appended when the markers are missing).
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { option } from "../support/net.mjs";

/** The budget for the toolbar's wasm + JS, brotli. */
export const TOOLBAR_BUDGET_BYTES = 200_000;

const TOOLBAR_FILES = ["ctxguard-toolbar.js", "wasm/ctxguard_toolbar.js", "wasm/ctxguard_toolbar_bg.wasm"];
const PREVIEW_FILES = ["preview-worker.js", "engine/ctxguard_preview.js", "engine/ctxguard_preview_bg.wasm"];

function sizeOf(pkg, file) {
  const bytes = readFileSync(join(pkg, file));
  return {
    file,
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }).length,
  };
}

function group(pkg, files) {
  const sized = files.map((f) => sizeOf(pkg, f));
  const total = (k) => sized.reduce((n, f) => n + f[k], 0);
  return { files: sized, raw: total("raw"), gzip: total("gzip"), brotli: total("brotli") };
}

/** `{toolbar, preview}`, each `{files: [{file, raw, gzip, brotli}], raw, gzip, brotli}`. */
export function measure(pkg) {
  return { toolbar: group(pkg, TOOLBAR_FILES), preview: group(pkg, PREVIEW_FILES) };
}

const kb = (n) => `${(n / 1000).toFixed(1)} KB`;

/** The Markdown section (markers included). */
export function section(sizes) {
  const rows = [];
  for (const [name, g] of [["toolbar (first load)", sizes.toolbar], ["attachment preview (added on first files)", sizes.preview]]) {
    for (const f of g.files) rows.push(`| ${name} | \`${f.file}\` | ${kb(f.raw)} | ${kb(f.gzip)} | ${kb(f.brotli)} |`);
    rows.push(`| **${name}, total** | | **${kb(g.raw)}** | **${kb(g.gzip)}** | **${kb(g.brotli)}** |`);
  }
  return [
    "<!-- toolbar-size:begin -->",
    "## Toolbar package size",
    "",
    "`pkg/toolbar/` (npm `ctxguard-toolbar`) as browsers download it, measured by",
    "`node tests/elements/size.mjs --write BENCHMARKS.md` after `scripts/build-packages.sh toolbar`",
    "(gzip -9 and brotli -q 11 by Node's zlib; 1 KB = 1000 bytes). The toolbar's module has no",
    "parser and no tokenizer; the preview's worker and engine (the document parsers, core's tokenizer,",
    "block composition and preview pass) load the first time the preview element is given files.",
    `Budget for the toolbar: ${kb(TOOLBAR_BUDGET_BYTES)} brotli.`,
    "",
    "| what | file | raw | gzip | brotli |",
    "| --- | --- | ---: | ---: | ---: |",
    ...rows,
    "<!-- toolbar-size:end -->",
  ].join("\n");
}

/** Replaces the marked section of `text` with `block` (appends it when there is none). */
export function replaceSection(text, block) {
  const begin = text.indexOf("<!-- toolbar-size:begin -->");
  const end = text.indexOf("<!-- toolbar-size:end -->");
  if (begin >= 0 && end > begin) {
    return text.slice(0, begin) + block + text.slice(end + "<!-- toolbar-size:end -->".length);
  }
  return `${text.replace(/\n*$/, "")}\n\n${block}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), "../../..");
  const pkg = resolve(option("--pkg", join(root, "pkg/toolbar")));
  const sizes = measure(pkg);
  const block = section(sizes);
  console.log(block);
  const out = option("--write", null);
  if (out) {
    const text = existsSync(out) ? readFileSync(out, "utf8") : "";
    writeFileSync(out, replaceSection(text, block));
    console.log(`wrote the toolbar-size section of ${out}`);
  }
  if (sizes.toolbar.brotli > TOOLBAR_BUDGET_BYTES) {
    console.error(`the toolbar's first load is ${sizes.toolbar.brotli} B brotli, over the ${TOOLBAR_BUDGET_BYTES} B budget`);
    process.exit(1);
  }
}
