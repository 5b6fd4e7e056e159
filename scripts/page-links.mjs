// index.html's trunk links, for scripts/build-packages.sh, which builds the demo page and the
// toolbar package the way `trunk build --release` does (the same cargo, wasm-bindgen and
// wasm-opt invocations, from the same attributes) without needing trunk, whose install is
// the longest step of a fresh machine's setup. index.html stays the one description of the
// page: `trunk serve` reads it too.
//
//   node scripts/page-links.mjs steps            # one line per asset, tab-separated:
//       rust  MANIFEST  TARGET_PATH  RELEASE_PROFILE  WASM_OPT_LEVEL  WASM_OPT_PARAMS
//       copy  FILE      TARGET_PATH
//       css   FILE
//   node scripts/page-links.mjs page > OUT.html  # index.html without its trunk links, each
//       stylesheet linked from the page's root
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const html = readFileSync(join(root, "index.html"), "utf8");
const LINK = /<link\s+data-trunk\b([^>]*?)\/?>/gs;

function attrs(text) {
  const out = {};
  for (const m of text.matchAll(/([\w-]+)(?:="([^"]*)")?/g)) out[m[1]] = m[2] ?? "";
  return out;
}

const mode = process.argv[2];
if (mode === "steps") {
  for (const m of html.matchAll(LINK)) {
    const a = attrs(m[1]);
    if ("data-trunk-skip" in a) continue;
    if (a.rel === "rust") {
      if (a["data-type"] !== "worker" || a["data-bindgen-target"] !== "web") {
        throw new Error(`page-links.mjs: ${a.href}: only data-type="worker" data-bindgen-target="web" crates are built here`);
      }
      const level = a["data-wasm-opt"] ?? "";
      if (!/^(0|1|2|3|4|s|z)$/.test(level)) throw new Error(`page-links.mjs: ${a.href}: data-wasm-opt="${level}"`);
      console.log(["rust", a.href, a["data-target-path"] ?? "", a["data-cargo-profile-release"] ?? "release", level, a["data-wasm-opt-params"] ?? ""].join("\t"));
    } else if (a.rel === "copy-file") {
      console.log(["copy", a.href, a["data-target-path"] ?? ""].join("\t"));
    } else if (a.rel === "css") {
      console.log(["css", a.href].join("\t"));
    } else {
      throw new Error(`page-links.mjs: a trunk link of rel="${a.rel}" (only rust, copy-file and css are built here)`);
    }
  }
} else if (mode === "page") {
  const page = html.replace(LINK, (whole, body) => {
    const a = attrs(body);
    return a.rel === "css" ? `<link rel="stylesheet" href="/${basename(a.href)}" />` : "";
  });
  process.stdout.write(page);
} else {
  console.error("usage: node scripts/page-links.mjs steps|page");
  process.exit(2);
}
