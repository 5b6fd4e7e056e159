// The Node host, ES module side: a fresh project with only the packed
// ctxguard-core tarball installed imports the package (no init() call) and
// runs every public conformance case of the 16 kinds the JS API covers
// through it, then the checks that only Node can make. run.sh copies this
// file into that project; CTXGUARD_ROOT is the repository.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const t0 = performance.now();
const ctx = await import("ctxguard-core");
const first = ctx.countTokens("hello world", "gpt-4o");
const importToFirstCountMs = performance.now() - t0;

const root = process.env.CTXGUARD_ROOT;
const { Tally, assert } = await import(pathToFileURL(join(root, "tests/support/net.mjs")).href);
const { checkNodeApi, checkVectors } = await import(pathToFileURL(join(root, "tests/npm-node/checks.mjs")).href);
const { checkFaults, checkMemoryGrowth, checkTrap } = await import(pathToFileURL(join(root, "tests/npm-node/faults.mjs")).href);

const tally = new Tally();
console.log(`import: import("ctxguard-core") to the first countTokens: ${importToFirstCountMs.toFixed(1)} ms (one run)`);
await tally.check("import: ready on import (no init())", () => assert(first === 2, `countTokens gave ${first}`));

await checkVectors("import", ctx, readFileSync(join(root, "tests/conformance/vectors.jsonl"), "utf8"), tally);
await checkNodeApi("import", ctx, tally);
await tally.check("import: init() resolves at once and again", async () => {
  const a = await ctx.default();
  assert(a !== undefined && a === (await ctx.default()), "init() gave two different instances");
});
await checkFaults("import", ctx, tally);
await checkMemoryGrowth("import", tally);
// Last: it replaces the instance.
await checkTrap("import", ctx, tally);
process.exitCode = tally.finish();
