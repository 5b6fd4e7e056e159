// Turns wasm-bindgen's `--target web` output in pkg/core/ (core) and
// pkg/core/documents/ (the parsers of ctxguard-extract) into the ctxguard-core
// npm package (scripts/build-packages.sh runs it after wasm-bindgen):
//   - ctxguard_core.js, the browser and bundler entry: wasm-bindgen's glue,
//     whose `init()` fetches `./ctxguard_core_bg.wasm` through
//     `new URL(…, import.meta.url)` (Vite, webpack 5, Rollup and Parcel follow
//     that to the file), patched so that a call before `init()` throws an
//     `Error` telling to `await init()` instead of a TypeError from inside the glue,
//     and so that strings go into wasm memory through one `TextEncoder.encodeInto`
//     (the glue copies their ASCII prefix char by char in a JS loop first: about
//     3 ms per megabyte, more before the JIT has compiled it), and so that a
//     trap instantiates the module again instead of poisoning every later call;
//   - node.js, the Node entry (`import` and `require`): the same glue,
//     instantiated synchronously from the file on import;
//   - documents/ctxguard_documents.js and documents/node.js, the subpath
//     `ctxguard-core/documents` (`parseDocument`), patched and wrapped the same way;
//   - pool/, the subpath `ctxguard-core/pool` (`TokenPool`), copied from core/npm/pool/;
//   - package.json from core/npm/package.json with the workspace's version,
//     README.md from core/npm/README.md.
// Every patch must apply exactly as written: a wasm-bindgen upgrade that
// changes the glue fails the build here, not in a user's app.
//
// Usage: node core/npm/build.mjs PKG_DIR --version X.Y.Z [--repository URL]
import { copyFileSync, cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const pkg = resolve(args[0] ?? join(here, "../../pkg/core"));
const repoAt = args.indexOf("--repository");
const repository = repoAt >= 0 ? args[repoAt + 1] : undefined;
const versionAt = args.indexOf("--version");
const version = versionAt >= 0 ? args[versionAt + 1] : undefined;
if (!version) throw new Error("build.mjs: --version X.Y.Z is required (the workspace's version)");

/** Replaces `from` in `text` exactly `count` times, or stops the build. */
function replaceExactly(text, from, to, count, what) {
  const found = text.split(from).length - 1;
  if (found !== count) {
    throw new Error(`build.mjs: expected ${count} of ${what} in the glue, found ${found}: ${JSON.stringify(from)}`);
  }
  return text.split(from).join(to);
}

/** Replaces every `from` in `text` (at least one), or stops the build. */
function replaceAtLeastOnce(text, from, to, what) {
  if (!text.includes(from)) throw new Error(`build.mjs: expected ${what} in the glue: ${JSON.stringify(from)}`);
  return text.split(from).join(to);
}

// The glue: not ready until init() or initSync() has run.
/** Patches one wasm-bindgen glue file in place (idempotent). */
function patchGlue(gluePath, wasmName, packageName) {
  let glue = readFileSync(gluePath, "utf8");
  if (glue.includes("const NOT_READY")) return;
  glue = replaceExactly(
    glue,
    "let wasmModule, wasmInstance, wasm;",
    `/** Stands for the wasm exports until init() has run: any use throws an Error saying what to do. */
const NOT_READY = new Proxy({}, {
    get() {
        throw new Error("${packageName} is not ready: call \`await init()\` (the module's default export) once before using its API; in Node it is ready on import");
    },
});
let wasmModule, wasmInstance, wasm = NOT_READY;`,
    1,
    "the wasm exports' declaration",
  );
  glue = replaceExactly(glue, "if (wasm !== undefined) return wasm;", "if (wasm !== NOT_READY) return wasm;", 2, "the ready checks");
  glue = replaceExactly(
    glue,
    `    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;

    const mem = getUint8ArrayMemory0();

    let offset = 0;

    for (; offset < len; offset++) {
        const code = arg.charCodeAt(offset);
        if (code > 0x7F) break;
        mem[ptr + offset] = code;
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }
        ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
        const view = getUint8ArrayMemory0().subarray(ptr + offset, ptr + len);
        const ret = cachedTextEncoder.encodeInto(arg, view);

        offset += ret.written;
        ptr = realloc(ptr, len, offset, 1) >>> 0;
    }
`,
    `    // ctxguard-core: as much as fits in one byte per UTF-16 unit in one
    // encodeInto (all of an ASCII string), then the rest at up to three.
    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;
    let ret = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(ptr, ptr + len));
    let offset = ret.written;
    if (ret.read !== arg.length) {
        arg = arg.slice(ret.read);
        ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
        ret = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(ptr + offset, ptr + len));
        offset += ret.written;
        ptr = realloc(ptr, len, offset, 1) >>> 0;
    }
`,
    1,
    "the string copy into wasm memory",
  );
  // A trap (a WebAssembly.RuntimeError: an allocation that cannot be had, a bug) leaves the
  // instance's memory in whatever state the trapped call left it, so every later call could fail
  // or worse. Every export is called through a guard that, on a trap, instantiates the module
  // again (wasm-bindgen's __wbg_reset_state, from --experimental-reset-state-function: a fresh
  // memory; objects made before it refuse to run) and throws an Error saying so; later calls work.
  glue = replaceExactly(
    glue,
    "let wasmModule, wasmInstance, wasm = NOT_READY;",
    `let wasmModule, wasmInstance, wasm = NOT_READY;

/** Set on the error a trap became, so that an outer guarded call does not instantiate the module again. */
const REINSTANTIATED = Symbol("${packageName}: instantiated again");

/** The exports, each function behind a guard that answers a trap by instantiating the module again. */
function trapGuarded(exports) {
    const guarded = {};
    for (const [name, value] of Object.entries(exports)) {
        guarded[name] = typeof value !== "function" ? value : function () {
            try {
                return value.apply(this, arguments);
            } catch (e) {
                if (!(e instanceof WebAssembly.RuntimeError) || e[REINSTANTIATED]) throw e;
                e[REINSTANTIATED] = true;
                __wbg_reset_state();
                const error = new Error(\`${packageName}: the WebAssembly module trapped (\${e.message}) and was instantiated again: this call failed, later calls work; objects made before it (a TokenLedger, a ContextGuard, …) are gone and throw when used\`, { cause: e });
                error[REINSTANTIATED] = true;
                throw error;
            }
        };
    }
    return guarded;
}`,
    1,
    "the wasm exports' declaration, patched",
  );
  glue = replaceExactly(glue, "wasm = instance.exports;", "wasm = trapGuarded(instance.exports);", 1, "the exports taken at init");
  glue = replaceExactly(glue, "wasm = wasmInstance.exports;", "wasm = trapGuarded(wasmInstance.exports);", 1, "the exports taken on a reset");
  // A glue with classes checks that an object is of the current instance before each use; its
  // free() is made a no-op for an object of a replaced instance (whose memory went with it), so it
  // never frees a stale pointer in the new one.
  const classes = [...glue.matchAll(/^export class (\w+) \{/gm)].map((m) => m[1]);
  if (classes.length > 0) {
    glue += `
// ${packageName}: free() of an object made before a trap replaced the instance frees nothing.
for (const cls of [${classes.join(", ")}]) {
    const free = cls.prototype.free;
    const guardedFree = function () {
        if (this.__wbg_inst !== undefined && this.__wbg_inst !== __wbg_instance_id) {
            this.__wbg_ptr = 0;
            return;
        }
        return free.call(this);
    };
    if (typeof Symbol.dispose === "symbol" && cls.prototype[Symbol.dispose] === free) cls.prototype[Symbol.dispose] = guardedFree;
    cls.prototype.free = guardedFree;
}
`;
    glue = replaceAtLeastOnce(
      glue,
      "throw new Error('Invalid stale object from previous Wasm instance');",
      `throw new Error("${packageName}: this object was made before the WebAssembly module trapped and was instantiated again, and its state went with the old instance: make a new one");`,
      "the stale-object checks",
    );
  }
  // A relative URL ("./"): the form every bundler recognises as an asset to emit.
  glue = replaceExactly(
    glue,
    `new URL('${wasmName}', import.meta.url)`,
    `new URL('./${wasmName}', import.meta.url)`,
    1,
    "the .wasm's URL",
  );
  writeFileSync(gluePath, glue);
}

patchGlue(join(pkg, "ctxguard_core.js"), "ctxguard_core_bg.wasm", "ctxguard-core");
patchGlue(join(pkg, "documents", "ctxguard_documents.js"), "ctxguard_documents_bg.wasm", "ctxguard-core/documents");

writeFileSync(
  join(pkg, "node.js"),
  `// The Node entry of ctxguard-core (import and require): the browser entry's
// glue, instantiated synchronously from the .wasm beside it, so the API is
// ready on import; init() is still there and resolves at once.
import { readFileSync } from "node:fs";
import { initSync } from "./ctxguard_core.js";

initSync({ module: readFileSync(new URL("./ctxguard_core_bg.wasm", import.meta.url)) });

export * from "./ctxguard_core.js";
export { default } from "./ctxguard_core.js";
`,
);

writeFileSync(
  join(pkg, "documents", "node.js"),
  `// The Node entry of ctxguard-core/documents: the parsers' glue, instantiated
// synchronously from the .wasm beside it, so parseDocument is ready on import.
import { readFileSync } from "node:fs";
import { initSync } from "./ctxguard_documents.js";

initSync({ module: readFileSync(new URL("./ctxguard_documents_bg.wasm", import.meta.url)) });

export * from "./ctxguard_documents.js";
export { default } from "./ctxguard_documents.js";
`,
);

// package.json: the committed template, with the workspace's version.
const template = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
const manifest = { name: template.name, version, ...template };
if (repository) manifest.repository = { type: "git", url: repository, directory: "core" };
writeFileSync(join(pkg, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);

copyFileSync(join(here, "README.md"), join(pkg, "README.md"));
// ctxguard-core/pool: the TokenPool's entries, plan and worker scripts, as written.
cpSync(join(here, "pool"), join(pkg, "pool"), { recursive: true });
// wasm-bindgen's declarations of the raw exports, which the package does not ship.
for (const name of ["ctxguard_core_bg.wasm.d.ts", "documents/ctxguard_documents_bg.wasm.d.ts"]) rmSync(join(pkg, name), { force: true });
console.error(`build.mjs: ${pkg} is the ctxguard-core ${manifest.version} package`);
