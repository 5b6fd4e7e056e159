// Where init() → first count goes, in Node's V8 (indicative of Chromium's; one process per run).
// Usage: node tests/bench/init-parts.mjs pkg/core
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
const pkg = resolve(process.argv[2]);
const bytes = readFileSync(pkg + "/ctxguard_core_bg.wasm");
const m = await import(pkg + "/ctxguard_core.js");
let t = performance.now();
const module = await WebAssembly.compile(bytes);
const compile = performance.now() - t;
t = performance.now();
m.initSync({ module });
const inst = performance.now() - t;
t = performance.now();
m.countTokens("hello world", "gpt-4o");
const first = performance.now() - t;
t = performance.now();
m.countTokens("hello world again", "gpt-4o");
const second = performance.now() - t;
console.log(JSON.stringify({ compile_ms: +compile.toFixed(1), instantiate_ms: +inst.toFixed(1), first_count_ms: +first.toFixed(1), second_count_ms: +second.toFixed(2) }));
