// ctxguard-core/pool in Node (worker_threads), from the installed tarball:
// tests/support/pool-checks.mjs and tests/support/pool-plan-checks.mjs. run.sh copies this
// file into the project.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.env.CTXGUARD_ROOT;
const core = await import("ctxguard-core");
const { TokenPool } = await import("ctxguard-core/pool");
const { checkPool } = await import(pathToFileURL(join(root, "tests/support/pool-checks.mjs")).href);
const { wanted } = await import(pathToFileURL(join(root, "tests/support/net.mjs")).href);

// The plan (how ranges are handed out, a worker's side of the protocol) from the installed
// package's file: it is no export of the package, so it is imported by its path.
const plan = await import(pathToFileURL(join(process.cwd(), "node_modules/ctxguard-core/pool/plan.js")).href);
const { checkPlan } = await import(pathToFileURL(join(root, "tests/support/pool-plan-checks.mjs")).href);

// `--only TEXT` keeps the checks whose name holds TEXT (they all run; the pool is set up once).
const results = [...(await checkPlan(plan, core, "pool plan (node)")), ...(await checkPool(core, TokenPool, "pool (node)"))].filter((r) => wanted(r.name));
let failed = 0;
for (const r of results) {
  console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name}${r.ok ? "" : `\n     ${r.detail}`}`);
  if (!r.ok) failed += 1;
}
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
