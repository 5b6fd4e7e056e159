// Browser tests of the toolbar package (pkg/toolbar): the two custom
// elements through their public API only, in headless Chromium
// (tests/support's driver), against the repository served on a free port and
// a scripted SSE server. Prints one line per check and `N passed, M failed`.
//
// Usage: node tests/elements/run.mjs [--pkg pkg/toolbar] [--only TEXT]
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { launchBrowser, root, serveDirectory } from "../support/browser.mjs";
import { Tally, option } from "../support/net.mjs";
import { Harness } from "./harness.mjs";
import { admissionChecks } from "./admission.checks.mjs";
import { documentsChecks } from "./documents.checks.mjs";
import { manifestChecks } from "./manifest.checks.mjs";
import { packageChecks } from "./package.checks.mjs";
import { previewChecks } from "./preview.checks.mjs";
import { projectionChecks } from "./projection.checks.mjs";
import { sseChecks } from "./sse.checks.mjs";
import { toolbarChecks } from "./toolbar.checks.mjs";

const pkg = resolve(option("--pkg", join(root, "pkg/toolbar")));
if (resolve(pkg) !== resolve(root, "pkg/toolbar")) {
  console.error("run.mjs: the test pages import /pkg/toolbar/; build it there (scripts/build-packages.sh toolbar)");
  process.exit(2);
}
if (!existsSync(join(pkg, "wasm/ctxguard_toolbar_bg.wasm")) || !existsSync(join(root, "pkg/core/documents/ctxguard_documents_bg.wasm"))) {
  console.error(`run.mjs: no packages at ${pkg} and pkg/core (run scripts/build-packages.sh toolbar core)`);
  process.exit(2);
}

const tally = new Tally();
const check = (name, fn) => tally.check(name, fn);

const site = await serveDirectory(root);
const browser = await launchBrowser();
const watchdog = setTimeout(() => {
  tally.fail("the whole run took longer than 600 s");
  process.exit(tally.finish());
}, 600_000);
try {
  const h = new Harness(browser, site);
  await packageChecks(h, check, { pkg });
  await toolbarChecks(h, check);
  await projectionChecks(h, check);
  await manifestChecks(h, check, { pkg });
  await sseChecks(h, check);
  await previewChecks(h, check);
  await admissionChecks(h, check);
  await documentsChecks(h, check);
} catch (e) {
  tally.fail(`setup: ${e && e.stack ? e.stack : e}`);
} finally {
  clearTimeout(watchdog);
  await browser.close().catch(() => {});
  await site.close();
}
process.exit(tally.finish());
