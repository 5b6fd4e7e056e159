// ctxguard-core/pool's browser entry (module Workers), from the installed
// tarball: every check of tests/support/pool-checks.mjs; run.mjs reads
// window.ctxguardPool.
import init, * as core from "ctxguard-core";
import { TokenPool } from "ctxguard-core/pool";
import { checkPool } from "../support/pool-checks.mjs";

window.ctxguardPool = null;
try {
  await init();
  window.ctxguardPool = { done: true, results: await checkPool(core, TokenPool, "pool (chromium)") };
} catch (e) {
  window.ctxguardPool = { done: true, results: [{ name: "pool (chromium): the page ran", ok: false, detail: String(e?.stack ?? e) }] };
}
