// The Node host, CommonJS side: the same fresh project `require()`s the
// package (no init() call) and runs every public case again, then checks
// that `require` and `import` share one instance. CTXGUARD_ROOT is the repository.
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");

const t0 = performance.now();
const ctx = require("ctxguard-core");
const first = ctx.countTokens("hello world", "gpt-4o");
const requireToFirstCountMs = performance.now() - t0;

async function main() {
  const root = process.env.CTXGUARD_ROOT;
  const load = (path) => import(pathToFileURL(join(root, path)).href);
  const { Tally, assert } = await load("tests/support/net.mjs");
  const { checkNodeApi, checkVectors } = await load("tests/npm-node/checks.mjs");
  const { checkFaults, checkTrap } = await load("tests/npm-node/faults.mjs");
  const tally = new Tally();
  console.log(`require: require("ctxguard-core") to the first countTokens: ${requireToFirstCountMs.toFixed(1)} ms (one run)`);
  await tally.check("require: ready on require (no init())", () => assert(first === 2, `countTokens gave ${first}`));

  await checkVectors("require", ctx, readFileSync(join(root, "tests/conformance/vectors.jsonl"), "utf8"), tally);
  await checkNodeApi("require", ctx, tally);
  await tally.check("require and import share one instance", async () => {
    const esm = await import("ctxguard-core");
    assert(esm.countTokens === ctx.countTokens && esm.TokenLedger === ctx.TokenLedger, "two copies of the package");
  });
  await checkFaults("require", ctx, tally);
  // Last: it replaces the instance.
  await checkTrap("require", ctx, tally);
  return tally.finish();
}

main().then(
  (code) => { process.exitCode = code; },
  (e) => {
    console.log(`FAIL require host: ${e.stack ?? e}`);
    console.log("0 passed, 1 failed");
    process.exitCode = 1;
  },
);
