// Where the bytes of a release .wasm go (against the brotli size target): each section's raw and
// brotli size, and each vocabulary table build.rs embeds (found in the data section by its
// first bytes), raw and brotli on its own. Node built-ins only; no wasm tools needed.
//
// Usage: node tests/bench/wasm-sections.mjs WASM [OUT_DIR]
//   OUT_DIR: core's build-script output folder holding the tables
//   ($CARGO_TARGET_DIR/packages/wasm32-unknown-unknown/release-wasm-speed/build/ctxguard-core-*/out:
//   scripts/build-packages.sh builds in a target dir of its own).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants } from "node:zlib";

const [wasmPath, outDir] = process.argv.slice(2);
if (!wasmPath) {
  console.error("usage: node tests/bench/wasm-sections.mjs WASM [OUT_DIR]");
  process.exit(2);
}
const wasm = readFileSync(wasmPath);
const brotli = (b) =>
  brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length;
const kb = (n) => `${(n / 1000).toFixed(1)} kB`;

function leb(buf, at) {
  let n = 0;
  let shift = 0;
  for (;;) {
    const b = buf[at++];
    n += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [n, at];
  }
}

const NAMES = ["custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "datacount"];
const sections = [];
for (let at = 8; at < wasm.length; ) {
  const id = wasm[at];
  const [size, body] = leb(wasm, at + 1);
  let name = NAMES[id] ?? `id ${id}`;
  if (id === 0) {
    const [len, s] = leb(wasm, body);
    name = `custom "${wasm.subarray(s, s + len).toString()}"`;
  }
  sections.push({ name, start: body, size });
  at = body + size;
}
const rows = [["section", "raw", "brotli alone"]];
for (const s of sections) rows.push([s.name, kb(s.size), kb(brotli(wasm.subarray(s.start, s.start + s.size)))]);
rows.push(["whole file", kb(wasm.length), kb(brotli(wasm))]);

if (outDir) {
  const data = sections.find((s) => s.name === "data");
  const bytes = data ? wasm.subarray(data.start, data.start + data.size) : Buffer.alloc(0);
  let tables = 0;
  let tablesBrotli = 0;
  for (const file of readdirSync(outDir).filter((f) => !f.endsWith(".rs")).sort()) {
    const table = readFileSync(join(outDir, file));
    // wasm-opt splits data segments at runs of zeros: look for the table's start.
    const found = bytes.indexOf(table.subarray(0, 64)) >= 0;
    const b = brotli(table);
    tables += table.length;
    tablesBrotli += b;
    rows.push([`table ${file}${found ? "" : " (NOT found in the data section)"}`, kb(table.length), kb(b)]);
  }
  rows.push(["tables, sum", kb(tables), kb(tablesBrotli)]);
}
const width = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((c, i) => (i ? c.padStart(width[i]) : c.padEnd(width[i]))).join("  "));
