// Prints the raw, gzip (level 9) and brotli (quality 11) sizes of pkg/core/*.wasm, using only Node built-ins.
// Usage: node tests/wasm-host/size.mjs [pkg-dir]
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const pkg = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "../../pkg/core"));
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
for (const name of readdirSync(pkg).filter((f) => f.endsWith(".wasm"))) {
  const bytes = readFileSync(join(pkg, name));
  const gzip = gzipSync(bytes, { level: 9 }).length;
  const brotli = brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  }).length;
  console.log(`${name}: raw ${mb(bytes.length)} (${bytes.length} B), gzip ${mb(gzip)} (${gzip} B), brotli ${mb(brotli)} (${brotli} B)`);
}
